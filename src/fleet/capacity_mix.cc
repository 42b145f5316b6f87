#include "fleet/capacity_mix.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fleet/serve.h"

namespace podsim::fleet {

config::ServeSpec with_counts(const config::ServeSpec& spec, const std::vector<uint32_t>& counts) {
  if (counts.size() != spec.replicas.size())
    throw std::invalid_argument("a mix gives one count per replica entry");
  config::ServeSpec s = spec;
  uint64_t total = 0;
  uint32_t role_copies = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0)
      throw std::invalid_argument("a mix has at least one copy of each replica entry");
    s.replicas[i].count = counts[i];
    total += counts[i];
    if (s.replicas[i].role != config::RoleKind::kUnified)
      role_copies += counts[i];
  }
  if (total > config::kMaxServeReplicas)
    throw std::invalid_argument("a mix of " + std::to_string(total) + " replica copies; at most " +
                                std::to_string(config::kMaxServeReplicas));
  config::KvTransferSpec& kv = s.kv_transfer;
  if (!kv.pod)
    return s;
  // The copies laid out as the loader lays them (config::KvTransferSpec).
  kv.placement.clear();
  if (kv.ici_topology.empty()) {
    kv.pod->slices = role_copies;
    for (uint32_t k = 0; k < role_copies; ++k)
      kv.placement.push_back(config::KvPlacement{k, std::vector<uint32_t>(kv.shape.size(), 0)});
    return s;
  }
  std::vector<uint32_t> across;
  uint64_t tiles = 1;
  for (size_t d = 0; d < kv.shape.size(); ++d) {
    across.push_back(kv.pod->torus.dims.at(d).size / kv.shape[d]);
    tiles *= across.back();
  }
  if (tiles < role_copies)
    throw std::invalid_argument("over ICI '" + kv.ici_topology + "' holds " +
                                std::to_string(tiles) + " copies; the mix has " +
                                std::to_string(role_copies));
  for (uint32_t k = 0; k < role_copies; ++k) {
    config::KvPlacement p;
    p.slice = 0;
    uint32_t rest = k;
    for (size_t d = 0; d < kv.shape.size(); ++d) {
      p.origin.push_back(rest % across[d] * kv.shape[d]);
      rest /= across[d];
    }
    kv.placement.push_back(std::move(p));
  }
  return s;
}

Probe run_mix(const config::ServeSpec& spec, const std::vector<uint32_t>& counts, double rate,
              const CapacityOptions& options) {
  Probe p;
  p.run.rate_per_s = rate;
  try {
    const config::ServeSpec s = at_rate(with_counts(spec, counts), rate);
    const ServeSummary summary = serve(s, false, options.limits).summary;
    meets(summary, options, p.run);
    measure_cost(s, summary, options, p.run);
  } catch (const std::exception&) {
    keep_current_error(p);
  }
  return p;
}

MixChoice choose_mix(const config::ServeSpec& spec, const CapacityOptions& options,
                     uint32_t max_copies, uint32_t width, const MixMeasure& measure) {
  const size_t entries = spec.replicas.size();
  if (entries < 2)
    throw std::invalid_argument("the mix is chosen among a serve file's replica entries; it has " +
                                std::to_string(entries) + " (--fewest-replicas sizes one)");
  if (max_copies < 1)
    throw std::invalid_argument("a mix has at least one copy of each entry");
  MixChoice out;
  out.mixes = 1;
  for (size_t i = 0; i < entries; ++i) {
    out.mixes *= max_copies;
    if (out.mixes > kMaxMixes)
      throw std::invalid_argument("counts 1 to " + std::to_string(max_copies) + " of " +
                                  std::to_string(entries) + " entries make more than " +
                                  std::to_string(kMaxMixes) + " mixes; lower --max-replicas");
  }
  // Every mix, by chips and then by counts (first entry first).
  std::vector<MixRun> all;
  all.reserve(out.mixes);
  std::vector<uint32_t> counts(entries, 1);
  for (uint64_t m = 0; m < out.mixes; ++m) {
    MixRun r;
    r.counts = counts;
    for (size_t i = 0; i < entries; ++i)
      r.chips += static_cast<uint32_t>(spec.replicas[i].pod.chip_count()) * counts[i];
    all.push_back(std::move(r));
    for (size_t i = entries; i-- > 0;) {  // the last entry fastest
      if (++counts[i] <= max_copies)
        break;
      counts[i] = 1;
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const MixRun& a, const MixRun& b) { return a.chips < b.chips; });
  FewestChips verdicts;
  width = std::max(width, 1U);
  for (size_t first = 0; first < all.size(); first += width) {
    const size_t n = std::min<size_t>(width, all.size() - first);
    std::vector<std::vector<uint32_t>> round;
    for (size_t k = 0; k < n; ++k)
      round.push_back(all[first + k].counts);
    const std::vector<Probe> probes = measure(round);
    for (size_t k = 0; k < n; ++k) {
      rethrow_error(probes.at(k));
      MixRun r = all[first + k];
      r.run = probes[k].run;
      add_verdict(verdicts, with_counts(spec, r.counts), r.run, options.minimise);
      out.tried.push_back(std::move(r));
      if (options.minimise == Minimise::kChips && verdicts.best >= 0) {
        out.best = verdicts.best;
        return out;  // mixes after it ran only because they ran at once: not reported
      }
    }
  }
  out.best = verdicts.best;
  return out;
}

}  // namespace podsim::fleet
