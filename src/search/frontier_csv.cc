#include "search/frontier_csv.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <sstream>

#include "report/table.h"

namespace podsim::search {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : " ") + n;
  return out;
}

}  // namespace

std::string shortest(double v) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

std::string fixed(double v, int decimals) {
  std::array<char, 64> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
  return n > 0 && static_cast<size_t>(n) < buf.size()
             ? std::string(buf.data(), static_cast<size_t>(n))
             : shortest(v);
}

std::string frontier_csv(const Problem& problem, const SearchResult& result,
                         const std::vector<Slice>& slices, config::Phase phase) {
  const bool prefill = phase == config::Phase::kPrefill;
  report::Table t({"topology",
                   "topology_file",
                   "chips",
                   "mesh",
                   "tensor_axes",
                   "tensor_collective",
                   "weight_gathered",
                   "kv_layout",
                   "expert_axes",
                   "data_axes",
                   "pipeline_axis",
                   "batch",
                   "micro_batches",
                   "tokens_per_s_per_chip",
                   prefill ? "ttft_us" : "tpot_us",
                   "step_time_us",
                   "mfu",
                   "hbm_used_bytes",
                   "candidate",
                   "calibration",
                   "j_per_token",
                   "tokens_per_j",
                   "mean_power_w",
                   "usd_per_m_tokens",
                   "gco2e_per_m_tokens"});
  for (const size_t i : result.frontier) {
    const Candidate& c = problem.candidates()[i];
    const config::ShardingSpec& s = c.workload.sharding;
    const Evaluation& e = *result.results[i].flow;
    const Slice& slice = slices[c.slice];
    const bool tensor = !s.tensor_axes.empty() && !s.weight_gathered;
    t.add_row({slice.spec.name,
               slice.file,
               std::to_string(slice.spec.chip_count()),
               mesh_label(c.workload),
               joined(s.tensor_axes),
               !tensor                     ? ""
               : s.tensor_axes.size() == 2 ? "2d"
               : s.tensor_collective == config::TensorCollective::kReduceScatterAllGather
                   ? "reduce_scatter_all_gather"
                   : "all_reduce",
               s.weight_gathered ? "true" : "false",
               !tensor                                     ? ""
               : s.kv_layout == config::KvLayout::kByBatch ? "by_batch"
                                                           : "by_heads",
               joined(s.expert_axes),
               joined(s.data_axes),
               s.pipeline_axis,
               std::to_string(c.workload.scenario.batch),
               std::to_string(c.workload.scenario.micro_batches),
               shortest(e.tokens_per_s_per_chip),
               fixed(e.latency_us, 6),
               fixed(e.step_time_us, 6),
               shortest(e.mfu),
               std::to_string(e.hbm_used_bytes),
               c.workload.name,
               slice.spec.calibration.profile,
               e.energy_modelled ? shortest(e.j_per_token) : "",
               e.energy_modelled ? shortest(e.tokens_per_j) : "",
               e.energy_modelled ? shortest(e.mean_power_w) : "",
               e.priced ? shortest(e.usd_per_m_tokens) : "",
               e.priced ? shortest(e.gco2e_per_m_tokens) : ""});
  }
  std::ostringstream out;
  t.render_csv(out);
  return out.str();
}

}  // namespace podsim::search
