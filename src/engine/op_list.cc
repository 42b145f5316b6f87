#include "engine/op_list.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>

#include "coll/executor.h"
#include "coll/plan.h"
#include "engine/op_list_loops.h"
#include "engine/reachable.h"
#include "engine/symmetry.h"
#include "engine/workload_mesh.h"
#include "net/zeroed_array.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "topo/mesh.h"

namespace podsim::engine {
namespace {

// Plays the operation list; one instance per run.
class OpListRun : private OpListLoops::Sink {
 public:
  OpListRun(const topo::Pod& pod, const config::WorkloadSpec& w, const net::Options& options,
            const chip::ComputeModel& compute, const OpListOptions& run_options)
      : pod_(pod),
        workload_(w),
        mesh_(workload_mesh(pod, w)),
        network_(net::make_network(pod, options)),
        sim_(sim::Simulation::Options::charging(run_options.budget)),
        progress_(run_options.progress),
        before_start_(run_options.before_start),
        state_(w.operations.size()),
        loops_(w) {
    require_routes(pod, mesh_, w);  // a cut pod refused before lowering a collective
    for (size_t i = 0; i < w.operations.size(); ++i) {
      runs_total_ += w.operations[i].repeat * loops_.passes(i);
      state_[i].deps_left = w.operations[i].after.size();
      if (const auto* op = std::get_if<config::ComputeOp>(&w.operations[i].op)) {
        try {
          state_[i].timing = compute.time(*op);
        } catch (const sim::TimeOverflow& e) {
          throw sim::TimeOverflow("operation '" + w.operations[i].name + "': " + e.what());
        }
        continue;
      }
      const auto& c = std::get<config::CollectiveSpec>(w.operations[i].op);
      state_[i].plan = coll::lower(pod_, mesh_, c, options, run_options.budget);
      state_[i].min_transfers = coll::min_transfers(state_[i].plan);
      state_[i].link_bytes = net::ZeroedArray<uint64_t>(pod.links().size());
    }
    exec_options_ = coll::executor_options(pod);
    if (run_options.symmetry) {
      std::vector<const coll::Plan*> plans;
      for (const OpState& st : state_) {
        if (!st.timing) {
          plans.push_back(&st.plan);
        }
      }
      symmetry_ = choose_symmetry(pod, plans, options, std::vector<bool>(pod.dim_count(), true));
      exec_options_.classes = symmetry_.classes ? &*symmetry_.classes : nullptr;
    } else {
      symmetry_.why_full = "symmetry turned off";
    }
  }

  // At least how many events the run executes (OpListOptions::before_start).
  uint64_t min_events() const {
    uint64_t total = 0;
    for (size_t i = 0; i < state_.size(); ++i) {
      // A symmetric run makes one transfer per class where the full run makes
      // one per chip.
      const uint64_t per_run =
          is_compute(i) ? 1 : std::max<uint64_t>(1, state_[i].min_transfers / classes_factor());
      uint64_t runs = 0;
      if (__builtin_mul_overflow(per_run, workload_.operations[i].repeat, &runs) ||
          __builtin_mul_overflow(runs, loops_.passes(i), &runs) ||
          __builtin_add_overflow(total, runs, &total)) {
        return std::numeric_limits<uint64_t>::max();
      }
    }
    return total;
  }

  OpListResult run() {
    if (before_start_) {
      before_start_(min_events());
    }
    for (size_t i = 0; i < state_.size(); ++i) {
      if (state_[i].deps_left == 0) {
        ready(i);
      }
    }
    sim_.run();
    if (progress_) {
      progress_(runs_done_, runs_total_);
    }
    OpListResult result;
    std::string stuck;
    for (size_t i = 0; i < state_.size(); ++i) {
      if (!state_[i].finished) {
        stuck += (stuck.empty() ? "" : ", ") + workload_.operations[i].name;
      }
      result.operations.push_back(summarize(i));
      result.makespan = std::max(result.makespan, state_[i].end);
    }
    if (!stuck.empty()) {
      throw std::logic_error("simulation ended with operations unfinished: " + stuck);
    }
    result.events = sim_.events_executed();
    result.fingerprint = sim_.fingerprint();
    result.link_stats = network_->link_stats(sim_);
    if (symmetry_.classes) {
      result.link_stats = unfold_classes(*symmetry_.classes, std::move(result.link_stats));
    }
    result.symmetric = symmetry_.classes.has_value();
    result.simulation = describe(pod_, symmetry_);
    result.played_chips = symmetry_.classes ? symmetry_.classes->class_count() : pod_.chip_count();
    return result;
  }

