// A TTFT objective no arrival rate can meet (`podsim capacity`,
// docs/serving.md, "Capacity"): every request's TTFT is at least its
// prompt's prefill alone -- one request on an idle copy of the fastest
// replica entry that prefills, timed by the step model the runs use
// (Server::prefill_alone) -- whatever the rate. So when more requests than
// the percentile lets exceed the objective need longer than it for their
// prefill alone, every rate misses it, and the search would only halve the
// rate down to its floor ("0.003 requests/s").
//
// Known only where every rate serves the same requests: a trace (its rows,
// up to the file's `requests`, no duration_s cutting them) or synthetic
// arrivals of one fixed prompt length. Not with prefix caching (a cached
// head skips its prefill). Assumes, as the step-time buckets do, that a
// step takes no less time for more tokens or more context; then a request
// in a busier step, or in more chunks, takes no less than alone.
//
// Work: O(n log n) to order the prompts, then O(log n) prefill timings per
// replica entry (each a few pod simulations, memoised).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/capacity.h"

namespace podsim::fleet {

struct TtftBound {
  bool known = false;                 // the request set is the same at every rate (above)
  bool unattainable = false;          // and the objective cannot be met
  uint64_t requests = 0;              // of every run (0: synthetic, not counted)
  uint64_t allowed = 0;               // may exceed the objective at the percentile
  uint64_t binding = 0;               // need longer than it for their prefill alone
  std::vector<uint64_t> binding_ids;  // the longest prompts (at most 10), request ids
  // Unattainable: the shortest binding prompt and its prefill alone (the
  // bound). Otherwise, when known: the prompt at the percentile's rank (the
  // longest one that must meet the objective) and its prefill alone, what
  // the objective leaves for queueing.
  uint32_t prompt_tokens = 0;
  double prefill_s = 0;
  std::string replica;  // the entry that times it fastest
  std::string reason;   // unattainable: the sentence the reports give
};

// Throws as a serve run does (StepError).
TtftBound ttft_bound(const config::ServeSpec& spec, const CapacityOptions& options);

}  // namespace podsim::fleet
