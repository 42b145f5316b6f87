// Lowered programs kept for reuse across runs. A sweep over hardware (link
// bandwidth, hop latency, chip peaks, compute model) lowers the same serving
// step on the same mesh at every point, and a search lowers each candidate
// once to check its memory and again to simulate it; lowering LLaMA-3-70B
// decode is about a sixth of an analytical point's time.
//
// lower() is a pure function of the serving spec and the mesh axes, so a
// program looked up by equal arguments is the program lower() would build:
// results are the same with or without the cache.
//
// Memory is bounded: at most `capacity` programs are kept, the least
// recently used dropped first (a program in use stays alive through its
// shared_ptr). Safe to use from several threads at once.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>

#include "config/serving_spec.h"
#include "workload/program.h"

namespace podsim::workload {

class ProgramCache {
 public:
  static constexpr size_t kDefaultCapacity = 32;
  explicit ProgramCache(size_t capacity = kDefaultCapacity);

  // workload::lower(serving, mesh), or the program an earlier call lowered
  // for equal arguments. Throws what lower() throws (ShapeError); failures
  // are not kept.
  std::shared_ptr<const Program> lower(const config::ServingSpec& serving, const MeshAxes& mesh);

  // Calls that found their program kept, and calls that lowered it.
  size_t hits() const;
  size_t misses() const;

 private:
  struct Entry {
    config::ServingSpec serving;
    MeshAxes mesh;
    std::shared_ptr<const Program> program;
  };
  // The entry for these arguments, moved to the front; nullptr when none.
  std::shared_ptr<const Program> find(const config::ServingSpec& serving, const MeshAxes& mesh);

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  size_t hits_ = 0;
  size_t misses_ = 0;
};

}  // namespace podsim::workload
