#include "engine/step.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include "coll/executor.h"
#include "coll/plan.h"
#include "coll/replay.h"
#include "engine/breakdown.h"
#include "engine/fold.h"
#include "engine/fusion.h"
#include "engine/reachable.h"
#include "engine/symmetry.h"
#include "net/analytical_network.h"
#include "sim/simulation.h"
#include "topo/routing.h"

namespace podsim::engine {
namespace {

using workload::Instruction;

bool is_compute(const Instruction& ins) {
  return std::holds_alternative<chip::Op>(ins.body);
}

// Whether two collectives lower to the same plan (coll::lower reads these
// fields; the dtype does not change the plan).
bool same_plan(const config::CollectiveSpec& a, const config::CollectiveSpec& b) {
  return a.kind == b.kind && a.bytes == b.bytes && a.algorithm == b.algorithm && a.root == b.root &&
         a.shift == b.shift && a.compute_reduction == b.compute_reduction && a.axes == b.axes &&
         a.pairs == b.pairs;
}

// Torus dimensions (and kSliceDim) that the named mesh axes span.
void add_axis_dims(const topo::DeviceMesh& mesh, const std::vector<std::string>& names,
                   std::set<uint32_t>& dims) {
  for (const auto& a : mesh.axes()) {
    if (std::find(names.begin(), names.end(), a.name) != names.end()) {
      dims.insert(a.dims.begin(), a.dims.end());
    }
  }
}

// Static facts about one stage's program, shared by all its chips.
struct StageInfo {
  // The instructions waiting on instruction k: dependents[dependents_begin[k]
  // .. dependents_begin[k + 1]).
  std::vector<uint32_t> dependents_begin;
  std::vector<uint32_t> dependents;
  std::vector<uint32_t> base_deps;  // dependencies + an incoming stage transfer
  std::vector<uint32_t> compute_order;
  std::vector<chip::OpTiming> timing;  // per instruction (compute only), fusion applied
  StageFusion fusion;                  // engine/fusion.h
  std::vector<int32_t> plan;           // per instruction (collectives): index into plans
  // recv_into[t] = instruction of the *receiving* stage fed by transfer t of this stage.
  std::vector<int32_t> recv_into;
  uint32_t chips = 0;                  // simulated chips in this stage
  std::vector<topo::ChipId> chip_ids;  // the same, in chips_ order: who joins its collectives
};

struct ChipState {
  topo::ChipId chip = 0;
  uint32_t stage = 0;
  std::vector<uint32_t> deps_left;
  std::vector<Span> spans;
  std::vector<uint8_t> done;
  uint32_t next_compute = 0;
  uint32_t finished = 0;
  bool busy = false;
  // A straggler's own compute times (StepOptions::stragglers), by
  // instruction; empty: the stage's.
  std::vector<chip::OpTiming> own_timing;
};

class StepRun final : public sim::EventHandler, public net::TransferSink {
 public:
  StepRun(const topo::Pod& pod, const topo::DeviceMesh& mesh, const workload::Program& program,
          const chip::ComputeModel& compute, const StepOptions& options)
      : pod_(pod),
        mesh_(mesh),
        program_(program),
        network_options_(options.network),
        budget_(options.budget),
        network_(net::make_network(pod, options.network)),
        progress_(options.progress),
        sim_(sim::Simulation::Options::charging(options.budget)),
        sim_index_(pod.chip_count(), -1) {
    exec_options_ = coll::executor_options(pod);
    exec_options_.count_link_bytes = false;  // the network's link statistics serve
    choose_chips(options);
    prepare_stages(compute);
    time_stragglers(options.stragglers);
    choose_classes(options);
    // After the classes: a symmetric run's recordings are played over them
    // too (the representatives join, the links are the classes'), so what
    // is laid down is what playing the run over the classes books.
    if (options.replay_collectives && options.network.model == net::Model::kAnalytical) {
      analytical_ = dynamic_cast<net::AnalyticalNetwork*>(network_.get());
      replays_.emplace(pod, options.network, exec_options_);
    }
    allocate_chip_state();
    for (const auto& c : chips_) {
      instructions_ += program_.stages[c.stage].instructions.size();
    }
    // Replicas a fault reaches (engine/fold.h) do not run as the healthy one
    // does: lock step would break at their first collective.
    lockstep_ = options.lockstep && program_.stages.size() == 1 && chips_.size() > 1 &&
                options.stragglers.empty() && fold_.faulty_replicas == 0;
    if (lockstep_) {
      first_done_.assign(program_.stages[0].instructions.size(), kNotDone);
    }
  }

