// The operation-list trace (see trace.h): a track per operation, network
// tracks per mesh axis (collectives only).
#include "coll/plan.h"
#include "report/trace.h"
#include "report/trace_events.h"
#include "report/trace_network.h"

namespace podsim::report {
namespace {

// Picoseconds as the schema's double (exact below 2^53 ps, about 2.5 hours).
double ps(sim::Time t) {
  return static_cast<double>(t.count_ps());
}

TraceArgs run_args(sim::Time dur) {
  TraceArgs args;
  args.set_dur_ps(ps(dur));
  return args;
}

// A compute operation runs on every chip at once: one slice per run on its
// track, no network traffic.
void add_compute(TraceEventWriter& w, const TraceTrack& track, const engine::OperationResult& op) {
  const std::string kind(config::kind_name(op.compute->op));
  const chip::OpTiming& timing = op.compute->timing;
  TraceArgs args;
  args.set_kind(kind);
  args.set_repeat(op.repeat);
  args.set_time_us(op.per_run.to_us());
  args.set_flops(timing.flops);
  args.set_hbm_bytes(static_cast<double>(timing.bytes));
  args.set_bound(std::string(chip::to_string(timing.bound)));
  args.set_dur_ps(ps(op.end - op.start));
  if (!op.op_name.empty()) {
    args.set_op_name(op.op_name);
  }
  w.slice(track, op.name, kind, op.start, op.end, args);
  if (op.runs.size() <= 1) {
    return;
  }
  for (size_t r = 0; r < op.runs.size(); ++r) {
    const engine::RunSpan& span = op.runs[r];
    w.slice(track, "run " + std::to_string(r), kind, span.start, span.end,
            run_args(span.end - span.start));
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
    TraceArgs args;
    args.set_kind(kind);
    args.set_bytes(static_cast<double>(op.bytes));
    args.set_axes(axes);
    args.set_group_size(op.group_size);
    args.set_repeat(op.repeat);
    args.set_time_us(op.per_run.to_us());
    args.set_algbw_gbps(op.algbw_gbps);
    args.set_busbw_gbps(op.busbw_gbps);
    args.set_dur_ps(ps(op.end - op.start));
    if (!op.op_name.empty()) {
      args.set_op_name(op.op_name);
    }
    w.slice(track, op.name, kind, op.start, op.end, args);
    for (size_t r = 0; r < op.runs.size(); ++r) {
      const engine::RunSpan& run_span = op.runs[r];
      if (op.runs.size() > 1) {
        w.slice(track, "run " + std::to_string(r), kind, run_span.start, run_span.end,
                run_args(run_span.end - run_span.start));
      }
      net.add(op.axes, {run_span.start, run_span.end, op.name});
    }
  }
  net.write();
  TraceMetadata other;
  other.set_generator("podsim run --trace");
  other.set_workload(run.workload);
  other.set_topology(run.topology);
  other.set_network(run.network);
  other.set_makespan_us(result.makespan.to_us());
  other.set_time_resolution("ts and dur are whole ns (rounded down); args.dur_ps is exact");
  w.finish(other);
}

}  // namespace podsim::report
