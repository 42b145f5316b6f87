// What the engine sees of one collective in flight, whichever way it is
// played: chips join it as they reach it in their programs, and it says when
// each is done. CollectiveRun (coll/executor.h) plays every transfer on a
// network; ReplayedRun (coll/replay.h) lays a recorded run onto the
// analytical network when it can, and plays the transfers when it cannot.
#pragma once

#include <cstdint>
#include <functional>

#include "sim/simulation.h"
#include "topo/link.h"

namespace podsim::coll {

class Run {
 public:
  virtual ~Run() = default;
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Called once when every chip is done (from an event, never re-entrantly).
  virtual void set_on_done(std::function<void(sim::Simulation&)> fn) = 0;
  // Called as each chip finishes its part, at the simulated time it finishes.
  virtual void set_on_chip_done(std::function<void(sim::Simulation&, topo::ChipId)> fn) = 0;
  // How many chips will join (default: every chip of the pod).
  virtual void set_participants(uint32_t chips) = 0;
  // One chip reaches the collective in its program. Each chip joins once.
  virtual void join(sim::Simulation& sim, topo::ChipId chip) = 0;

 protected:
  Run() = default;
};

}  // namespace podsim::coll