  StepResult run() {
    // In lock step only chip 0 runs its program; it joins collectives for all
    // (every chip, or every class's representative). In a symmetric run the
    // representatives run theirs.
    const auto running = lockstep_ ? std::span<const uint32_t>(played_).first(1)
                                   : std::span<const uint32_t>(played_);
    for (const uint32_t i : running) {
      const auto& prog = program_.stages[chips_[i].stage].instructions;
      for (uint32_t k = 0; k < prog.size(); ++k) {
        if (chips_[i].deps_left[k] == 0 && !is_compute(prog[k])) {
          start(i, k);
        }
      }
      try_compute(i);
    }
    sim_.run();
    if (replay_disturbed() || lockstep_broken_) {
      return {};  // stopped early: run_step plays the step again
    }
    if (lockstep_) {
      // Every chip did what chip 0 did, at the same times.
      for (uint32_t i = 1; i < chips_.size(); ++i) {
        take_timeline(chips_[i], chips_[0]);
      }
    } else if (symmetry_.classes) {
      // Every chip did what its class's representative did.
      for (ChipState& c : chips_) {
        const topo::ChipId rep = symmetry_.classes->rep(c.chip);
        if (rep != c.chip) {
          take_timeline(c, chips_[static_cast<size_t>(sim_index_[rep])]);
        }
      }
    }
    if (progress_) {
      progress_(completed_, instructions_);
    }
    check_finished();
    StepResult r = summarize();
    r.link_stats = network_->link_stats(sim_);
    if (symmetry_.classes) {
      r.link_stats = unfold_classes(*symmetry_.classes, std::move(r.link_stats));
    }
    r.symmetric = symmetry_.classes.has_value();
    r.simulation = describe(pod_, symmetry_);
    if (fold_.faulty_replicas > 0) {
      r.simulation += "; replicas: " + std::to_string(fold_.faulty_replicas) +
                      " reached by faults played chip by chip, one healthy replica for the others";
    }
    r.represented_by = std::move(fold_.represented_by);
    r.played_chips = lockstep_ ? 1 : static_cast<uint32_t>(played_.size());
    return r;
  }

  // Traffic shared links with a replayed collective (coll/replay.h): this
  // run's times are not those of playing every transfer.
  bool replay_disturbed() const {
    return analytical_ != nullptr && analytical_->replay_disturbed();
  }
  // In lock step, a collective finished its chips at different times: they
  // do not all do what chip 0 does, so the step must be played chip by chip.
  bool lockstep_broken() const { return lockstep_broken_; }

  void handle(sim::Simulation&, uint64_t payload) override {
    complete(static_cast<uint32_t>(payload >> 32), static_cast<uint32_t>(payload));
  }

  void delivered(sim::Simulation&, uint64_t tag) override {
    const auto sender = static_cast<uint32_t>(tag >> 32);
    const auto k = static_cast<uint32_t>(tag);
    const ChipState& s = chips_[sender];
    const auto& t =
        std::get<workload::StageTransfer>(program_.stages[s.stage].instructions[k].body);
    // In a symmetric run the receiver's class representative receives it,
    // at the same instant as the receiver does in the full run.
    const topo::ChipId dst = class_of(stage_neighbour(s.chip, t.direction));
    const int32_t receiver = sim_index_[dst];
    const int32_t target = stages_[s.stage].recv_into[k];
    complete(sender, k);
    if (receiver >= 0 && target >= 0) {
      satisfy(static_cast<uint32_t>(receiver), static_cast<uint32_t>(target));
    }
  }

 private:
  // Replica folding (engine/fold.h): the chips to simulate, and which
  // simulated chip stands for each chip left out.
  void choose_chips(const StepOptions& options) {
    std::set<uint32_t> spanned;
    bool named_sends = false;
    const std::vector<std::string>* added = nullptr;  // a layer repeats its collectives' axes
    for (const auto& stage : program_.stages) {
      for (const auto& ins : stage.instructions) {
        if (const auto* c = std::get_if<config::CollectiveSpec>(&ins.body)) {
          if (added == nullptr || *added != c->axes) {
            add_axis_dims(mesh_, c->axes, spanned);
            added = &c->axes;
          }
          named_sends = named_sends || c->kind == config::CollectiveKind::kSend;
        }
      }
    }
    if (!program_.pipeline_axis.empty()) {
      add_axis_dims(mesh_, {program_.pipeline_axis}, spanned);
    }
    std::vector<topo::ChipId> slower;
    for (const auto& [chip, model] : options.stragglers) {
      slower.push_back(chip);
    }
    fold_ = choose_fold(pod_, spanned, options.fold_replicas, slower, named_sends);
    for (const topo::ChipId c : fold_.chips) {
      sim_index_[c] = static_cast<int32_t>(chips_.size());
      ChipState s;
      s.chip = c;
      s.stage = program_.pipeline_axis.empty()
                    ? 0
                    : mesh_.index_in_group(c, std::vector<std::string>{program_.pipeline_axis});
      chips_.push_back(std::move(s));
    }
  }

