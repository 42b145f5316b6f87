// --pricing, --commitment and search --objective end to end, in-process
// (issue 30; docs/energy.md): a priced run carries its cost, computed from
// its own energy and time; a chip without a price, a pricing file that
// counts carbon on a topology without a power model, --commitment without
// --pricing, --objective cost without --pricing and --objective energy on a
// chip without a power model each exit 2 naming what is wrong and write no
// --out file; a sweep prices every point; the table shows the energy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/csv_reader.h"
#include "result_json.h"

namespace podsim::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;
namespace fs = std::filesystem;

std::string priced_path(const std::string& relative) {
  return (root() / relative).string();
}

const std::string kPricing = "topologies/pricing/google-cloud-2026.textproto";

// The power model's figures set to 0 one by one: no power model.
std::vector<std::string> without_power() {
  std::vector<std::string> args;
  for (const char* f : {"idle_watts", "host_watts", "mxu_bf16_pj_per_flop", "mxu_int8_pj_per_op",
                        "vector_pj_per_flop", "hbm_pj_per_byte", "vmem_pj_per_byte",
                        "ici_pj_per_byte_per_hop", "dcn_pj_per_byte"}) {
    args.push_back("--set");
    args.push_back(std::string("topology.chip.power.") + f + "=0");
  }
  return args;
}

TEST(PricingOption, APricedRunCarriesItsCostFromItsEnergyAndTime) {
  const Result r = run({"run", "-t", priced_path("topologies/v5e-4x4.textproto"), "-w",
                        priced_path("workloads/llama3-8b-decode-v5e.textproto"), "--network",
                        "analytical", "--pricing", priced_path(kPricing), "--format", "csv"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = report::parse_csv(r.out, "stdout");
  const auto num = [&](const std::string& c) {
    const int k = d.column(c);
    EXPECT_GE(k, 0) << c;
    return std::stod(d.rows.at(0).cells.at(static_cast<size_t>(k)));
  };
  const double step_s = num("serving.step_time_us") * 1e-6;
  const double tokens = num("serving.tokens");
  // 16 chips at $1.20 an hour for the step, the rental paying the power.
  EXPECT_NEAR(num("serving.cost.usd_per_m_tokens"), 16 * 1.20 * step_s / 3600 / tokens * 1e6, 1e-9);
  // The step's energy x PUE 1.09 x 125 g/kWh.
  EXPECT_NEAR(num("serving.cost.gco2e_per_m_tokens"),
              num("serving.energy.step_j") * 1.09 / 3.6e6 * 125 / tokens * 1e6, 1e-9);
  EXPECT_EQ(num("serving.cost.usd_per_chip_hour"), 1.20);
}

TEST(PricingOption, AChipWithoutAPriceExitsTwoNamingTheFile) {
  const fs::path out = fs::temp_directory_path() / "podsim_pricing_test_unpriced.json";
  fs::remove(out);
  const Result r = run({"run", "-t", priced_path("topologies/tpu7x-4x4x4.textproto"), "-w",
                        priced_path("workloads/llama3-70b-decode-tpu7x.textproto"), "--pricing",
                        priced_path(kPricing), "--out", out.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, AllOf(HasSubstr(priced_path(kPricing)), HasSubstr("TPU7x")));
  EXPECT_FALSE(fs::exists(out));
}

TEST(PricingOption, CarbonWithoutAPowerModelExitsTwoNamingTheTopology) {
  std::vector<std::string> args = {"run",
                                   "-t",
                                   priced_path("topologies/v5e-4x4.textproto"),
                                   "-w",
                                   priced_path("workloads/llama3-8b-decode-v5e.textproto"),
                                   "--pricing",
                                   priced_path(kPricing)};
  for (const std::string& a : without_power())
    args.push_back(a);
  const Result r = run(args);
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, AllOf(HasSubstr("chip.power"), HasSubstr("power model")));
}

TEST(PricingOption, UsageErrorsExitTwo) {
  const Result commitment = run({"run", "--commitment", "1-year"});
  EXPECT_EQ(commitment.code, kExitBadInput);
  EXPECT_THAT(commitment.err, HasSubstr("--commitment needs --pricing"));
  const Result bad = run({"run", "--pricing", priced_path(kPricing), "--commitment", "forever"});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_THAT(bad.err, HasSubstr("on-demand, spot, 1-year or 3-year"));
  const Result cost =
      run({"search", "--model", priced_path("workloads/llama3-8b-decode-v5e.textproto"), "-t",
           priced_path("topologies/v5e-2x2.textproto"), "--phase", "decode", "--context", "1024",
           "--objective", "cost"});
  EXPECT_EQ(cost.code, kExitBadInput);
  EXPECT_THAT(cost.err, HasSubstr("--objective cost needs --pricing"));
  std::vector<std::string> energy = {"search",
                                     "--model",
                                     priced_path("workloads/llama3-8b-decode-v5e.textproto"),
                                     "-t",
                                     priced_path("topologies/v5e-2x2.textproto"),
                                     "--phase",
                                     "decode",
                                     "--context",
                                     "1024",
                                     "--objective",
                                     "energy"};
  for (const std::string& a : without_power())
    energy.push_back(a);
  const Result no_power = run(energy);
  EXPECT_EQ(no_power.code, kExitBadInput);
  EXPECT_THAT(no_power.err, AllOf(HasSubstr("chip.power"), HasSubstr("--objective energy")));
}

TEST(PricingOption, ACommitmentTheChipHasNoPriceAtExitsTwo) {
  const Result r = run({"run", "-t", priced_path("topologies/v5e-4x4.textproto"), "-w",
                        priced_path("workloads/llama3-8b-decode-v5e.textproto"), "--pricing",
                        priced_path(kPricing), "--commitment", "3-year"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, AllOf(HasSubstr(priced_path(kPricing)), HasSubstr("TPU v5e")));
}

TEST(PricingOption, TheTableShowsTheEnergy) {
  const Result r =
      run({"run", "-t", priced_path("topologies/v5e-4x4.textproto"), "-w",
           priced_path("workloads/llama3-8b-decode-v5e.textproto"), "--network", "analytical"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("energy per step"), HasSubstr("per token"),
                           HasSubstr("chip idle power"), HasSubstr("memory-bound")));
}

}  // namespace
}  // namespace podsim::cli
