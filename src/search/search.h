// The search layer: every sharding of a serving model on one or more slices,
// checked, bounded, pruned and simulated, reduced to the Pareto frontier of
// tokens/s per chip against per-token latency (docs/search.md).
//
// The steps:
//  1. enumerate (space.h) and write each candidate's workload text
//     (config::ServingModel), so a candidate is exactly a file podsim reads;
//  2. check: load the text with config::parse_workload_text() against its
//     slice, lower it and compare its memory with the HBM (no simulation);
//     what the loader or the lowering rejects, or what does not fit, stops.
//     What fits gets a lower bound on its step time on any network model
//     (step_bound.h), so an upper bound on its throughput;
//  3. in rounds, best first: each candidate still undecided stands for its
//     best known point (its bound, or once estimated its analytical
//     estimate); the Pareto frontier of those points is refined, a bound by
//     an estimate on the analytical network model, an estimate by a
//     simulation on the flow model. Then every undecided candidate that a
//     flow result strictly dominates is dropped: by its bound, which no
//     simulation beats, or by its estimate beyond the analytical model's
//     error in both objectives (pareto.h: beaten_beyond_error). Neither can
//     drop a point of the true frontier. Stop when none is undecided; the
//     frontier of the flow results is the frontier of every candidate on
//     flow. With another objective than throughput (Objective) nothing is
//     pruned: every candidate that fits is simulated on flow and the
//     frontier is the objective's against latency.
// Steps 2 and 3 go through evaluate_tasks(), a pure function of a list of
// (candidate, stage) tasks, dealt to `jobs` threads one task at a time;
// results land in their task's slot and every decision depends on results
// alone, so the outcome is identical for any `jobs`.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/pricing_spec.h"
#include "config/serving_candidate.h"
#include "config/topology_spec.h"
#include "search/evaluate.h"
#include "search/space.h"
#include "sim/work_budget.h"
#include "topo/pod.h"

namespace podsim::sweep {
class Transport;
}  // namespace podsim::sweep

namespace podsim::search {

// A slice to consider and the file it came from (named in the output).
struct Slice {
  config::PodSpec spec;
  std::string file;
};

// What each step computes for a candidate.
enum class Stage { kCheck, kAnalytical, kFlow };

// One evaluation to make: a candidate on a stage.
struct Task {
  size_t candidate = 0;
  Stage stage = Stage::kCheck;
};

// How far a search has got, for progress reports: counts so far.
struct Progress {
  size_t candidates = 0;  // enumerated
  size_t checked = 0;     // step 2 done
  size_t fit = 0;         // checked and fit (final once checked == candidates)
  size_t estimated = 0;   // analytical estimates made
  size_t simulated = 0;   // flow simulations made
  size_t pruned = 0;      // dropped without a flow simulation
  // Candidates that fit and are decided: simulated on flow or dropped.
  size_t decided() const { return simulated + pruned; }
};

// How much slower than the flow model the analytical network model may make
// a serving step, relative, that the pruning allows for. The analytical
// model books the links of transfers that start together as processor
// sharing would and treats each hop on its own, so where it errs on a step
// it is mostly too fast (collectives issued at different instants, as the
// weight-gathered layout's overlapping all-gathers: up to 26% faster on the
// test cases), which only keeps candidates. Too slow it is by at most 4.7%
// on the cases of docs/search.md (0.55% on tests/search's, which check it),
// within the 5% tests/engine/model_agreement_test.cc allows on whole
// collectives; the margin is twice that.
inline constexpr double kAnalyticalError = 0.10;
// The same for a step with collectives out of step (engine/model_caveats.h:
// a ring collective over torus dimensions that differ), where the
// analytical model queues at a link what flow shares: a single such
// collective is 0.75x to 1.22x flow on random cases, and
// tests/engine/model_agreement_random_test.cc holds it within 1.30x, and
// random serving steps with such collectives too (13.2% slower at most); a
// step on a 2x8 slice (a line beside a ring) measured 10.5% slower than
// flow, past kAnalyticalError. Such candidates are pruned against this
// margin instead.
inline constexpr double kOutOfStepError = 0.30;

// What the frontier trades against latency and the best point maximises
// (`podsim search --objective`; docs/search.md): tokens/s per chip, tokens
// per joule (the chip's power model; docs/energy.md), or tokens per dollar
// (a pricing file, Problem::set_pricing). The pruning's bound holds for
// throughput alone (throughput = tokens / latency), so the others simulate
// every candidate that fits on the flow model.
enum class Objective { kThroughput, kEnergy, kCost };

const char* to_string(Objective o);  // "throughput", "energy", "cost"

// The objective's figure of `e`, higher better: tokens/s per chip, tokens
// per joule, or tokens per dollar (1e6 / usd_per_m_tokens; 0 when free or
// not priced).
double objective_value(const Evaluation& e, Objective o);

struct SearchOptions {
  SpaceOptions space;
  Objective objective = Objective::kThroughput;
  unsigned jobs = 1;                           // threads, >= 1
  double analytical_error = kAnalyticalError;  // see pareto.h
  double out_of_step_error = kOutOfStepError;  // for Evaluation::out_of_step candidates
  bool prune = true;  // false: every candidate that fits is simulated on flow
  // Called from one thread at a time as each evaluation finishes and after
  // each round's pruning. For progress reports only.
  std::function<void(const Progress&)> progress;
  // An MPI job's ranks to deal every stage's evaluations across
  // (search/distributed.h); nullptr or one rank: this process alone. Every
  // rank then runs run_search() with the same problem and options and gets
  // the same result; progress is reported on rank 0.
  sweep::Transport* transport = nullptr;
};

struct CandidateResult {
  Evaluation check;  // step 2, with the bound when it fits
  // Step 3, when it fits, pruning is on and its bound was not enough.
  std::optional<Evaluation> analytical;
  bool pruned = false;             // step 3 dropped it without simulating it on flow
  std::optional<Evaluation> flow;  // step 3
};

struct SearchResult {
  std::vector<CandidateResult> results;  // by candidate index (Problem's order)
  // Candidate indices on the flow frontier, by latency then throughput
  // (higher first) then index (pareto_frontier()).
  std::vector<size_t> frontier;
  size_t rounds = 0;  // rounds of step 3

