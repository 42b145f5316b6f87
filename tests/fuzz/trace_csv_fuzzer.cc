// Request traces for podsim serve (config/trace_loader.h): the Azure and the
// plain CSV formats, parsed and checked at several speed-ups. The loader's
// InputError is the only refusal; a trace it accepts must be sorted by
// arrival and within the token bounds, or the harness aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "config/diagnostics.h"
#include "config/trace_loader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const double speedup : {1.0, 3.5, 1e-3}) {
    try {
      const auto trace =
          podsim::config::parse_trace_csv(podsim::fuzz::as_text(data, size), "fuzz.csv", speedup);
      for (size_t i = 0; i < trace.size(); ++i) {
        const auto& t = trace[i];
        if ((i > 0 && t.arrival < trace[i - 1].arrival) || t.prompt_tokens == 0 ||
            t.output_tokens == 0 || t.prompt_tokens > podsim::config::kMaxRequestTokens ||
            t.output_tokens > podsim::config::kMaxRequestTokens) {
          std::abort();
        }
      }
    } catch (const podsim::config::InputError&) {
    }
  }
  return 0;
}
