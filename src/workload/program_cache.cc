#include "workload/program_cache.h"

#include <stdexcept>

namespace podsim::workload {

ProgramCache::ProgramCache(size_t capacity) : capacity_(capacity) {
  if (capacity_ == 0)
    throw std::invalid_argument("ProgramCache: capacity must be at least 1");
}

std::shared_ptr<const Program> ProgramCache::find(const config::ServingSpec& serving,
                                                  const MeshAxes& mesh) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->serving == serving && it->mesh == mesh) {
      entries_.splice(entries_.begin(), entries_, it);
      return it->program;
    }
  }
  return nullptr;
}

std::shared_ptr<const Program> ProgramCache::lower(const config::ServingSpec& serving,
                                                   const MeshAxes& mesh) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (auto kept = find(serving, mesh)) {
      ++hits_;
      return kept;
    }
    ++misses_;
  }
  // Lowered outside the lock, so threads lowering different steps do not
  // wait for each other; two threads lowering the same step keep the first.
  auto program = std::make_shared<const Program>(workload::lower(serving, mesh));
  const std::lock_guard<std::mutex> lock(mutex_);
  if (auto kept = find(serving, mesh))
    return kept;
  entries_.push_front(Entry{serving, mesh, program});
  if (entries_.size() > capacity_)
    entries_.pop_back();
  return program;
}

size_t ProgramCache::hits() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

size_t ProgramCache::misses() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return misses_;
}

}  // namespace podsim::workload