  size_t count(Status s) const;  // candidates whose check gave `s`
  size_t pruned() const;
  // Of those pruned, how many on their bound alone (never estimated).
  size_t pruned_by_bound() const;
  size_t estimated() const;  // analytical estimates made
  size_t simulated_flow() const;
};

// Everything evaluate_tasks() reads: the candidates' texts and the slices'
// pods. Immutable once built, so several threads (or ranks, each with its
// own copy) read it at once.
class Problem {
 public:
  Problem(const std::vector<Slice>& slices, std::vector<Candidate> candidates,
          std::vector<std::string> texts);

  size_t size() const { return candidates_.size(); }
  const std::vector<Candidate>& candidates() const { return candidates_; }
  const std::vector<std::string>& texts() const { return texts_; }

  // One candidate on one stage. Never throws for a bad candidate: the
  // loader's and the lowering's objections become Status::kInvalid with the
  // first diagnostic as the reason.
  Evaluation evaluate(size_t candidate, Stage stage) const;

  // Limits on each simulated candidate's work (--max-events, ...): one past
  // them throws sim::WorkLimitExceeded, which stops the search.
  void set_limits(const sim::WorkLimits& limits) { limits_ = limits; }

  // Prices every simulated candidate (Evaluation::priced). Throws
  // config::InputError when a slice's chip has no price at the file's
  // commitment, or the file counts electricity or carbon and a slice's chip
  // has no power model (study::pricing_conflict).
  void set_pricing(std::shared_ptr<const config::PricingSpec> pricing);

 private:
  sim::WorkLimits limits_ = sim::kDefaultWorkLimits;
  std::shared_ptr<const config::PricingSpec> pricing_;
  std::vector<config::PodSpec> specs_;
  std::vector<std::unique_ptr<const topo::Pod>> pods_;
  std::vector<Candidate> candidates_;
  std::vector<std::string> texts_;
};

// tasks[begin..end), in that order. The unit of work a thread (or an MPI
// rank) takes.
std::vector<Evaluation> evaluate_tasks(const Problem& problem, const std::vector<Task>& tasks,
                                       size_t begin, size_t end);

// Enumerates every candidate of `model` on `slices` with their texts (step 1).
Problem build_problem(const config::ServingModel& model, const std::vector<Slice>& slices,
                      const SpaceOptions& options);

// Steps 2 and 3.
SearchResult run_search(const Problem& problem, const SearchOptions& options);

// The frontier point with the highest objective (tokens/s per chip by
// default) whose latency is at most `max_latency_us` (any latency when not
// given); ties go to the lower latency, then the lower index. nullopt when
// none qualifies.
std::optional<size_t> best_under(const SearchResult& result, std::optional<double> max_latency_us,
                                 Objective objective = Objective::kThroughput);

}  // namespace podsim::search