  // `to` did what `from` did: its spans; the rest of the state only where
  // `from` did not finish (check_finished() reads it then).
  static void take_timeline(ChipState& to, const ChipState& from) {
    const topo::ChipId chip = to.chip;
    if (from.finished != from.spans.size()) {
      to = from;
    } else {
      to.spans = from.spans;
      to.finished = from.finished;
      to.next_compute = from.next_compute;
      to.busy = from.busy;
    }
    to.chip = chip;
  }

  // A program with no straggler, on a pod and collectives that a
  // translation keeps (engine/symmetry.h), plays one chip per class: the
  // representatives run, join the collectives and stand for their classes.
  // Translations move only along the dimensions folding kept, and never
  // along the pipeline axis's (each class stays within one stage).
  void choose_classes(const StepOptions& options) {
    // On a pod with faults, translations move the healthy replica that
    // stands for the others only (engine/fold.h): the replicas the faults
    // reach, stragglers among them, are played chip by chip beside it.
    const bool within = !fold_.stand_in.empty();
    if (!options.symmetry) {
      symmetry_.why_full = "symmetry turned off";
    } else if (!options.stragglers.empty() && !within) {
      symmetry_.why_full = "the pod has stragglers";
    } else {
      std::vector<bool> movable(pod_.dim_count(), false);
      if (within) {
        for (const topo::ChipId c : fold_.stand_in) {
          for (uint32_t d = 0; d < pod_.dim_count(); ++d) {
            movable[d] = movable[d] || pod_.coord(c, d) != pod_.coord(fold_.stand_in[0], d);
          }
        }
      } else {
        for (const ChipState& c : chips_) {
          for (uint32_t d = 0; d < pod_.dim_count(); ++d) {
            movable[d] = movable[d] || pod_.coord(c.chip, d) != 0;
          }
        }
      }
      if (!program_.pipeline_axis.empty()) {
        std::set<uint32_t> stage_dims;
        add_axis_dims(mesh_, {program_.pipeline_axis}, stage_dims);
        for (const uint32_t d : stage_dims) {
          if (d < movable.size()) {
            movable[d] = false;
          }
        }
      }
      std::vector<const coll::Plan*> plans;
      for (const coll::Plan& p : plans_) {
        plans.push_back(&p);
      }
      if (within) {
        std::vector<uint8_t> moved(pod_.chip_count(), 0);
        for (const topo::ChipId c : fold_.stand_in) {
          moved[c] = 1;
        }
        symmetry_ = choose_symmetry_within(pod_, plans, network_options_, movable, moved);
      } else {
        symmetry_ = choose_symmetry(pod_, plans, network_options_, movable);
      }
    }
    played_.clear();
    for (uint32_t i = 0; i < chips_.size(); ++i) {
      if (!symmetry_.classes || symmetry_.classes->rep(chips_[i].chip) == chips_[i].chip) {
        played_.push_back(i);
      }
    }
    if (!symmetry_.classes) {
      return;
    }
    exec_options_.classes = &*symmetry_.classes;
    for (StageInfo& info : stages_) {
      info.chip_ids.clear();
      info.chips = 0;
    }
    for (const uint32_t i : played_) {
      StageInfo& info = stages_[chips_[i].stage];
      info.chip_ids.push_back(chips_[i].chip);
      ++info.chips;
    }
  }

  // Inverts the dependencies of a stage's program (counting sort, so each
  // instruction's dependents stay in program order).
  static void index_dependents(const std::vector<Instruction>& prog, StageInfo& info) {
    info.dependents_begin.assign(prog.size() + 1, 0);
    for (const Instruction& ins : prog) {
      for (const uint32_t d : ins.deps) {
        ++info.dependents_begin[d + 1];
      }
    }
    for (size_t k = 1; k < info.dependents_begin.size(); ++k) {
      info.dependents_begin[k] += info.dependents_begin[k - 1];
    }
    info.dependents.resize(info.dependents_begin.back());
    std::vector<uint32_t> next(info.dependents_begin.begin(), info.dependents_begin.end() - 1);
    for (uint32_t k = 0; k < prog.size(); ++k) {
      for (const uint32_t d : prog[k].deps) {
        info.dependents[next[d]++] = k;
      }
    }
  }

