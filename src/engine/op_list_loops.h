// Loops in an operation list (config::LoopSpec, from an imported HLO while):
// a range of operations played `iterations` times, each iteration starting
// when every operation of the previous one has finished (XLA's while is a
// barrier per iteration), the operations' state reset in between. The op-list
// engine (op_list.cc) asks this class which operations a finished one
// releases and when a range starts again; a list without loops releases every
// dependent at once, as before.
//
// Rules (config/workload_spec.h): an edge from an operation inside a loop to
// one outside it is released when that loop has played its last iteration
// (the outermost such loop, for nested loops); an edge from outside into a
// loop is released once, and later iterations do not wait for it again.
//
// Memory: O(operations + edges + loops). Work: O(dependents) per finished
// operation, O(operations and edges of the range) per restarted iteration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/workload_spec.h"

namespace podsim::engine {

class OpListLoops {
 public:
  // What the engine does on the loops' behalf.
  class Sink {
   public:
    // One of the operations `op` waits for has finished.
    virtual void release(size_t op) = 0;
    // A new iteration: `op` runs again and waits for `waits` operations.
    virtual void reset(size_t op, size_t waits) = 0;
    // `op` waits for nothing (after a reset with waits 0).
    virtual void ready(size_t op) = 0;
    virtual ~Sink() = default;
  };

  // Throws std::invalid_argument when a loop is empty, lies outside the
  // list, has no iteration, or overlaps another without nesting in it.
  explicit OpListLoops(const config::WorkloadSpec& workload);

  // How many passes `op` makes in all: the product of the iterations of the
  // loops around it (1 outside every loop). Saturates at UINT64_MAX.
  uint64_t passes(size_t op) const;
  bool in_loop(size_t op) const { return loop_of_[op] != kNoLoop; }

  // `op` finished its runs of the current pass: releases the dependents
  // whose wait ends now; when that ends an iteration, restarts the range
  // (reset, then ready for the operations that wait for nothing).
  void finished(size_t op, Sink& sink);

 private:
  static constexpr size_t kNoLoop = static_cast<size_t>(-1);

  void restart(size_t loop, Sink& sink);
  bool contains(size_t loop, size_t op) const {
    return op >= loops_[loop].first && op < loops_[loop].end;
  }

  const config::WorkloadSpec& workload_;
  std::vector<config::LoopSpec> loops_;           // sorted: outer before inner
  std::vector<size_t> parent_;                    // enclosing loop, or kNoLoop
  std::vector<size_t> loop_of_;                   // innermost loop of each operation
  std::vector<std::vector<size_t>> now_;          // dependents released per pass
  std::vector<std::vector<size_t>> at_loop_end_;  // per loop: released after its last iteration
  std::vector<size_t> finished_;                  // per loop: operations done this iteration
  std::vector<uint32_t> iteration_;               // per loop: iterations done
};

}  // namespace podsim::engine
