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

// Runs `stage` on candidates `indices` on the options' threads; results in
// the order of `indices`. Progress counts from `done_before` out of `total`.
std::vector<Evaluation> evaluate_all(const Problem& problem, const std::vector<size_t>& indices,
                                     Stage stage, const SearchOptions& options,
                                     size_t done_before = 0, size_t total = 0) {
  std::mutex progress_mutex;
  size_t done = done_before;
  total = std::max(total, done_before + indices.size());
  if (options.transport != nullptr && options.transport->ranks() > 1) {
    return evaluate_across(problem, indices, stage, options.jobs, *options.transport, [&] {
      if (options.progress) {
        options.progress(stage, ++done, total);
      }
    });
  }
  std::vector<Evaluation> out(indices.size());
  for_each_index(indices.size(), options.jobs, [&](size_t k) {
    out[k] = std::move(evaluate_range(problem, indices, k, k + 1, stage).front());
    if (options.progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      options.progress(stage, ++done, total);
    }
  });
  return out;
}

Objectives objectives(const Evaluation& e, Objective o = Objective::kThroughput) {
  return {objective_value(e, o), e.latency_us};
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

std::vector<Evaluation> evaluate_range(const Problem& problem, const std::vector<size_t>& indices,
                                       size_t begin, size_t end, Stage stage) {
  std::vector<Evaluation> out;
  out.reserve(end - begin);
  for (size_t k = begin; k < end; ++k)
    out.push_back(problem.evaluate(indices.at(k), stage));
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

  std::vector<size_t> all(problem.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  const std::vector<Evaluation> checked = evaluate_all(problem, all, Stage::kCheck, options);
  std::vector<size_t> fitting;
  for (size_t i = 0; i < checked.size(); ++i) {
    result.results[i].check = checked[i];
    if (checked[i].status == Status::kOk)
      fitting.push_back(i);
  }

  // Flow results so far, as points, and the candidate of each.
  std::vector<Objectives> exact;
  std::vector<size_t> exact_candidate;
  size_t simulated = 0;
  const auto simulate_flow = [&](const std::vector<size_t>& indices, size_t total) {
    const std::vector<Evaluation> flow =
        evaluate_all(problem, indices, Stage::kFlow, options, simulated, total);
    simulated += indices.size();
    for (size_t k = 0; k < indices.size(); ++k) {
      result.results[indices[k]].flow = flow[k];
      if (flow[k].status == Status::kOk) {
        exact.push_back(objectives(flow[k], options.objective));
        exact_candidate.push_back(indices[k]);
      }
    }
  };

  if (!options.prune || options.objective != Objective::kThroughput) {
    simulate_flow(fitting, fitting.size());
  } else {
    const std::vector<Evaluation> estimated =
        evaluate_all(problem, fitting, Stage::kAnalytical, options);
    std::vector<Objectives> estimate(problem.size());
    for (size_t k = 0; k < fitting.size(); ++k) {
      result.results[fitting[k]].analytical = estimated[k];
      estimate[fitting[k]] = objectives(estimated[k]);
    }
    // Rounds: simulate the estimated frontier of what is still undecided,
    // then drop what those flow results beat beyond the analytical error.
    std::vector<size_t> undecided = fitting;
    while (!undecided.empty()) {
      ++result.rounds;
      std::vector<Objectives> points;
      for (const size_t i : undecided)
        points.push_back(estimate[i]);
      std::vector<size_t> pick;
      for (const size_t k : pareto_frontier(points))
        pick.push_back(undecided[k]);
      std::sort(pick.begin(), pick.end());
      simulate_flow(pick, simulated + undecided.size());

      std::vector<size_t> rest;
      std::vector<Objectives> rest_points;
      for (const size_t i : undecided) {
        if (!std::binary_search(pick.begin(), pick.end(), i)) {
          rest.push_back(i);
          rest_points.push_back(estimate[i]);
        }
      }
      const std::vector<bool> beaten =
          beaten_beyond_error(rest_points, exact, options.analytical_error);
      undecided.clear();
      for (size_t k = 0; k < rest.size(); ++k) {
        if (beaten[k]) {
          result.results[rest[k]].pruned = true;
        } else {
          undecided.push_back(rest[k]);
        }
      }
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
