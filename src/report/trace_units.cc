#include "report/trace_units.h"

#include <algorithm>
#include <string>

#include "chip/unit_timeline.h"
#include "engine/breakdown.h"
#include "engine/fusion.h"

namespace podsim::report {
namespace {

std::string slice_name(const chip::UnitSlice& s) {
  if (s.work != chip::UnitWork::kSteps && s.work != chip::UnitWork::kTransfers)
    return std::string(chip::to_string(s.work));
  const std::string what = s.work == chip::UnitWork::kSteps ? "step" : "transfers";
  if (s.steps <= 1)
    return what + " " + std::to_string(s.first_step);
  return what + " " + std::to_string(s.first_step) + "-" +
         std::to_string(s.first_step + s.steps - 1) + " (" + std::to_string(s.steps) + " steps)";
}

}  // namespace

uint32_t write_unit_tracks(TraceEventWriter& w, const UnitTrackInputs& in, uint32_t first_tid) {
  const std::string layer(in.layer);
  w.process(in.pid, "chip " + std::to_string(in.chip) + " units, layer " + layer, in.pid);
  std::vector<TraceTrack> track;
  uint32_t tid = first_tid;
  for (const chip::Unit u : chip::kUnits) {
    track.push_back({in.pid, tid});
    w.thread(track.back(), std::string(chip::to_string(u)), tid);
    ++tid;
  }
  TraceArgs args;
  const engine::StageFusion fusion = engine::plan_fusion(in.program, in.compute);
  for (size_t k = 0; k < in.program.size(); ++k) {
    const workload::Instruction& ins = in.program[k];
    const auto* op = std::get_if<chip::Op>(&ins.body);
    if (op == nullptr || fusion.fused_into[k] >= 0 || engine::breakdown_layer_key(ins) != layer)
      continue;  // a fused op runs inside its matmul's kernel
    const engine::Span& span = in.spans[k];
    const char* op_class = workload::to_string(ins.op_class);
    const auto& epilogue = fusion.epilogue[k];
    const std::vector<chip::UnitSlice> slices =
        epilogue ? in.compute.fused_timeline(std::get<chip::Matmul>(*op), *epilogue)
                 : in.compute.unit_timeline(*op);
    for (const chip::UnitSlice& s : slices) {
      const sim::Time start = std::min(span.start + s.start, span.end);
      const sim::Time end = std::min(span.start + s.end, span.end);
      if (end <= start)
        continue;
      args.Clear();
      args.set_layer(layer);
      args.set_op(ins.name);
      args.set_op_class(op_class);
      args.set_dur_ps(static_cast<double>((end - start).count_ps()));
      if (s.steps > 0) {
        args.set_first_step(static_cast<double>(s.first_step));
        args.set_steps(static_cast<double>(s.steps));
      }
      w.slice(track[static_cast<size_t>(s.unit)], slice_name(s), op_class, start, end, args);
    }
  }
  return tid;
}

}  // namespace podsim::report
