// The serving-step trace (see trace.h for its tracks).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "coll/plan.h"
#include "engine/breakdown.h"
#include "engine/fusion.h"
#include "report/busy_spans.h"
#include "report/trace.h"
#include "report/trace_events.h"
#include "report/trace_network.h"
#include "report/trace_units.h"

namespace podsim::report {
namespace {

using workload::Instruction;

bool is_compute(const Instruction& ins) {
  return std::holds_alternative<chip::Op>(ins.body);
}

const char* bound_name(chip::OpTiming::Bound b) {
  switch (b) {
    case chip::OpTiming::Bound::kMemory:
      return "memory";
    case chip::OpTiming::Bound::kOverhead:
      return "overhead";
    case chip::OpTiming::Bound::kCompute:
      break;
  }
  return "compute";
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    out += (out.empty() ? "" : std::string(sep)) + p;
  }
  return out;
}

// "chip 17 (1,0,1)", with the slice when the pod has several.
std::string chip_label(const topo::Pod& pod, topo::ChipId chip) {
  std::string s = "chip " + std::to_string(chip) + " (";
  const auto coords = pod.coords(chip);
  for (size_t d = 0; d < coords.size(); ++d) {
    s += d == 0 ? "" : ",";
    s += std::to_string(coords[d]);
  }
  s += ")";
  if (pod.slice_count() > 1) {
    s += " slice " + std::to_string(pod.slice_of(chip));
  }
  return s;
}

// targets[s][t]: the instruction of the receiving stage that stage transfer
// t of stage s feeds, or -1. The same wiring as the engine's: an instruction
// with recv_from = t in stage r is fed by transfer t of the stage r - d whose
// direction is d.
std::vector<std::vector<int32_t>> transfer_targets(const workload::Program& p) {
  std::vector<std::vector<int32_t>> targets(p.stages.size());
  for (size_t s = 0; s < p.stages.size(); ++s) {
    targets[s].assign(p.stages[s].instructions.size(), -1);
  }
  for (size_t r = 0; r < p.stages.size(); ++r) {
    const auto& prog = p.stages[r].instructions;
    for (uint32_t k = 0; k < prog.size(); ++k) {
      if (prog[k].recv_from < 0) {
        continue;
      }
      const auto t = static_cast<size_t>(prog[k].recv_from);
      for (const int dir : {+1, -1}) {
        const int64_t from = static_cast<int64_t>(r) - dir;
        if (from < 0 || from >= static_cast<int64_t>(p.stages.size())) {
          continue;
        }
        const auto& sender = p.stages[static_cast<size_t>(from)].instructions;
        if (t >= sender.size()) {
          continue;
        }
        const auto* st = std::get_if<workload::StageTransfer>(&sender[t].body);
        if (st != nullptr && st->direction == dir) {
          targets[static_cast<size_t>(from)][t] = static_cast<int32_t>(k);
        }
      }
    }
  }
  return targets;
}

class StepTrace {
 public:
  StepTrace(const StepTraceInputs& in, const TraceChipChoice& chips, std::ostream& out)
      : in_(in), chips_(chips), w_(out), slot_of_(in.step.chips.size(), -1) {
    const auto& step = in.step;
    for (uint32_t i = 0; i < step.chips.size(); ++i) {
      if (step.chips[i] == step.critical_chip) {
        critical_index_ = static_cast<int32_t>(i);
      }
    }
    timing_.resize(in.program.stages.size());
    fusion_.resize(in.program.stages.size());
    for (const uint32_t i : chips.indices) {
      slot_of_[i] = static_cast<int32_t>(tracks_.size());
      tracks_.push_back({i, {}, {}});
      compute_timings(stage_of(i));
    }
  }

  void write() {
    stage_processes();
    for (ChipTracks& t : tracks_) {
      chip_tracks(t);
    }
    for (const ChipTracks& t : tracks_) {
      chip_slices(t);
    }
    network();
    units();
    transfer_flows();
    critical_flows();
    w_.finish(other_data());
  }

 private:
  struct ChipTracks {
    uint32_t index = 0;          // into StepResult::chips
    TraceTrack compute;          // its compute track
    std::vector<TraceTrack> of;  // per instruction: the track its slice is on
  };