  void prepare_stages(const chip::ComputeModel& compute) {
    stages_.resize(program_.stages.size());
    std::vector<const config::CollectiveSpec*> planned;  // the collective of each plan
    for (size_t s = 0; s < program_.stages.size(); ++s) {
      const auto& prog = program_.stages[s].instructions;
      StageInfo& info = stages_[s];
      index_dependents(prog, info);
      info.base_deps.assign(prog.size(), 0);
      info.fusion = plan_fusion(prog, compute);
      info.timing = stage_timings(prog, compute, info.fusion);  // the same on every chip
      info.plan.assign(prog.size(), -1);
      info.recv_into.assign(prog.size(), -1);
      for (uint32_t k = 0; k < prog.size(); ++k) {
        const Instruction& ins = prog[k];
        info.base_deps[k] = static_cast<uint32_t>(ins.deps.size()) + (ins.recv_from >= 0 ? 1 : 0);
        if (std::holds_alternative<chip::Op>(ins.body)) {
          info.compute_order.push_back(k);
        } else if (const auto* c = std::get_if<config::CollectiveSpec>(&ins.body)) {
          // A step repeats a few distinct collectives many times.
          const auto plan =
              static_cast<size_t>(std::find_if(planned.begin(), planned.end(),
                                               [c](const auto* p) { return same_plan(*p, *c); }) -
                                  planned.begin());
          if (plan == planned.size()) {
            planned.push_back(c);
            plans_.push_back(coll::lower(pod_, mesh_, *c, network_options_, budget_));
          }
          info.plan[k] = static_cast<int32_t>(plan);
        }
      }
    }
    // Wire each stage's incoming transfers to the sender's instruction.
    for (size_t s = 0; s < program_.stages.size(); ++s) {
      const auto& prog = program_.stages[s].instructions;
      for (uint32_t k = 0; k < prog.size(); ++k) {
        size_t from = 0;
        size_t t = 0;
        if (workload::stage_transfer_into(program_, s, prog[k], from, t)) {
          stages_[from].recv_into[t] = static_cast<int32_t>(k);
        }
      }
    }
    runs_.resize(program_.stages.size());
    for (size_t s = 0; s < program_.stages.size(); ++s) {
      runs_[s].resize(program_.stages[s].instructions.size());
    }
    for (auto& c : chips_) {
      ++stages_[c.stage].chips;
      stages_[c.stage].chip_ids.push_back(c.chip);
    }
  }

  // Every chip's spans; dependency counts only for the chips that run (in a
  // symmetric run the others take their representatives' timelines at the
  // end).
  void allocate_chip_state() {
    for (auto& c : chips_) {
      const size_t n = program_.stages[c.stage].instructions.size();
      c.spans.resize(n);
      if (!symmetry_.classes || symmetry_.classes->rep(c.chip) == c.chip) {
        c.deps_left = stages_[c.stage].base_deps;
        c.done.assign(n, 0);
      }
    }
  }

  // Each simulated straggler's compute times on its own model.
  void time_stragglers(
      const std::vector<std::pair<topo::ChipId, const chip::ComputeModel*>>& stragglers) {
    for (const auto& [chip, model] : stragglers) {
      const int32_t i = sim_index_.at(chip);
      if (i < 0) {
        continue;  // folded away (cannot happen on a pod with faults)
      }
      ChipState& c = chips_[static_cast<size_t>(i)];
      const auto& prog = program_.stages[c.stage].instructions;
      c.own_timing = stage_timings(prog, *model, stages_[c.stage].fusion);
    }
  }

  const chip::OpTiming& timing(const ChipState& c, uint32_t k) const {
    return c.own_timing.empty() ? stages_[c.stage].timing[k] : c.own_timing[k];
  }

  topo::ChipId stage_neighbour(topo::ChipId chip, int direction) const {
    const std::vector<std::string> axis{program_.pipeline_axis};
    const auto group = mesh_.group_of(chip, axis);
    const int64_t at = static_cast<int64_t>(mesh_.index_in_group(chip, axis)) + direction;
    if (at < 0 || at >= static_cast<int64_t>(group.size())) {
      throw StuckError("stage transfer from chip " + std::to_string(chip) +
                       " leaves the pipeline axis '" + program_.pipeline_axis + "'");
    }
    return group[static_cast<size_t>(at)];
  }

