// Serve files (podsim serve, docs/serving.md): parsing and every rule of
// the serve loader, with replica topologies and workloads taken from
// workloads/serve/ (the shipped examples' directory, so the seeds' file names
// resolve); then, when the run is small, the request-level simulation on
// the pod simulation's step times and every output but the per-request CSV.
// The loader's InputError is the refusal `podsim serve` turns into exit 2,
// and so is a step the pod simulation cannot lower (fleet::StepError, which
// cmd_serve reports as an InputError); anything else escapes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "config/diagnostics.h"
#include "config/serve_loader.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"
#include "fleet/serve_output.h"
#include "fleet/serve_trace.h"
#include "fuzz_support.h"
#include "podsim/serve.pb.h"
#include "structured_mutator.h"

namespace {

// A fuzz iteration runs at most this many requests of at most this many
// tokens each, on at most this many replica copies of at most 16 chips (the
// shipped examples' 2x2 and 4x4 slices): a few hundred cheap steps.
constexpr uint64_t kMaxRequests = 24;
constexpr uint64_t kQuickRequests = 4;  // podsim::fuzz::quick()
constexpr uint32_t kMaxTokens = 512;
constexpr uint32_t kMaxCopies = 3;
constexpr uint32_t kMaxChips = 16;
constexpr uint32_t kMaxUsers = 8;

bool small_enough(podsim::config::ServeSpec& spec) {
  using podsim::config::ArrivalKind;
  const uint64_t max_requests = podsim::fuzz::quick() ? kQuickRequests : kMaxRequests;
  uint32_t copies = 0;
  for (const auto& r : spec.replicas) {
    uint64_t chips = 1;
    for (const auto& d : r.pod.torus.dims) {
      chips *= d.size;
    }
    copies += r.count;
    if (chips * std::max<uint32_t>(1, r.pod.slices) > kMaxChips || r.max_batch > 64) {
      return false;
    }
    // A speculative draft on a slice of its own is simulated too.
    if (r.speculative.draft_pod && r.speculative.draft_pod->chip_count() > kMaxChips) {
      return false;
    }
  }
  if (copies > kMaxCopies) {
    return false;
  }
  auto& a = spec.arrivals;
  if (a.kind == ArrivalKind::kTrace) {
    if (a.trace.size() > max_requests) {
      a.trace.resize(max_requests);
    }
    return std::all_of(a.trace.begin(), a.trace.end(), [](const auto& t) {
      return t.prompt_tokens <= kMaxTokens && t.output_tokens <= kMaxTokens;
    });
  }
  if (a.kind == ArrivalKind::kClosedLoop && a.users > kMaxUsers) {
    return false;
  }
  spec.max_requests = std::min(spec.max_requests, max_requests);
  return a.prompt.max <= kMaxTokens && a.output.max <= kMaxTokens;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  podsim::config::ServeSpec spec;
  try {
    spec = podsim::config::parse_serve_text(podsim::fuzz::as_text(data, size), "fuzz.serve",
                                            podsim::fuzz::source_path("workloads/serve"));
  } catch (const podsim::config::InputError&) {
    return 0;
  }
  if (!small_enough(spec)) {
    return 0;
  }
  spec.buckets.measure_error = false;  // half the pod runs; measured in tests/fleet
  podsim::fleet::ServeOutput out;
  try {
    out = podsim::fleet::serve(spec, /*record_steps=*/true);
  } catch (const podsim::fleet::StepError&) {
    return 0;
  }
  const auto report = podsim::fleet::make_report(spec, out);
  std::ostringstream table;
  podsim::fleet::render_summary(table, report);
  (void)podsim::fleet::summary_json(report);
  (void)podsim::fleet::summary_csv(report);
  (void)podsim::fleet::timeseries_csv(out);
  std::ostringstream trace;
  podsim::fleet::write_serve_trace(spec, out, trace);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return podsim::fuzz::mutate_text_proto(podsim::ServeConfig::default_instance(), data, size,
                                         max_size, seed);
}
