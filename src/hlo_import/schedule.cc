// The order a TPU runs a computation's instructions in, and the operation
// list built in that order (docs/hlo.md, "Dependencies and the schedule").
#include <algorithm>
#include <string>
#include <vector>

#include "hlo_import/internal.h"

namespace podsim::hlo_import::internal {

std::vector<hlo::InstructionId> schedule_order(const hlo::Module& module,
                                               const hlo::Computation& computation) {
  const size_t n = computation.instructions.size();
  std::vector<hlo::InstructionId> order;
  order.reserve(n);
  if (module.is_scheduled) {
    for (size_t i = 0; i < n; ++i) {
      order.push_back(static_cast<hlo::InstructionId>(i));
    }
    return order;
  }
  // Depth-first from each instruction in text order, operands (and control
  // predecessors) first: a topological order that keeps the text order
  // wherever the data flow allows. Iterative: chains may be long.
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(n, kNew);
  struct Frame {
    hlo::InstructionId id;
    std::vector<hlo::InstructionId> inputs;  // operands, then control predecessors
    size_t next = 0;
  };
  const auto frame = [&computation](hlo::InstructionId id) {
    const hlo::Instruction& i = computation.instruction(id);
    Frame f{id, i.operands, 0};
    if (i.extra) {
      f.inputs.insert(f.inputs.end(), i.extra->control_predecessors.begin(),
                      i.extra->control_predecessors.end());
    }
    return f;
  };
  std::vector<Frame> stack;
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != kNew) {
      continue;
    }
    state[root] = kOpen;
    stack.push_back(frame(static_cast<hlo::InstructionId>(root)));
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.inputs.size()) {
        const hlo::InstructionId o = top.inputs[top.next++];
        if (state[static_cast<size_t>(o)] == kNew) {
          state[static_cast<size_t>(o)] = kOpen;
          stack.push_back(frame(o));  // `top` is not used after this
        } else if (state[static_cast<size_t>(o)] == kOpen) {
          fail(module, computation.instruction(o),
               "its operands or control predecessors form a cycle");
        }
        continue;
      }
      state[static_cast<size_t>(top.id)] = kDone;
      order.push_back(top.id);
      stack.pop_back();
    }
  }
  return order;
}

void merge(Deps& into, const Deps& from) {
  if (from.empty()) {
    return;
  }
  Deps out;
  out.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
  into = std::move(out);
}

size_t OpListBuilder::add(std::string name,
                          std::variant<config::CollectiveSpec, config::ComputeOp> op,
                          const Deps& data, bool blocks, std::string_view op_name) {
  // A computation inlined twice (a call, both uses of a body) repeats names.
  if (!names_.insert(name).second) {
    for (int k = 2;; ++k) {
      std::string alt = name;
      alt += "#";
      alt += std::to_string(k);
      if (names_.insert(alt).second) {
        name = std::move(alt);
        break;
      }
    }
  }
  Deps after = data;
  merge(after, blocking_);
  const size_t index = ops_.size();
  // The op_name as the text writes it, its \" and \\ escapes decoded.
  std::string label;
  for (size_t i = 0; i < op_name.size(); ++i) {
    if (op_name[i] == '\\' && i + 1 < op_name.size()) {
      ++i;
    }
    label += op_name[i];
  }
  ops_.push_back(config::OperationSpec{std::move(name), after, 1, std::move(op), std::move(label)});
  if (blocks) {
    blocking_ = {index};
  }
  return index;
}

void OpListBuilder::wait_for(size_t op) {
  merge(blocking_, Deps{op});
}

void OpListBuilder::add_loop(std::string name, size_t first, uint32_t iterations) {
  if (first < ops_.size()) {
    loops_.push_back(config::LoopSpec{std::move(name), first, ops_.size(), iterations});
  }
}

}  // namespace podsim::hlo_import::internal
