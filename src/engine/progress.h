// Progress reports of long runs (serving steps, operation lists): a callback
// given the work done and the total, called every kProgressInterval units
// of work and once at the end. For progress lines only; it must not touch
// the simulation.
#pragma once

#include <cstdint>
#include <functional>

namespace podsim::engine {

using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Completions between two progress calls: a power of two, so the check is a
// mask, and rare enough that the call costs nothing next to the events.
inline constexpr uint64_t kProgressInterval = 4096;

}  // namespace podsim::engine