  uint32_t stage_of(uint32_t index) const { return in_.step.chip_stage[index]; }
  const std::vector<Instruction>& program_of(uint32_t index) const {
    return in_.program.stages[stage_of(index)].instructions;
  }
  uint32_t stage_pid(uint32_t stage) const { return stage + 1; }

  void stage_processes() {
    std::vector<bool> shown(in_.program.stages.size(), false);
    for (const ChipTracks& t : tracks_) {
      shown[stage_of(t.index)] = true;
    }
    const bool pipeline = in_.program.stages.size() > 1;
    bool labelled = false;
    for (uint32_t s = 0; s < shown.size(); ++s) {
      if (!shown[s]) {
        continue;
      }
      w_.process(stage_pid(s), pipeline ? "stage " + std::to_string(s) : "pod", s);
      if (!labelled && !chips_.notes.empty()) {
        w_.process_labels(stage_pid(s), join(chips_.notes, "; "));
        labelled = true;
      }
    }
  }

  // A compute track, then as many collective tracks as the chip's
  // collectives need to never overlap on one track (greedy interval
  // partitioning, in start order; usually one).
  void chip_tracks(ChipTracks& t) {
    const auto& prog = program_of(t.index);
    const auto& spans = in_.step.spans[t.index];
    const topo::ChipId chip = in_.step.chips[t.index];
    const uint32_t pid = stage_pid(stage_of(t.index));
    const std::string label = chip_label(in_.pod, chip);
    t.compute = {pid, next_tid_++};
    w_.thread(t.compute, label + (chip == in_.step.critical_chip ? " critical" : ""),
              t.compute.tid);
    t.of.assign(prog.size(), t.compute);

    std::vector<uint32_t> comms;
    for (uint32_t k = 0; k < prog.size(); ++k) {
      if (!is_compute(prog[k])) {
        comms.push_back(k);
      }
    }
    std::stable_sort(comms.begin(), comms.end(),
                     [&spans](uint32_t a, uint32_t b) { return spans[a].start < spans[b].start; });
    std::vector<sim::Time> lane_end;
    std::vector<TraceTrack> lanes;
    for (const uint32_t k : comms) {
      size_t lane = 0;
      while (lane < lanes.size() && lane_end[lane] > spans[k].start) {
        ++lane;
      }
      if (lane == lanes.size()) {
        lanes.push_back({pid, next_tid_++});
        lane_end.push_back(spans[k].end);
        std::string name = "chip " + std::to_string(chip) + " collectives";
        if (lane > 0) {
          name += ' ';
          name += std::to_string(lane + 1);
        }
        w_.thread(lanes.back(), name, lanes.back().tid);
      }
      lane_end[lane] = spans[k].end;
      t.of[k] = lanes[lane];
    }
  }

  // Each compute instruction's bound, FLOPs and bytes, once per traced
  // stage: the engine's compute model gives the same answer on every chip.
  void compute_timings(uint32_t stage) {
    auto& timing = timing_[stage];
    const auto& prog = in_.program.stages[stage].instructions;
    if (!timing.empty() || prog.empty()) {
      return;
    }
    fusion_[stage] = engine::plan_fusion(prog, in_.compute);
    timing = engine::stage_timings(prog, in_.compute, fusion_[stage]);
  }

