// Arrival processes: where requests come from (docs/serving.md, "Arrivals").
//
// One interface, four implementations (Poisson, gamma inter-arrivals,
// closed loop, trace replay), all deterministic for a seed (fleet/rng.h).
// Pull-based, so a run holds one pending arrival, not all of them:
//
//  - next(): the next arrival of the process's own stream, at or after the
//    one it returned before; nullopt when the stream has ended (a trace's
//    last row) or has nothing due until a request finishes (a closed loop
//    whose every user is waiting). The driver calls it once at the start and
//    again when the arrival it returned has arrived.
//  - finished(t): a request that came from this process finished at t. A
//    closed loop's user then thinks and returns the arrival it makes; the
//    open processes return nullopt. Each arrival it returns is scheduled on
//    its own (it is not part of next()'s stream).
//
// Work per arrival is O(1) (closed loop: O(1) too; its initial users are
// drawn and sorted once, O(N log N)).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "config/serve_spec.h"
#include "fleet/prefix_chains.h"
#include "fleet/rng.h"
#include "sim/time.h"

namespace podsim::fleet {

struct Arrival {
  sim::Time time;
  uint32_t prompt_tokens = 1;
  uint32_t output_tokens = 1;
  // The chain naming its tokens, in the process's prefixes()
  // (PrefixChains::kRoot: none).
  uint32_t prefix = PrefixChains::kRoot;
  uint32_t slo_class = 0;  // fleet/slo_classes.h: 0 the serve file's `slo`, i slo_classes[i - 1]
};

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  virtual std::optional<Arrival> next() = 0;
  virtual std::optional<Arrival> finished(sim::Time t) {
    (void)t;
    return std::nullopt;
  }
  // The chains its arrivals' prefixes refer to (null: none named); valid
  // for the process's life.
  virtual const PrefixChains* prefixes() const { return nullptr; }
};

// Draws request lengths from a LengthSpec, in [1, kMaxRequestTokens].
class LengthSampler {
 public:
  explicit LengthSampler(const config::LengthSpec& spec) : spec_(spec) {}
  uint32_t draw(Rng& rng) const;

 private:
  config::LengthSpec spec_;
};

// The process `spec` describes. A trace's rows are copied (the spec may go
// away). Prompt and output lengths are drawn from their own generator
// (seeded from `seed`), so changing the length distribution does not move
// the arrival times.
std::unique_ptr<ArrivalProcess> make_arrival_process(const config::ArrivalSpec& spec,
                                                     uint64_t seed);

}  // namespace podsim::fleet
