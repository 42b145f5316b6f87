#include "search/search.h"

#include <algorithm>
#include <mutex>

#include "config/pricing_loader.h"
#include "config/workload_loader.h"
#include "cost/cost.h"
#include "search/distributed.h"
#include "search/parallel.h"
#include "search/pareto.h"
#include "study/pricing.h"

namespace podsim::search {
namespace {

// Runs `tasks` on the options' threads (or ranks); results in the order of
// `tasks`. Each finished task is counted into `progress` and reported.
std::vector<Evaluation> evaluate_all(const Problem& problem, const std::vector<Task>& tasks,
                                     const SearchOptions& options, Progress& progress) {
  std::mutex progress_mutex;
  const auto count = [&](size_t k) {
    switch (tasks[k].stage) {
      case Stage::kCheck:
        ++progress.checked;
        break;
      case Stage::kAnalytical:
        ++progress.estimated;
        break;
      case Stage::kFlow:
        ++progress.simulated;
        break;
    }
    if (options.progress)
      options.progress(progress);
  };
  if (options.transport != nullptr && options.transport->ranks() > 1)
    return evaluate_across(problem, tasks, options.jobs, *options.transport, count);
  std::vector<Evaluation> out(tasks.size());
  for_each_index(tasks.size(), options.jobs, [&](size_t k) {
    out[k] = std::move(evaluate_tasks(problem, tasks, k, k + 1).front());
    const std::lock_guard<std::mutex> lock(progress_mutex);
    count(k);
  });
  return out;
}

Objectives objectives(const Evaluation& e, Objective o = Objective::kThroughput) {
  return {objective_value(e, o), e.latency_us};
}

// The throughput bound and the latency bound of a candidate that fits.
Objectives bound(const Evaluation& check) {
  return {check.bound_tokens_per_s_per_chip, check.bound_latency_us};
}

}  // namespace

const char* to_string(Objective o) {
  switch (o) {
    case Objective::kThroughput:
      return "throughput";
    case Objective::kEnergy:
      return "energy";
    case Objective::kCost:
      return "cost";
  }
  return "throughput";
}

double objective_value(const Evaluation& e, Objective o) {
  switch (o) {
    case Objective::kThroughput:
      return e.tokens_per_s_per_chip;
    case Objective::kEnergy:
      return e.energy_modelled ? e.tokens_per_j : 0.0;
    case Objective::kCost:
      return e.priced && e.usd_per_m_tokens > 0 ? 1e6 / e.usd_per_m_tokens : 0.0;
  }
  return 0;
}

void Problem::set_pricing(std::shared_ptr<const config::PricingSpec> pricing) {
  if (pricing) {
    for (const config::PodSpec& spec : specs_) {
      if (auto conflict = study::pricing_conflict(spec, *pricing))
        throw *conflict;
    }
  }
  pricing_ = std::move(pricing);
}

size_t SearchResult::count(Status s) const {
  size_t n = 0;
  for (const CandidateResult& r : results)
    n += r.check.status == s ? 1 : 0;
  return n;
}

size_t SearchResult::pruned() const {
  size_t n = 0;
  for (const CandidateResult& r : results)
    n += r.pruned ? 1 : 0;
  return n;
}

size_t SearchResult::pruned_by_bound() const {
  size_t n = 0;
  for (const CandidateResult& r : results)
    n += r.pruned && !r.analytical ? 1 : 0;
  return n;
}

size_t SearchResult::estimated() const {
  size_t n = 0;
  for (const CandidateResult& r : results)
    n += r.analytical ? 1 : 0;
  return n;
}

size_t SearchResult::simulated_flow() const {
  size_t n = 0;
  for (const CandidateResult& r : results)
    n += r.flow ? 1 : 0;
  return n;
}

Problem::Problem(const std::vector<Slice>& slices, std::vector<Candidate> candidates,
                 std::vector<std::string> texts)
    : candidates_(std::move(candidates)), texts_(std::move(texts)) {
  for (const Slice& s : slices) {
    specs_.push_back(s.spec);
    pods_.push_back(std::make_unique<const topo::Pod>(s.spec));
  }
}

Evaluation Problem::evaluate(size_t candidate, Stage stage) const {
  const size_t slice = candidates_.at(candidate).slice;
  config::WorkloadSpec workload;
  try {
    workload = config::parse_workload_text(
        texts_.at(candidate), "<candidate " + std::to_string(candidate) + ">", specs_.at(slice));
  } catch (const config::InputError& e) {
    Evaluation out;
    out.status = Status::kInvalid;
    out.reason = e.diagnostics().empty() ? e.what() : e.diagnostics().front().to_string();
    return out;
  }
  const topo::Pod& pod = *pods_.at(slice);
  switch (stage) {
    case Stage::kCheck:
      return check(pod, workload);
    case Stage::kAnalytical:
      return simulate(pod, workload, net::Model::kAnalytical, limits_);
    case Stage::kFlow: {
      Evaluation e = simulate(pod, workload, net::Model::kFlow, limits_);
      if (pricing_ && e.status == Status::kOk && e.tokens_per_s_per_chip > 0) {
        // A second of steps: chips x 1 s, their energy, their tokens.
        const config::ChipPriceSpec& price = config::require_price(*pricing_, pod.spec().chip.name);
        const double chips = static_cast<double>(pod.spec().chip_count());
        const double tokens = e.tokens_per_s_per_chip * chips;
        const cost::CostFigures f =
            cost::price(*pricing_, price, {chips, 1.0, tokens * e.j_per_token, tokens});
        e.priced = true;
        e.usd_per_m_tokens = f.usd_per_m_tokens;
        e.gco2e_per_m_tokens = f.gco2e_per_m_tokens;
      }
      return e;
    }
  }
  return {};
}

std::vector<Evaluation> evaluate_tasks(const Problem& problem, const std::vector<Task>& tasks,
                                       size_t begin, size_t end) {
  std::vector<Evaluation> out;
  out.reserve(end - begin);
  for (size_t k = begin; k < end; ++k)
    out.push_back(problem.evaluate(tasks.at(k).candidate, tasks.at(k).stage));
  return out;
}

Problem build_problem(const config::ServingModel& model, const std::vector<Slice>& slices,
                      const SpaceOptions& options) {
  std::vector<Candidate> candidates;
  for (size_t s = 0; s < slices.size(); ++s) {
    std::vector<Candidate> more = enumerate(slices[s].spec, s, model.spec(), options);
    candidates.insert(candidates.end(), std::make_move_iterator(more.begin()),
                      std::make_move_iterator(more.end()));
  }
  std::vector<std::string> texts;
  texts.reserve(candidates.size());
  for (const Candidate& c : candidates)
    texts.push_back(model.workload_text(c.workload, slices[c.slice].file));
  return Problem(slices, std::move(candidates), std::move(texts));
}

SearchResult run_search(const Problem& problem, const SearchOptions& options) {
  SearchResult result;
  result.results.resize(problem.size());
  Progress progress;
  progress.candidates = problem.size();

  std::vector<Task> checks(problem.size());
  for (size_t i = 0; i < checks.size(); ++i)
    checks[i] = {i, Stage::kCheck};
  const std::vector<Evaluation> checked = evaluate_all(problem, checks, options, progress);
  std::vector<size_t> fitting;
  for (size_t i = 0; i < checked.size(); ++i) {
    result.results[i].check = checked[i];
    if (checked[i].status == Status::kOk)
      fitting.push_back(i);
  }
  progress.fit = fitting.size();

  // Flow results so far, as points, and the candidate of each.
  std::vector<Objectives> exact;
  std::vector<size_t> exact_candidate;
  // Evaluates `tasks` and files each result with its candidate.
  const auto run = [&](const std::vector<Task>& tasks) {
    const std::vector<Evaluation> done = evaluate_all(problem, tasks, options, progress);
    for (size_t k = 0; k < tasks.size(); ++k) {
      CandidateResult& r = result.results[tasks[k].candidate];
      if (tasks[k].stage == Stage::kAnalytical) {
        r.analytical = done[k];
      } else {
        r.flow = done[k];
        if (done[k].status == Status::kOk) {
          exact.push_back(objectives(done[k], options.objective));
          exact_candidate.push_back(tasks[k].candidate);
        }
      }
    }
  };

  if (!options.prune || options.objective != Objective::kThroughput) {
    std::vector<Task> tasks;
    for (const size_t i : fitting)
      tasks.push_back({i, Stage::kFlow});
    run(tasks);
  } else {
    // Rounds, best first: each undecided candidate's best known point is
    // its estimate once it has one, its bound before; the frontier of those
    // points is refined (flow simulations first, the longer tasks, so
    // threads finish together), then whatever a flow result dominates is
    // dropped.
    std::vector<size_t> undecided = fitting;
    while (!undecided.empty()) {
      ++result.rounds;
      std::vector<Objectives> points;
      points.reserve(undecided.size());
      for (const size_t i : undecided) {
        const CandidateResult& r = result.results[i];
        points.push_back(r.analytical ? objectives(*r.analytical) : bound(r.check));
      }
      std::vector<size_t> front;
      for (const size_t k : pareto_frontier(points))
        front.push_back(undecided[k]);
      std::sort(front.begin(), front.end());
      std::vector<Task> tasks;
      for (const size_t i : front) {
        if (result.results[i].analytical)
          tasks.push_back({i, Stage::kFlow});
      }
      for (const size_t i : front) {
        if (!result.results[i].analytical)
          tasks.push_back({i, Stage::kAnalytical});
      }
      run(tasks);

      // What is left, and whether a flow result dominates it: by the bound
      // (exactly: no simulation is faster than it), or by the estimate
      // beyond the analytical model's error.
      std::vector<size_t> rest;
      std::vector<Objectives> rest_bounds;
      std::vector<Objectives> rest_estimates;
      for (const size_t i : undecided) {
        const CandidateResult& r = result.results[i];
        if (r.flow)
          continue;
        rest.push_back(i);
        rest_bounds.push_back(bound(r.check));
        // Not yet estimated: a point nothing beats.
        rest_estimates.push_back(r.analytical ? objectives(*r.analytical) : Objectives{});
      }
      const std::vector<bool> beaten_bound = beaten_beyond_error(rest_bounds, exact, 0);
      const std::vector<bool> beaten_estimate =
          beaten_beyond_error(rest_estimates, exact, options.analytical_error);
      const std::vector<bool> beaten_out_of_step =
          beaten_beyond_error(rest_estimates, exact, options.out_of_step_error);
      undecided.clear();
      for (size_t k = 0; k < rest.size(); ++k) {
        CandidateResult& r = result.results[rest[k]];
        const bool beaten = r.check.out_of_step ? beaten_out_of_step[k] : beaten_estimate[k];
        if (beaten_bound[k] || (r.analytical && beaten)) {
          r.pruned = true;
          ++progress.pruned;
        } else {
          undecided.push_back(rest[k]);
        }
      }
      if (options.progress)
        options.progress(progress);
    }
  }

  for (const size_t k : pareto_frontier(exact))
    result.frontier.push_back(exact_candidate[k]);
  return result;
}

std::optional<size_t> best_under(const SearchResult& result, std::optional<double> max_latency_us,
                                 Objective objective) {
  std::optional<size_t> best;
  double best_value = 0;
  // The frontier is ordered by latency: the first of equal throughput wins.
  for (const size_t i : result.frontier) {
    const Evaluation& e = *result.results[i].flow;
    if (max_latency_us && e.latency_us > *max_latency_us)
      continue;
    const double value = objective_value(e, objective);
    if (!best || value > best_value) {
      best = i;
      best_value = value;
    }
  }
  return best;
}

}  // namespace podsim::search