  void chip_slices(const ChipTracks& t) {
    const auto& prog = program_of(t.index);
    const auto& spans = in_.step.spans[t.index];
    const uint32_t stage = stage_of(t.index);
    for (uint32_t k = 0; k < prog.size(); ++k) {
      const Instruction& ins = prog[k];
      const engine::Span& sp = spans[k];
      const char* op_class = workload::to_string(ins.op_class);
      args_.Clear();
      args_.set_layer(engine::breakdown_layer_key(ins));
      args_.set_op_class(op_class);
      args_.set_dur_ps(static_cast<double>((sp.end - sp.start).count_ps()));
      if (is_compute(ins)) {
        const chip::OpTiming& tm = timing_[stage][k];
        args_.set_bound(bound_name(tm.bound));
        args_.set_flops(tm.flops);
        args_.set_hbm_bytes(static_cast<double>(tm.bytes));
        const engine::StageFusion& f = fusion_[stage];
        if (f.fused_into[k] >= 0) {
          args_.set_fused_into(prog[static_cast<size_t>(f.fused_into[k])].name);
        }
      } else if (const auto* c = std::get_if<config::CollectiveSpec>(&ins.body)) {
        args_.set_kind(coll::to_string(c->kind));
        args_.set_bytes(static_cast<double>(c->bytes));
        args_.set_axes(join(c->axes, ","));
      } else {
        const auto& st = std::get<workload::StageTransfer>(ins.body);
        args_.set_bytes(static_cast<double>(st.bytes));
        args_.set_direction(st.direction);
      }
      w_.slice(t.of[k], ins.name, op_class, sp.start, sp.end, args_);
    }
  }

  // Per mesh axis, when any collective over it is in flight on any simulated
  // chip: each instruction's spans over the chips of its stage are merged
  // first (so an instruction counts once), then all of an axis's.
  void network() {
    std::vector<std::string> axes;
    for (const auto& a : in_.mesh.axes()) {
      axes.push_back(a.name);
    }
    NetworkTracks net(w_, static_cast<uint32_t>(in_.program.stages.size()) + 1, axes, next_tid_);
    std::vector<std::vector<uint32_t>> chips_of(in_.program.stages.size());
    for (uint32_t i = 0; i < in_.step.chips.size(); ++i) {
      chips_of[stage_of(i)].push_back(i);
    }
    for (size_t s = 0; s < in_.program.stages.size(); ++s) {
      const auto& prog = in_.program.stages[s].instructions;
      for (uint32_t k = 0; k < prog.size(); ++k) {
        std::vector<std::string> over;
        if (const auto* c = std::get_if<config::CollectiveSpec>(&prog[k].body)) {
          over = c->axes;
        } else if (std::holds_alternative<workload::StageTransfer>(prog[k].body)) {
          over = {in_.program.pipeline_axis};
        } else {
          continue;
        }
        std::vector<NamedSpan> spans;
        spans.reserve(chips_of[s].size());
        for (const uint32_t i : chips_of[s]) {
          spans.push_back({in_.step.spans[i][k].start, in_.step.spans[i][k].end, {}});
        }
        for (BusySpan& b : merge_busy(std::move(spans))) {
          net.add(over, {b.start, b.end, prog[k].name});
        }
      }
    }
    next_tid_ = net.write();
  }

  // The critical chip's units running the chosen layer, in a process after
  // the network's.
  void units() {
    if (in_.unit_layer.empty() || critical_index_ < 0) {
      return;
    }
    const auto i = static_cast<uint32_t>(critical_index_);
    const chip::ComputeModel& model =
        in_.critical_compute != nullptr ? *in_.critical_compute : in_.compute;
    next_tid_ = write_unit_tracks(
        w_,
        {program_of(i), in_.step.spans[i], model, in_.unit_layer, in_.step.critical_chip,
         static_cast<uint32_t>(in_.program.stages.size()) + 2},
        next_tid_);
  }

  // The chip at the other end of a stage transfer: the same place in the
  // neighbouring stage, along the pipeline axis.
  std::optional<topo::ChipId> transfer_peer(topo::ChipId chip, int direction) const {
    const std::vector<std::string> axis{in_.program.pipeline_axis};
    const auto group = in_.mesh.group_of(chip, axis);
    const int64_t at = static_cast<int64_t>(in_.mesh.index_in_group(chip, axis)) + direction;
    if (at < 0 || at >= static_cast<int64_t>(group.size())) {
      return std::nullopt;
    }
    return group[static_cast<size_t>(at)];
  }