 private:
  struct OpState {
    size_t deps_left = 0;
    coll::Plan plan;                       // collectives
    uint64_t min_transfers = 0;            // coll::min_transfers(plan)
    std::optional<chip::OpTiming> timing;  // compute operations: one run
    std::unique_ptr<coll::CollectiveRun> current;
    std::shared_ptr<coll::RouteTables> routes;  // shared by its runs
    uint32_t runs_done = 0;
    uint64_t transfers = 0;
    // By LinkId (a class's representative link in a symmetric run); zeroed
    // pages stay unmapped until a run's bytes land on them.
    net::ZeroedArray<uint64_t> link_bytes;
    std::vector<RunSpan> runs;
    sim::Time start;
    sim::Time end;
    bool started = false;
    bool finished = false;
  };

  bool is_compute(size_t i) const { return state_[i].timing.has_value(); }
  uint64_t classes_factor() const {
    return symmetry_.classes ? symmetry_.classes->orbit_size() : 1;
  }

  // OpListLoops::Sink: a dependency of operation i is done; a loop's new
  // iteration runs i again.
  void release(size_t i) override {
    if (--state_[i].deps_left == 0) {
      ready(i);
    }
  }
  void reset(size_t i, size_t waits) override {
    OpState& st = state_[i];
    st.deps_left = waits;
    st.runs_done = 0;
    st.finished = false;
  }

  // Every dependency of operation i is done.
  void ready(size_t i) override {
    if (!is_compute(i)) {
      begin(i);
      return;
    }
    ready_compute_.insert(i);
    request_issue();
  }

  // Issues at the end of the current instant, so that every compute
  // operation made ready at this time competes for the unit in file order.
  void request_issue() {
    if (unit_busy_ || issue_pending_) {
      return;
    }
    issue_pending_ = true;
    sim_.schedule_in(sim::Time(), [this](sim::Simulation&) { issue(); });
  }

  void issue() {
    issue_pending_ = false;
    if (unit_busy_ || ready_compute_.empty()) {
      return;
    }
    const size_t i = *ready_compute_.begin();
    ready_compute_.erase(ready_compute_.begin());
    unit_busy_ = true;
    begin_run(i);
    sim_.schedule_in(state_[i].timing->time,
                     [this, i](sim::Simulation& s) { compute_run_done(s, i); });
  }

  // One more run of an operation done.
  void count_run() {
    if ((++runs_done_ & (kProgressInterval - 1)) == 0 && progress_) {
      progress_(runs_done_, runs_total_);
    }
  }

  void compute_run_done(sim::Simulation& s, size_t i) {
    OpState& st = state_[i];
    st.runs.back().end = s.now();
    count_run();
    if (++st.runs_done < workload_.operations[i].repeat) {
      begin_run(i);
      s.schedule_in(st.timing->time, [this, i](sim::Simulation& s2) { compute_run_done(s2, i); });
      return;
    }
    finish(s, i);
    unit_busy_ = false;
    request_issue();
  }

  // Opens the next run of operation i at the current time.
  void begin_run(size_t i) {
    OpState& st = state_[i];
    if (!st.started) {
      st.started = true;
      st.start = sim_.now();
    }
    st.runs.push_back({sim_.now(), sim_.now()});
  }

  void begin(size_t i) {
    begin_run(i);
    const sim::Time overhead = pod_.spec().calibration.collective_overhead;
    sim_.schedule_in(overhead, [this, i](sim::Simulation& s) { launch(s, i); });
  }

  void launch(sim::Simulation& s, size_t i) {
    OpState& st = state_[i];
    const auto& c = std::get<config::CollectiveSpec>(workload_.operations[i].op);
    coll::ExecutorOptions eo = exec_options_;
    eo.compute_reduction = c.compute_reduction;
    // The plan and its routes are shared by every run of the operation. The
    // previous run, if any, finished in an earlier event and can go.
    if (!st.routes) {
      st.routes = std::make_shared<coll::RouteTables>();
    }
    st.current = std::make_unique<coll::CollectiveRun>(pod_, *network_, st.plan, st.routes, eo);
    st.current->set_on_done([this, i](sim::Simulation& s2) { run_done(s2, i); });
    st.current->start(s);
  }

  void run_done(sim::Simulation& s, size_t i) {
    OpState& st = state_[i];
    // On the classes' representative links in a symmetric run (summarize()
    // unfolds them).
    const auto bytes = st.current->link_bytes();
    for (size_t l = 0; l < bytes.size(); ++l) {
      if (bytes[l] != 0) {
        st.link_bytes[l] += bytes[l];
      }
    }
    st.transfers += st.current->transfers_delivered();
    st.runs.back().end = s.now();
    count_run();
    // `current` stays alive: this call comes from inside its own callback. The
    // next launch (a later event) replaces it.
    if (++st.runs_done < workload_.operations[i].repeat) {
      begin(i);
      return;
    }
    finish(s, i);
  }

