// Routers: which replica a new request goes to (docs/serving.md, "Routers").
// One interface, two implementations, both deterministic (ties go to the
// lowest index):
//  - round robin: replicas in turn, O(1);
//  - least outstanding tokens: the replica with the fewest prompt and output
//    tokens not yet processed, O(replicas) per request.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "config/serve_spec.h"

namespace podsim::fleet {

class Router {
 public:
  virtual ~Router() = default;
  // Whether route() reads `outstanding` (the caller may skip filling it).
  virtual bool needs_load() const = 0;
  // The replica for the next request; `outstanding` holds every replica's
  // outstanding tokens when needs_load() (its size is the replica count).
  virtual uint32_t route(std::span<const uint64_t> outstanding) = 0;
};

std::unique_ptr<Router> make_router(config::RouterKind kind);

}  // namespace podsim::fleet