  // Chip i (every played chip in lockstep, as chip 0 does) joins the
  // collective at instruction k of its stage.
  void join(uint32_t i, uint32_t k) {
    coll::Run& run = *runs_[chips_[i].stage][k];
    if (lockstep_) {
      for (const uint32_t j : played_) {
        run.join(sim_, chips_[j].chip);
      }
    } else {
      run.join(sim_, chips_[i].chip);
    }
  }

  void start(uint32_t i, uint32_t k) {
    ChipState& s = chips_[i];
    const Instruction& ins = program_.stages[s.stage].instructions[k];
    s.spans[k].start = sim_.now();
    if (std::holds_alternative<config::CollectiveSpec>(ins.body)) {
      auto& run = runs_[s.stage][k];
      if (!run) {
        const uint32_t stage = s.stage;
        const auto plan = static_cast<uint32_t>(stages_[stage].plan[k]);
        if (analytical_ != nullptr) {
          run = std::make_unique<coll::ReplayedRun>(pod_, *analytical_, plans_[plan], plan,
                                                    exec_options_, *replays_,
                                                    stages_[stage].chip_ids);
        } else {
          // The plan's runs in this stage share their routes (one per layer).
          auto& routes = route_tables_[{plan, stage}];
          if (!routes) {
            routes = std::make_shared<coll::RouteTables>();
          }
          run = std::make_unique<coll::CollectiveRun>(pod_, *network_, plans_[plan], routes,
                                                      exec_options_, stages_[stage].chip_ids);
        }
        run->set_participants(stages_[stage].chips);
        run->set_on_chip_done(
            [this, k](sim::Simulation&, topo::ChipId chip) { collective_done(chip, k); });
        // A finished run's per-chip state is dead weight (hundreds of runs in
        // a deep model): free it, from an event of its own, since on_done is
        // called from inside the run.
        run->set_on_done([this, stage, k](sim::Simulation& sim) {
          sim.schedule_in(sim::Time::zero(),
                          [this, stage, k](sim::Simulation&) { runs_[stage][k].reset(); });
        });
      }
      // The calibration's fixed cost per collective (launch, synchronisation)
      // delays the chip's entry into it.
      const sim::Time launch = pod_.spec().calibration.collective_overhead;
      if (launch > sim::Time::zero()) {
        sim_.schedule_in(launch, [this, i, k](sim::Simulation&) { join(i, k); });
      } else {
        join(i, k);
      }
      return;
    }
    const auto& t = std::get<workload::StageTransfer>(ins.body);
    const topo::ChipId to = stage_neighbour(s.chip, t.direction);
    const auto route =
        symmetry_.classes ? class_route(s.chip, to) : std::span<const topo::LinkId>();
    network_->start(sim_, net::Transfer{s.chip, to, t.bytes, route, symmetry_.classes.has_value()},
                    *this, (uint64_t{i} << 32) | k);
  }

  topo::ChipId class_of(topo::ChipId chip) const {
    return symmetry_.classes ? symmetry_.classes->rep(chip) : chip;
  }

  // The pod's route from `src` to `dst` over link classes (a symmetric run's
  // stage transfers), worked out once per pair and kept for the run (the
  // network holds it until delivery).
  std::span<const topo::LinkId> class_route(topo::ChipId src, topo::ChipId dst) {
    const uint64_t key = (uint64_t{src} << 32) | dst;
    auto [it, added] = class_route_of_.try_emplace(key, class_routes_.size());
    if (added) {
      std::vector<topo::LinkId> route = topo::route(pod_, src, dst);
      for (topo::LinkId& id : route) {
        id = symmetry_.classes->rep_link(id);
      }
      class_routes_.push_back(std::move(route));
    }
    return class_routes_[it->second];
  }

  void try_compute(uint32_t i) {
    ChipState& s = chips_[i];
    const StageInfo& info = stages_[s.stage];
    if (s.busy || s.next_compute >= info.compute_order.size()) {
      return;
    }
    const uint32_t k = info.compute_order[s.next_compute];
    if (s.deps_left[k] != 0) {
      return;
    }
    ++s.next_compute;
    s.busy = true;
    s.spans[k].start = sim_.now();
    sim_.schedule_in(timing(s, k).time, *this, (uint64_t{i} << 32) | k);
  }

  void satisfy(uint32_t i, uint32_t k) {
    ChipState& s = chips_[i];
    if (--s.deps_left[k] != 0) {
      return;
    }
    if (is_compute(program_.stages[s.stage].instructions[k])) {
      try_compute(i);
    } else {
      start(i, k);
    }
  }

