// The operation-list trace (see trace.h): a track per operation, network
// tracks per mesh axis (collectives only).
#include "coll/plan.h"
#include "report/trace.h"
#include "report/trace_events.h"
#include "report/trace_network.h"

namespace podsim::report {
namespace {

// A compute operation runs on every chip at once: one slice per run on its
// track, no network traffic.
void add_compute(TraceEventWriter& w, const TraceTrack& track, const engine::OperationResult& op) {
  const std::string kind(config::kind_name(op.compute->op));
  const chip::OpTiming& timing = op.compute->timing;
  w.slice(track, op.name, kind, op.start, op.end, [&](JsonWriter& j) {
    j.field("kind", kind).field("repeat", op.repeat).field("time_us", op.per_run.to_us());
    j.field("flops", timing.flops).field("hbm_bytes", timing.bytes);
    j.field("bound", std::string(chip::to_string(timing.bound)));
    j.field("dur_ps", (op.end - op.start).count_ps());
  });
  if (op.runs.size() <= 1) {
    return;
  }
  for (size_t r = 0; r < op.runs.size(); ++r) {
    const engine::RunSpan& span = op.runs[r];
    w.slice(track, "run " + std::to_string(r), kind, span.start, span.end,
            [&](JsonWriter& j) { j.field("dur_ps", (span.end - span.start).count_ps()); });
  }
}

}  // namespace

void render_op_list_trace(const RunInputs& run, const engine::OpListResult& result,
                          std::ostream& out) {
  TraceEventWriter w(out);
  constexpr uint32_t kOperationsPid = 1;
  constexpr uint32_t kNetworkPid = 2;
  w.process(kOperationsPid, "operations", kOperationsPid);
  uint32_t tid = 1;
  NetworkTracks net(w, kNetworkPid, {}, static_cast<uint32_t>(result.operations.size()) + 1);
  for (const engine::OperationResult& op : result.operations) {
    const TraceTrack track{kOperationsPid, tid++};
    w.thread(track, op.name, track.tid);
    if (op.compute) {
      add_compute(w, track, op);
      continue;
    }
    const char* kind = coll::to_string(op.kind);
    std::string axes;
    for (const auto& a : op.axes) {
      axes += (axes.empty() ? "" : ",") + a;
    }
    // The whole operation first: a viewer nests the runs under it.
    w.slice(track, op.name, kind, op.start, op.end, [&](JsonWriter& j) {
      j.field("kind", kind).field("bytes", op.bytes).field("axes", axes);
      j.field("group_size", op.group_size).field("repeat", op.repeat);
      j.field("time_us", op.per_run.to_us()).field("algbw_gbps", op.algbw_gbps);
      j.field("busbw_gbps", op.busbw_gbps).field("dur_ps", (op.end - op.start).count_ps());
    });
    for (size_t r = 0; r < op.runs.size(); ++r) {
      const engine::RunSpan& run_span = op.runs[r];
      if (op.runs.size() > 1) {
        w.slice(
            track, "run " + std::to_string(r), kind, run_span.start, run_span.end,
            [&](JsonWriter& j) { j.field("dur_ps", (run_span.end - run_span.start).count_ps()); });
      }
      net.add(op.axes, {run_span.start, run_span.end, op.name});
    }
  }
  net.write();
  w.finish([&](JsonWriter& j) {
    j.field("generator", "podsim run --trace").field("workload", run.workload);
    j.field("topology", run.topology).field("network", run.network);
    j.field("makespan_us", result.makespan.to_us());
    j.field("time_resolution", "ts and dur are whole ns (rounded down); args.dur_ps is exact");
  });
}

}  // namespace podsim::report