  // Sender's transfer -> the receiver's instruction it feeds, when both chips are traced.
  void transfer_flows() {
    if (in_.program.pipeline_axis.empty()) {
      return;
    }
    const auto targets = transfer_targets(in_.program);
    std::map<topo::ChipId, uint32_t> traced;  // chip -> position in tracks_
    for (uint32_t a = 0; a < tracks_.size(); ++a) {
      traced.emplace(in_.step.chips[tracks_[a].index], a);
    }
    for (const ChipTracks& t : tracks_) {
      const auto& prog = program_of(t.index);
      const uint32_t stage = stage_of(t.index);
      for (uint32_t k = 0; k < prog.size(); ++k) {
        const auto* st = std::get_if<workload::StageTransfer>(&prog[k].body);
        if (st == nullptr || targets[stage][k] < 0) {
          continue;
        }
        const auto peer = transfer_peer(in_.step.chips[t.index], st->direction);
        const auto it = peer ? traced.find(*peer) : traced.end();
        if (it == traced.end()) {
          continue;
        }
        const ChipTracks& r = tracks_[it->second];
        const auto target = static_cast<uint32_t>(targets[stage][k]);
        const engine::Span& from = in_.step.spans[t.index][k];
        const engine::Span& to = in_.step.spans[r.index][target];
        w_.flow("transfer", "stage_transfer", t.of[k], from.start, from.end, r.of[target], to.start,
                to.end);
      }
    }
  }

  // On the critical chip: each collective or transfer -> the earliest
  // compute instruction that depends on it.
  void critical_flows() {
    if (critical_index_ < 0 || slot_of_[static_cast<size_t>(critical_index_)] < 0) {
      return;
    }
    const ChipTracks& t =
        tracks_[static_cast<size_t>(slot_of_[static_cast<size_t>(critical_index_)])];
    const auto& prog = program_of(t.index);
    const auto& spans = in_.step.spans[t.index];
    std::vector<int64_t> first(prog.size(), -1);  // collective -> earliest dependent compute
    for (uint32_t j = 0; j < prog.size(); ++j) {
      if (!is_compute(prog[j])) {
        continue;
      }
      for (const uint32_t d : prog[j].deps) {
        if (!is_compute(prog[d]) &&
            (first[d] < 0 || spans[j].start < spans[static_cast<size_t>(first[d])].start)) {
          first[d] = j;
        }
      }
    }
    for (uint32_t k = 0; k < prog.size(); ++k) {
      if (first[k] >= 0) {
        const engine::Span& to = spans[static_cast<size_t>(first[k])];
        w_.flow("unblocks", "dependency", t.of[k], spans[k].start, spans[k].end,
                t.of[static_cast<size_t>(first[k])], to.start, to.end);
      }
    }
  }

  TraceMetadata other_data() const {
    const auto& step = in_.step;
    TraceMetadata o;
    o.set_generator("podsim run --trace");
    o.set_workload(in_.run.workload);
    o.set_topology(in_.run.topology);
    o.set_network(in_.run.network);
    o.set_compute(std::string(in_.compute.name()));
    o.set_step_time_us(step.step_time.to_us());
    o.set_critical_chip(step.critical_chip);
    o.set_critical_stage(step.critical_stage);
    o.set_simulated_chips(step.simulated_chips);
    o.set_represented_chips(step.represented_chips);
    for (const ChipTracks& t : tracks_) {
      o.add_traced_chips(step.chips[t.index]);
    }
    o.set_time_resolution("ts and dur are whole ns (rounded down); args.dur_ps is exact");
    for (const auto& n : chips_.notes) {
      o.add_notes(n);
    }
    if (!in_.unit_layer.empty()) {
      o.set_unit_layer(in_.unit_layer);
    }
    return o;
  }

  const StepTraceInputs& in_;
  const TraceChipChoice& chips_;
  TraceEventWriter w_;
  std::vector<int32_t> slot_of_;  // simulated chip index -> position in tracks_, or -1
  std::vector<ChipTracks> tracks_;
  std::vector<std::vector<chip::OpTiming>> timing_;  // [stage][instruction], traced stages
  std::vector<engine::StageFusion> fusion_;          // [stage], traced stages
  TraceArgs args_;                                   // reused for every chip slice
  int32_t critical_index_ = -1;
  uint32_t next_tid_ = 1;
};

}  // namespace

void render_step_trace(const StepTraceInputs& in, const TraceChipChoice& chips, std::ostream& out) {
  StepTrace(in, chips, out).write();
}

}  // namespace podsim::report