  void collective_done(topo::ChipId chip, uint32_t k) {
    if (lockstep_) {
      sim::Time& first = first_done_[k];
      if (first == kNotDone) {
        first = sim_.now();
      } else if (first != sim_.now()) {
        lockstep_broken_ = true;
        sim_.stop();
        return;
      }
      if (chip != chips_[0].chip) {
        return;  // its program is chip 0's
      }
    }
    complete(static_cast<uint32_t>(sim_index_[chip]), k);
  }

  void complete(uint32_t i, uint32_t k) {
    if (replay_disturbed()) {
      sim_.stop();  // no need to go on
    }
    ChipState& s = chips_[i];
    s.spans[k].end = sim_.now();
    s.done[k] = 1;
    ++s.finished;
    // In lock step one completion stands for every chip's, in a symmetric
    // run for its class's.
    const uint64_t before = completed_;
    completed_ += lockstep_ ? chips_.size() : chips_.size() / played_.size();
    if (progress_ && before / kProgressInterval != completed_ / kProgressInterval) {
      progress_(completed_, instructions_);
    }
    if (is_compute(program_.stages[s.stage].instructions[k])) {
      s.busy = false;
    }
    const StageInfo& info = stages_[s.stage];
    for (uint32_t e = info.dependents_begin[k]; e < info.dependents_begin[k + 1]; ++e) {
      const uint32_t j = info.dependents[e];
      satisfy(i, j);
    }
    try_compute(i);
  }

  // Names what a stuck step is stuck on: per unfinished chip (at most a few),
  // the instructions that are ready or running but never finished, or, in a
  // dependency cycle, the first ones still waiting.
  void check_finished() const {
    std::string stuck;
    int chips_listed = 0;
    for (const auto& s : chips_) {
      const auto& prog = program_.stages[s.stage].instructions;
      if (s.finished == prog.size() || chips_listed == 4) {
        continue;
      }
      ++chips_listed;
      std::string lines;
      int listed = 0;
      for (uint32_t k = 0; k < prog.size() && listed < 4; ++k) {
        if (s.done[k] == 0 && s.deps_left[k] == 0) {
          lines += "\n  chip " + std::to_string(s.chip) + ": " + prog[k].name +
                   " started and never finished";
          ++listed;
        }
      }
      for (uint32_t k = 0; k < prog.size() && listed < 4; ++k) {
        if (s.done[k] == 0 && s.deps_left[k] > 0) {
          lines += "\n  chip " + std::to_string(s.chip) + ": " + prog[k].name + " waits on " +
                   std::to_string(s.deps_left[k]) + " unfinished dependencies";
          ++listed;
        }
      }
      stuck += lines;
    }
    if (!stuck.empty()) {
      throw StuckError("the step cannot finish; stuck instructions:" + stuck);
    }
  }

  // Moves the chips' spans into the result.
  StepResult summarize();

