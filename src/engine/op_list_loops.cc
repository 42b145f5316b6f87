#include "engine/op_list_loops.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace podsim::engine {

OpListLoops::OpListLoops(const config::WorkloadSpec& workload)
    : workload_(workload),
      loops_(workload.loops),
      loop_of_(workload.operations.size(), kNoLoop),
      now_(workload.operations.size()) {
  const size_t n = workload.operations.size();
  std::stable_sort(loops_.begin(), loops_.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.end > b.end;
  });
  parent_.assign(loops_.size(), kNoLoop);
  std::vector<size_t> open;  // the loops around the current one, outermost first
  for (size_t l = 0; l < loops_.size(); ++l) {
    const config::LoopSpec& loop = loops_[l];
    if (loop.first >= loop.end || loop.end > n || loop.iterations == 0) {
      throw std::invalid_argument("loop '" + loop.name + "': operations [" +
                                  std::to_string(loop.first) + ", " + std::to_string(loop.end) +
                                  ") of " + std::to_string(n) + ", " +
                                  std::to_string(loop.iterations) +
                                  " iterations: not a non-empty range played at least once");
    }
    while (!open.empty() && loops_[open.back()].end <= loop.first) {
      open.pop_back();
    }
    if (!open.empty()) {
      if (loop.end > loops_[open.back()].end) {
        throw std::invalid_argument("loop '" + loop.name + "' overlaps loop '" +
                                    loops_[open.back()].name + "' without nesting in it");
      }
      parent_[l] = open.back();
    }
    open.push_back(l);
    for (size_t i = loop.first; i < loop.end; ++i) {
      loop_of_[i] = l;  // inner loops come later and overwrite
    }
  }
  at_loop_end_.resize(loops_.size());
  finished_.assign(loops_.size(), 0);
  iteration_.assign(loops_.size(), 0);
  for (size_t d = 0; d < n; ++d) {
    for (const size_t i : workload.operations[d].after) {
      // The outermost loop around i that does not hold d: the loops around i
      // not holding d are the innermost ones of its chain.
      size_t outer = kNoLoop;
      for (size_t l = loop_of_[i]; l != kNoLoop && !contains(l, d); l = parent_[l]) {
        outer = l;
      }
      (outer == kNoLoop ? now_[i] : at_loop_end_[outer]).push_back(d);
    }
  }
}

uint64_t OpListLoops::passes(size_t op) const {
  uint64_t total = 1;
  for (size_t l = loop_of_[op]; l != kNoLoop; l = parent_[l]) {
    if (__builtin_mul_overflow(total, uint64_t{loops_[l].iterations}, &total)) {
      return std::numeric_limits<uint64_t>::max();
    }
  }
  return total;
}

void OpListLoops::finished(size_t op, Sink& sink) {
  for (const size_t d : now_[op]) {
    sink.release(d);
  }
  size_t done = 1;  // operations of the loop below that just finished
  for (size_t l = loop_of_[op]; l != kNoLoop; l = parent_[l]) {
    finished_[l] += done;
    const config::LoopSpec& loop = loops_[l];
    if (finished_[l] < loop.end - loop.first) {
      return;
    }
    finished_[l] = 0;
    if (++iteration_[l] < loop.iterations) {
      restart(l, sink);
      return;
    }
    iteration_[l] = 0;  // ready for the enclosing loop's next iteration
    for (const size_t d : at_loop_end_[l]) {
      sink.release(d);
    }
    done = loop.end - loop.first;
  }
}

void OpListLoops::restart(size_t loop, Sink& sink) {
  const config::LoopSpec& l = loops_[loop];
  std::vector<size_t> free;
  for (size_t i = l.first; i < l.end; ++i) {
    size_t waits = 0;
    for (const size_t dep : workload_.operations[i].after) {
      waits += contains(loop, dep) ? 1 : 0;
    }
    sink.reset(i, waits);
    if (waits == 0) {
      free.push_back(i);
    }
  }
  for (const size_t i : free) {
    sink.ready(i);
  }
}

}  // namespace podsim::engine