  void finish(const sim::Simulation& s, size_t i) {
    OpState& st = state_[i];
    st.finished = true;
    st.end = s.now();
    loops_.finished(i, *this);
  }

  OperationResult summarize(size_t i) const {
    const OpState& st = state_[i];
    const auto& op = workload_.operations[i];
    OperationResult r;
    r.name = op.name;
    r.op_name = op.op_name;
    r.repeat = op.repeat;
    r.start = st.start;
    r.end = st.end;
    r.runs = st.runs;
    if (st.finished && loops_.in_loop(i)) {
      // Runs of several iterations, with other operations between them: the
      // mean run, over every run.
      r.repeat = static_cast<uint32_t>(std::min<size_t>(st.runs.size(), UINT32_MAX));
      int64_t sum_ps = 0;
      for (const RunSpan& run : st.runs) {
        sum_ps += (run.end - run.start).count_ps();
      }
      r.per_run = sim::Time::ps(sum_ps / static_cast<int64_t>(std::max<size_t>(st.runs.size(), 1)));
    } else if (st.finished) {
      r.per_run = sim::Time::ps((st.end - st.start).count_ps() / std::max<uint32_t>(op.repeat, 1));
    }
    if (const auto* compute = std::get_if<config::ComputeOp>(&op.op)) {
      r.compute = ComputeResult{*compute, *st.timing};
      return r;
    }
    const auto& c = std::get<config::CollectiveSpec>(op.op);
    r.kind = c.kind;
    r.bytes = c.bytes;
    r.axes = c.axes;
    r.group_size = st.plan.group_size;
    r.schedule = st.plan.schedule;
    r.transfers = st.transfers;
    if (!st.finished) {
      return r;
    }
    const double seconds = r.per_run.to_s();
    if (seconds > 0) {
      r.algbw_gbps = static_cast<double>(c.bytes) / seconds * 1e-9;
      r.busbw_gbps = r.algbw_gbps * coll::bus_bandwidth_factor(c.kind, r.group_size);
    }
    const double total_s = (st.end - st.start).to_s();
    const auto& cal = pod_.spec().calibration;
    // Every link in LinkId order, as the full run sums them; in a symmetric
    // run each takes its class representative's bytes.
    double sum = 0;
    for (size_t l = 0; l < st.link_bytes.size(); ++l) {
      const uint64_t bytes =
          st.link_bytes[symmetry_.classes
                            ? symmetry_.classes->rep_link(static_cast<topo::LinkId>(l))
                            : l];
      if (bytes == 0 || total_s <= 0) {
        continue;
      }
      const topo::Link& link = pod_.link(static_cast<topo::LinkId>(l));
      const double eff =
          link.kind == topo::LinkKind::kIci ? cal.ici_link_efficiency : cal.dcn_efficiency;
      const double util = static_cast<double>(bytes) /
                          (static_cast<double>(link.bandwidth.bytes_per_s()) * eff * total_s);
      sum += util;
      r.link_util_max = std::max(r.link_util_max, util);
      ++r.links_used;
    }
    r.link_util_mean = r.links_used > 0 ? sum / r.links_used : 0;
    return r;
  }

  const topo::Pod& pod_;
  const config::WorkloadSpec& workload_;
  topo::DeviceMesh mesh_;
  std::unique_ptr<net::Network> network_;
  sim::Simulation sim_;
  ProgressFn progress_;
  std::function<void(uint64_t)> before_start_;
  uint64_t runs_total_ = 0;
  uint64_t runs_done_ = 0;
  coll::ExecutorOptions exec_options_;
  std::vector<OpState> state_;
  SymmetryChoice symmetry_;
  OpListLoops loops_;
  // The compute unit (one timeline for every chip): compute operations whose
  // dependencies are done, by file position, and whether one is running.
  std::set<size_t> ready_compute_;
  bool unit_busy_ = false;
  bool issue_pending_ = false;
};

}  // namespace

net::Options network_options(const topo::Pod& pod, net::Model model) {
  net::Options o;
  o.model = model;
  o.ici_efficiency = pod.spec().calibration.ici_link_efficiency;
  o.dcn_efficiency = pod.spec().calibration.dcn_efficiency;
  return o;
}

OpListResult run_op_list(const topo::Pod& pod, const config::WorkloadSpec& workload,
                         const net::Options& network, const chip::ComputeModel& compute,
                         const OpListOptions& options) {
  return OpListRun(pod, workload, network, compute, options).run();
}

}  // namespace podsim::engine
