// The mix of pools for a target rate (fleet/capacity_mix.h): the search's
// order and stopping rule against a formula for which mixes meet the
// objectives, the cost and energy choice over every mix, the KV transfer
// pod laid out again for each mix, and a small real disaggregated fleet.
#include "fleet/capacity_mix.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "config/serve_loader.h"
#include "fleet/serve.h"

namespace podsim::fleet {
namespace capacity_mix_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

config::ServeSpec disaggregated() {
  return config::load_serve_file(source_dir() /
                                 "workloads/serve/llama3-70b-disaggregated.serve.textproto");
}

// Meets the objectives with at least two decode copies; the energy per
// token falls with the prefill copies (a formula, not a fleet).
MixMeasure formula(std::vector<std::vector<uint32_t>>& asked) {
  return [&asked](const std::vector<std::vector<uint32_t>>& mixes) {
    std::vector<Probe> out;
    for (const std::vector<uint32_t>& m : mixes) {
      asked.push_back(m);
      Probe p;
      p.run.ok = m[1] >= 2;
      p.run.energy_modelled = true;
      p.run.j_per_output_token = 10.0 - m[0];
      out.push_back(p);
    }
    return out;
  };
}

TEST(CapacityMix, FewestChipsIsTheFirstMixInChipOrderThatMeetsThem) {
  const config::ServeSpec spec = disaggregated();  // 16-chip prefill and decode slices
  for (const uint32_t width : {1U, 3U}) {
    std::vector<std::vector<uint32_t>> asked;
    CapacityOptions options;
    const MixChoice c = choose_mix(spec, options, 3, width, formula(asked));
    EXPECT_EQ(c.mixes, 9u);
    // 32 chips (1, 1) fails; of the 48-chip mixes (1, 2) comes first and meets them.
    ASSERT_EQ(c.tried.size(), 2u) << "width " << width;
    EXPECT_EQ(c.tried[0].counts, (std::vector<uint32_t>{1, 1}));
    EXPECT_EQ(c.tried[0].chips, 32u);
    ASSERT_EQ(c.best, 1);
    EXPECT_EQ(c.tried[1].counts, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(c.tried[1].chips, 48u);
    // With 3 at once, (2, 1) was served in the same round but is not reported.
    EXPECT_EQ(asked.size(), width == 1 ? 2u : 3u);
  }
}

TEST(CapacityMix, EnergyServesEveryMixAndTakesTheLeastThatMeetsThem) {
  const config::ServeSpec spec = disaggregated();
  std::vector<std::vector<uint32_t>> asked;
  CapacityOptions options;
  options.minimise = Minimise::kEnergy;
  const MixChoice c = choose_mix(spec, options, 3, 2, formula(asked));
  EXPECT_EQ(c.tried.size(), 9u);
  ASSERT_GE(c.best, 0);
  // 7 J with three prefill copies; (3, 2) and (3, 3) tie, the fewer chips win.
  EXPECT_EQ(c.tried[static_cast<size_t>(c.best)].counts, (std::vector<uint32_t>{3, 2}));
  // Served by chips: never a mix of fewer chips after one of more.
  for (size_t i = 1; i < c.tried.size(); ++i)
    EXPECT_LE(c.tried[i - 1].chips, c.tried[i].chips);
}

TEST(CapacityMix, LaysTheKvPodOutForEachMixAndRefusesOneEntry) {
  const config::ServeSpec spec = disaggregated();
  const config::ServeSpec two_four = with_counts(spec, {2, 4});
  ASSERT_TRUE(two_four.kv_transfer.pod.has_value());
  EXPECT_EQ(two_four.kv_transfer.pod->slices, 6u);
  ASSERT_EQ(two_four.kv_transfer.placement.size(), 6u);
  EXPECT_EQ(two_four.kv_transfer.placement[5].slice, 5u);
  EXPECT_EQ(two_four.replicas[1].count, 4u);
  const config::ServeSpec one = config::load_serve_file(
      source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto");
  std::vector<std::vector<uint32_t>> asked;
  EXPECT_THROW(choose_mix(one, CapacityOptions{}, 3, 1, formula(asked)), std::invalid_argument);
  EXPECT_THROW(choose_mix(spec, CapacityOptions{}, 65, 1, formula(asked)), std::invalid_argument)
      << "65 x 65 mixes is more than kMaxMixes";
}

TEST(CapacityMix, ASmallRealDisaggregatedFleet) {
  // LLaMA-3-8B, prefill and decode on v5e 2x2 slices, 80 requests/s of
  // 1,024-token prompts (more than one prefill slice keeps within 300 ms):
  // the answer meets the objectives when served again, and every mix of
  // fewer chips tried before it does not.
  const std::string text =
      "name: \"mix\"\n"
      "replicas { name: \"prefill\" role: ROLE_PREFILL topology: "
      "\"topologies/v5e-2x2.textproto\" workload: \"workloads/serve/llama3-8b-v5e-2x2.textproto\" "
      "scheduler: CHUNKED_PREFILL max_batch: 16 max_tokens_per_step: 2048 }\n"
      "replicas { name: \"decode\" role: ROLE_DECODE topology: \"topologies/v5e-2x2.textproto\" "
      "workload: \"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 64 "
      "max_tokens_per_step: 2048 }\n"
      "kv_transfer { bandwidth_gbps_per_chip: 3.125 latency_us: 10 }\n"
      "arrivals { poisson { rate_per_s: 80 } prompt_tokens { fixed: 1024 } output_tokens { fixed: "
      "64 } }\nrequests: 120\nseed: 3\nslo { ttft_ms: 300 tpot_ms: 30 }\n";
  const config::ServeSpec spec = config::parse_serve_text(text, "mix.serve", source_dir());
  CapacityOptions options;
  options.ttft_ms = 300;
  options.tpot_ms = 30;
  const MixMeasure serial = [&](const std::vector<std::vector<uint32_t>>& mixes) {
    std::vector<Probe> out;
    for (const std::vector<uint32_t>& m : mixes)
      out.push_back(run_mix(spec, m, 80, options));
    return out;
  };
  const MixChoice c = choose_mix(spec, options, 3, 1, serial);
  ASSERT_GE(c.best, 0);
  const MixRun& best = c.tried[static_cast<size_t>(c.best)];
  EXPECT_EQ(c.best + 1, static_cast<int>(c.tried.size()));
  EXPECT_GT(c.tried.size(), 1u) << "one prefill and one decode slice do not keep up";
  EXPECT_GT(best.counts[0], 1u);
  for (int i = 0; i < c.best; ++i) {
    EXPECT_FALSE(c.tried[static_cast<size_t>(i)].run.ok);
    EXPECT_LE(c.tried[static_cast<size_t>(i)].chips, best.chips);
  }
  CapacityRun again;
  EXPECT_TRUE(meets(serve(at_rate(with_counts(spec, best.counts), 80)).summary, options, again));
  std::cout << "mix: " << best.counts[0] << " prefill, " << best.counts[1] << " decode, "
            << c.tried.size() << " served\n";
}

}  // namespace capacity_mix_test
}  // namespace podsim::fleet
