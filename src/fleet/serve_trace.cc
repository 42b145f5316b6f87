#include "fleet/serve_trace.h"

#include <string>

#include "report/trace_events.h"

namespace podsim::fleet {
namespace {

constexpr uint32_t kPid = 1;

std::string step_name(const StepShape& s) {
  std::string name;
  if (s.prefill_sequences > 0)
    name = "prefill " + std::to_string(s.prefill_sequences) + " (" +
           std::to_string(s.prefill_tokens) + " tokens)";
  if (s.decode_sequences > 0) {
    if (!name.empty())
      name += " + ";
    name += "decode " + std::to_string(s.decode_sequences);
  }
  return name;
}

}  // namespace

void write_serve_trace(const config::ServeSpec& spec, const ServeOutput& out, std::ostream& os) {
  report::TraceEventWriter w(os);
  w.process(kPid, "podsim serve '" + spec.name + "'", 0);
  for (size_t i = 0; i < out.setups.size(); ++i)
    w.thread(report::TraceTrack{kPid, static_cast<uint32_t>(i + 1)}, out.setups[i].name,
             static_cast<int64_t>(i));
  for (size_t i = 0; i < out.run.steps.size(); ++i) {
    const report::TraceTrack track{kPid, static_cast<uint32_t>(i + 1)};
    for (const StepRecord& r : out.run.steps[i]) {
      report::TraceArgs args;
      const StepShape& s = r.shape;
      if (s.prefill_sequences > 0) {
        args.set_prefill_sequences(s.prefill_sequences);
        args.set_prefill_tokens(static_cast<double>(s.prefill_tokens));
      }
      if (s.decode_sequences > 0)
        args.set_decode_sequences(s.decode_sequences);
      args.set_context_tokens(
          static_cast<double>(s.prefill_context_tokens + s.decode_context_tokens));
      if (r.swap_tokens > 0)
        args.set_swap_tokens(static_cast<double>(r.swap_tokens));
      args.set_dur_ps(static_cast<double>((r.end - r.start).count_ps()));
      const char* cat =
          s.prefill_sequences > 0 ? (s.decode_sequences > 0 ? "mixed" : "prefill") : "decode";
      w.slice(track, step_name(s), cat, r.start, r.end, args);
    }
  }
  report::TraceMetadata other;
  other.set_generator("podsim serve --trace");
  other.set_workload(spec.source_file);
  other.set_network(spec.network);
  other.set_makespan_us(out.run.end.to_us());
  w.finish(other);
}

}  // namespace podsim::fleet