  const topo::Pod& pod_;
  const topo::DeviceMesh& mesh_;
  const workload::Program& program_;
  net::Options network_options_;
  sim::WorkBudget* budget_;  // charged by the schedule choices' simulations too
  std::unique_ptr<net::Network> network_;
  std::function<void(uint64_t, uint64_t)> progress_;
  uint64_t completed_ = 0;     // instructions completed, over all simulated chips
  uint64_t instructions_ = 0;  // instructions to complete, over all simulated chips
  sim::Simulation sim_;
  coll::ExecutorOptions exec_options_;
  std::vector<int32_t> sim_index_;  // chip -> index into chips_, -1 when folded away
  std::vector<ChipState> chips_;
  std::vector<StageInfo> stages_;
  std::vector<coll::Plan> plans_;
  // Routes worked out once per (plan, stage) and shared by its runs.
  std::map<std::pair<uint32_t, uint32_t>, std::shared_ptr<coll::RouteTables>> route_tables_;
  std::vector<std::vector<std::unique_ptr<coll::Run>>> runs_;
  net::AnalyticalNetwork* analytical_ = nullptr;  // set when collectives are replayed
  std::optional<coll::ReplayCache> replays_;
  SymmetryChoice symmetry_;
  FoldChoice fold_;
  std::vector<uint32_t> played_;  // indices into chips_ of the chips that run
  // Stage transfers' routes over link classes, by (src, dst); a deque so
  // that spans handed to the network stay valid.
  std::map<uint64_t, size_t> class_route_of_;
  std::deque<std::vector<topo::LinkId>> class_routes_;
  // Lock step (StepOptions::lockstep): chip 0 runs for every chip.
  static constexpr sim::Time kNotDone = sim::Time::max();
  bool lockstep_ = false;
  bool lockstep_broken_ = false;
  std::vector<sim::Time> first_done_;  // per collective instruction: when its first chip finished
};

StepResult StepRun::summarize() {
  StepResult r;
  r.simulated_chips = static_cast<uint32_t>(chips_.size());
  r.represented_chips = pod_.chip_count();
  r.events = sim_.events_executed();
  r.fingerprint = sim_.fingerprint();
  r.min_chip_end = sim::Time::max();
  double sum_end_ps = 0;
  std::vector<sim::Time> chip_end(chips_.size());  // each chip's last instruction end
  for (uint32_t i = 0; i < chips_.size(); ++i) {
    sim::Time& end = chip_end[i];
    for (const Span& sp : chips_[i].spans) {
      end = std::max(end, sp.end);
    }
    if (end > r.step_time || i == 0) {
      r.step_time = end;
      r.critical_chip = chips_[i].chip;
      r.critical_stage = chips_[i].stage;
    }
    r.min_chip_end = std::min(r.min_chip_end, end);
    sum_end_ps += static_cast<double>(end.count_ps());
    r.chips.push_back(chips_[i].chip);
    r.chip_stage.push_back(chips_[i].stage);
  }
  if (chips_.empty()) {
    r.min_chip_end = sim::Time::zero();
    return r;
  }
  r.mean_chip_end =
      sim::Time::ps(static_cast<int64_t>(sum_end_ps / static_cast<double>(chips_.size())));
  // Chips that end together (a last collective releases them all at once):
  // the critical one is the one that computed longest, whom the others
  // waited for (a straggler); on a tie, the first.
  auto busy_of = [this](uint32_t i) {
    sim::Time busy = sim::Time::zero();
    for (const uint32_t k : stages_[chips_[i].stage].compute_order) {
      busy = busy + (chips_[i].spans[k].end - chips_[i].spans[k].start);
    }
    return busy;
  };
  sim::Time critical_busy = sim::Time::zero();
  bool first_tied = true;
  for (uint32_t i = 0; i < chips_.size(); ++i) {
    if (chip_end[i] != r.step_time) {
      continue;
    }
    const sim::Time busy = busy_of(i);
    if (first_tied || busy > critical_busy) {
      critical_busy = busy;
      r.critical_chip = chips_[i].chip;
      r.critical_stage = chips_[i].stage;
      first_tied = false;
    }
  }
  // The simulated chip whose timeline the critical chip has.
  topo::ChipId critical_sim = r.critical_chip;
  if (fold_.faulty_replicas > 0) {
    // Replicas stand for different numbers of chips: the mean and the first
    // critical chip are taken over the whole pod in chip order, each chip
    // with its stand-in's end, as the full run takes them (bit for bit).
    double sum_ps = 0;
    first_tied = true;
    for (topo::ChipId c = 0; c < pod_.chip_count(); ++c) {
      const auto i = static_cast<uint32_t>(sim_index_[fold_.represented_by[c]]);
      sum_ps += static_cast<double>(chip_end[i].count_ps());
      if (chip_end[i] != r.step_time) {
        continue;
      }
      const sim::Time busy = busy_of(i);
      if (first_tied || busy > critical_busy) {
        critical_busy = busy;
        r.critical_chip = c;
        r.critical_stage = chips_[i].stage;
        critical_sim = chips_[i].chip;
        first_tied = false;
      }
    }
    r.mean_chip_end =
        sim::Time::ps(static_cast<int64_t>(sum_ps / static_cast<double>(pod_.chip_count())));
  }

  // Group keys of every instruction, once per stage (its chips share them).
  struct StageGroups {
    std::vector<uint32_t> layer;
    std::vector<uint32_t> op_class;
    std::vector<GroupTime> layers;  // zeroed templates, keys in first-appearance order
    std::vector<GroupTime> classes;
  };
  auto group = [](std::map<std::string, uint32_t>& index, std::vector<GroupTime>& groups,
                  const std::string& key) {
    const auto [it, added] = index.emplace(key, static_cast<uint32_t>(groups.size()));
    if (added) {
      GroupTime g;
      g.key = key;
      groups.push_back(std::move(g));
    }
    return it->second;
  };
  std::vector<StageGroups> groups(program_.stages.size());
  for (size_t s = 0; s < program_.stages.size(); ++s) {
    std::map<std::string, uint32_t> layer_index;
    std::map<std::string, uint32_t> class_index;
    // A layer's instructions come together, and there are few classes: the
    // keys are built only when the layer or an unseen class comes up.
    int64_t last_layer = -1;
    uint32_t last_layer_group = 0;
    std::map<workload::OpClass, uint32_t> class_group;
    for (const Instruction& ins : program_.stages[s].instructions) {
      if (ins.layer < 0 || ins.layer != last_layer) {
        last_layer_group = group(layer_index, groups[s].layers, breakdown_layer_key(ins));
        last_layer = ins.layer;
      }
      groups[s].layer.push_back(last_layer_group);
      auto c = class_group.find(ins.op_class);
      if (c == class_group.end()) {
        c = class_group
                .emplace(ins.op_class,
                         group(class_index, groups[s].classes, workload::to_string(ins.op_class)))
                .first;
      }
      groups[s].op_class.push_back(c->second);
    }
  }

  // Every simulated chip's breakdown; the critical chip's also by layer and class.
  // A chip whose spans and end are those of the last chip of its stage swept
  // (symmetric chips: every chip of a tensor-parallel group, usually) has
  // that chip's breakdown, which is a function of them alone.
  struct Swept {
    int32_t chip = -1;  // index into chips_
    ChipBreakdown breakdown;
    std::vector<GroupTime> layers;
    std::vector<GroupTime> classes;
  };
  std::vector<Swept> swept(program_.stages.size());
  // The critical chip's work: its stage's compute, the same on every chip of it.
  for (const ChipState& c : chips_) {
    if (c.chip != critical_sim) {
      continue;
    }
    const StageInfo& info = stages_[c.stage];
    for (const uint32_t k : info.compute_order) {
      r.hbm_bytes += static_cast<double>(timing(c, k).bytes);
      r.flops += timing(c, k).flops;
    }
    r.fused_epilogues = info.fusion.fused;
  }
  std::vector<TimedInstruction> timed;
  for (uint32_t i = 0; i < chips_.size(); ++i) {
    const ChipState& c = chips_[i];
    const auto& prog = program_.stages[c.stage].instructions;
    const StageGroups& g = groups[c.stage];
    const bool critical = c.chip == critical_sim;
    Swept& last = swept[c.stage];
    // (In lock step every chip was given chip 0's spans: no need to compare.)
    if (last.chip >= 0 &&
        (lockstep_ || (chip_end[static_cast<size_t>(last.chip)] == chip_end[i] &&
                       chips_[static_cast<size_t>(last.chip)].spans == c.spans))) {
      r.chip_breakdowns.push_back(last.breakdown);
      if (critical) {
        r.critical = last.breakdown;
        r.by_layer = last.layers;
        r.by_op_class = last.classes;
      }
      continue;
    }
    timed.assign(prog.size(), TimedInstruction{});
    for (uint32_t k = 0; k < prog.size(); ++k) {
      TimedInstruction& t = timed[k];
      t.span = c.spans[k];
      t.layer_group = g.layer[k];
      t.class_group = g.op_class[k];
      if (is_compute(prog[k])) {
        t.kind = timing(c, k).bound == chip::OpTiming::Bound::kMemory
                     ? TimedInstruction::Kind::kMemoryBound
                     : TimedInstruction::Kind::kComputeBound;
        t.units = timing(c, k).units;
        t.work = timing(c, k).work;
      } else {
        t.kind = TimedInstruction::Kind::kCommunication;
      }
    }
    std::vector<GroupTime> layers = g.layers;
    std::vector<GroupTime> classes = g.classes;
    r.chip_breakdowns.push_back(sweep_breakdown(timed, chip_end[i], layers, classes));
    if (critical) {
      r.critical = r.chip_breakdowns.back();
      r.by_layer = layers;
      r.by_op_class = classes;
    }
    last = Swept{static_cast<int32_t>(i), r.chip_breakdowns.back(), std::move(layers),
                 std::move(classes)};
  }
  r.spans.reserve(chips_.size());
  for (ChipState& c : chips_) {
    r.spans.push_back(std::move(c.spans));
  }
  return r;
}

}  // namespace

StepResult run_step(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                    const workload::Program& program, const chip::ComputeModel& compute,
                    const StepOptions& options) {
  require_routes(pod, mesh, program);  // a cut pod refused before the first event
  // Each shortcut that turns out not to hold is dropped and the step played
  // again: at most three runs, and the result is the same as without either.
  StepOptions o = options;
  for (;;) {
    StepRun run(pod, mesh, program, compute, o);
    StepResult result = run.run();
    if (run.lockstep_broken()) {
      o.lockstep = false;
    } else if (run.replay_disturbed()) {
      o.replay_collectives = false;
    } else {
      return result;
    }
  }
}
}  // namespace podsim::engine
