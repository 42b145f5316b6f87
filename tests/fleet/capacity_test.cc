// Capacity search (fleet/capacity.h): bisection on a known threshold, and on
// the shipped Azure example end to end.
#include "fleet/capacity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/context.h"
#include "config/pricing_loader.h"
#include "config/serve_loader.h"
#include "fleet/serve.h"
#include "report/csv_reader.h"
#include "report/format.h"

namespace podsim::fleet {
namespace capacity_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

// p99 TTFT of 1 s exactly at `knee` requests/s, rising with the rate.
ServeSummary fake(double rate, double knee) {
  ServeSummary s;
  s.completed = 100;
  s.ttft_s.p99 = rate / knee;
  s.tpot_s.p99 = 0.01;
  return s;
}

TEST(CapacitySearch, FindsTheKneeWithinTheTolerance) {
  CapacityOptions o;
  o.ttft_ms = 1000;
  for (double start : {0.01, 1.0, 7.3, 1000.0}) {
    const CapacityResult r = search_capacity(
        start, [](double rate) { return fake(rate, 7.3); }, o);
    EXPECT_TRUE(r.bracketed) << start;
    EXPECT_LE(r.rate_per_s, 7.3) << start;
    EXPECT_GE(r.rate_per_s, 7.3 * (1 - o.relative_tolerance)) << start;
    EXPECT_LE(r.runs.size(), o.max_runs);
    for (const CapacityRun& run : r.runs)
      EXPECT_EQ(run.ok, run.rate_per_s <= 7.3) << run.rate_per_s;
  }
}

TEST(CapacitySearch, ReportsNoRateWhenNoneMeetsTheTarget) {
  CapacityOptions o;
  o.tpot_ms = 5;  // the fake's p99 TPOT is 10 ms at every rate
  const CapacityResult r = search_capacity(
      1, [](double rate) { return fake(rate, 7.3); }, o);
  EXPECT_EQ(r.rate_per_s, 0);
  EXPECT_FALSE(r.bracketed);
  CapacityOptions rejecting;
  rejecting.ttft_ms = 1000;
  const CapacityResult q = search_capacity(
      1,
      [](double rate) {
        ServeSummary s = fake(rate, 7.3);
        s.rejected = 1;  // a rejected request never meets the target
        return s;
      },
      rejecting);
  EXPECT_EQ(q.rate_per_s, 0);
}

TEST(CapacitySearch, ScalesATraceToTheRate) {
  config::ServeSpec spec;
  spec.arrivals.kind = config::ArrivalKind::kTrace;
  spec.arrivals.trace = {{sim::Time::s(0), 1, 1}, {sim::Time::s(1), 1, 1}, {sim::Time::s(4), 1, 1}};
  EXPECT_DOUBLE_EQ(nominal_rate(spec), 0.5);
  const config::ServeSpec fast = at_rate(spec, 2);
  EXPECT_EQ(fast.arrivals.trace[1].arrival, sim::Time::ms(250));
  EXPECT_EQ(fast.arrivals.trace[2].arrival, sim::Time::s(1));
  spec.arrivals.kind = config::ArrivalKind::kClosedLoop;
  EXPECT_THROW(nominal_rate(spec), std::invalid_argument);
}

TEST(CapacitySearch, AnObjectiveEveryRateMeetsStopsAtTheRateBound) {
  // TPOT alone, met at any rate (batching bounds it): the search used to
  // double up to 2^30 x the start (10^9/s, runs of 2e7 requests). It stops,
  // unbracketed, at max_rate.
  CapacityOptions o;
  o.tpot_ms = 50;
  o.max_rate = 1000;
  const CapacityResult r = search_capacity(
      10, [](double rate) { return fake(rate, 1e300); }, o);
  EXPECT_FALSE(r.bracketed);
  for (const CapacityRun& run : r.runs)
    EXPECT_LE(run.rate_per_s, 1000) << run.rate_per_s;
  EXPECT_EQ(r.rate_per_s, 640);  // 10 x 2^6; 1280 would pass the bound
}

TEST(CapacitySearch, ARunEndedByItsDurationAloneIsBoundedInRequests) {
  config::ServeSpec spec;
  spec.arrivals.kind = config::ArrivalKind::kPoisson;
  spec.arrivals.rate_per_s = 10;
  spec.duration = sim::Time::s(60);
  // Up to kMaxProbeRequests requests a probe: 10^6 / 60 s.
  EXPECT_DOUBLE_EQ(search_options(spec, {}).max_rate, kMaxProbeRequests / 60);
  // The file's own rate is always allowed.
  spec.arrivals.rate_per_s = 1e5;
  EXPECT_DOUBLE_EQ(search_options(spec, {}).max_rate, 1e5);
  // A request count bounds every probe already; the rate bound is the files'.
  spec.max_requests = 1000;
  EXPECT_DOUBLE_EQ(search_options(spec, {}).max_rate, config::kMaxArrivalRatePerS);
}

TEST(Capacity, OnTheAzureExampleTheRateFoundMeetsItsSlo) {
  const config::ServeSpec spec = config::load_serve_file(
      source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto");
  CapacityOptions o;
  o.ttft_ms = spec.slo.ttft_ms;
  o.tpot_ms = spec.slo.tpot_ms;
  const CapacityResult r = find_capacity(spec, o);
  ASSERT_GT(r.rate_per_s, 0);
  EXPECT_TRUE(r.bracketed);
  const ServeSummary at = serve(at_rate(spec, r.rate_per_s)).summary;
  EXPECT_LE(at.ttft_s.p99 * 1e3, o.ttft_ms);
  EXPECT_LE(at.tpot_s.p99 * 1e3, o.tpot_ms);

  std::ostringstream out;
  std::ostringstream err;
  const std::string file =
      (source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto").string();
  EXPECT_EQ(cli::run_cli({"capacity", file, "--format", "csv"}, out, err), 0) << err.str();
  // podsim.output.CapacityReport's columns, one row per run, the answer in each.
  const report::CsvDocument csv = report::parse_csv(out.str(), "capacity");
  ASSERT_FALSE(csv.rows.empty());
  for (const report::CsvRecord& row : csv.rows) {
    EXPECT_EQ(row.cells[static_cast<size_t>(csv.column("status"))], "ok");
    EXPECT_EQ(row.cells[static_cast<size_t>(csv.column("answer.rate_per_s"))],
              report::format_double(r.rate_per_s));
  }
  EXPECT_GE(csv.column("runs.meets_slo"), 0);
  std::ostringstream out2;
  EXPECT_EQ(cli::run_cli({"capacity", file, "--ttft-ms", "0.001"}, out2, err), 1)
      << "no rate gives a microsecond TTFT: a check failed";
  // Every prompt's prefill alone takes longer than a microsecond: the
  // target is unattainable and said so, with no search (fleet/capacity_bound.h).
  EXPECT_NE(out2.str().find("unattainable: 300 requests (the longest prompts, ids "),
            std::string::npos)
      << out2.str();
  EXPECT_EQ(out2.str().find("rate_per_s"), std::string::npos) << "no run";
  // A TPOT objective no rate meets still searches and finds none.
  std::ostringstream out3;
  EXPECT_EQ(
      cli::run_cli({"capacity", file, "--tpot-ms", "0.001", "--ttft-ms", "100000"}, out3, err), 1);
  EXPECT_NE(out3.str().find("no rate tried meets the objectives"), std::string::npos) << out3.str();
}

TEST(Capacity, FewestChipsAtATargetRate) {
  std::vector<config::ServeSpec> specs;
  for (const char* f :
       {"llama3-70b-disaggregated.serve.textproto", "llama3-70b-azure-conv.serve.textproto"})
    specs.push_back(config::load_serve_file(source_dir() / "workloads/serve" / f));
  CapacityOptions o;
  o.ttft_ms = 1000;
  o.tpot_ms = 100;
  const FewestChips at2 = fewest_chips(specs, 2, o);
  ASSERT_EQ(at2.configs.size(), 2u);
  EXPECT_EQ(at2.configs[0].chips, 48u) << "three v5e 4x4 slices";
  EXPECT_EQ(at2.configs[1].chips, 16u);
  EXPECT_TRUE(at2.configs[0].run.ok);
  EXPECT_TRUE(at2.configs[1].run.ok);
  EXPECT_EQ(at2.best, 1) << "both meet the objectives at 2 requests/s; one slice is fewer chips";
  o.tpot_ms = 20;  // only the disaggregated decode pool keeps p99 TPOT under 20 ms
  const FewestChips strict = fewest_chips(specs, 2, o);
  EXPECT_EQ(strict.best, 0);
}

// The same LLaMA-3-8B on three 2x2 slices: v6e (4 chips, $2.70 a chip-hour),
// two copies of v5e (8 chips, $1.20), v4 (4 chips, $3.22). At 4 requests/s
// all meet the objectives; the fewest chips are v6e's (v4 ties, later in the
// order), the cheapest tokens v5e's, the fewest joules per token v4's (the
// least idle and host power per chip: 90 + 83 W against v6e's 155 + 143).
class CapacityMinimise : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One directory per process: CTest runs this suite's tests side by
    // side, and each removes its directory when it ends.
    dir_ = std::filesystem::temp_directory_path() /
           ("podsim_capacity_minimise_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::filesystem::path topologies = source_dir() / "topologies";
    // 2x2 slices of the shipped pods' chips (their power models and prices).
    slice(topologies / "v6e-16x16.textproto", dir_ / "v6e-2x2.textproto",
          {{"size: 16 wraparound: true", "size: 2 wraparound: false"}});
    slice(topologies / "v4-4x4x4.textproto", dir_ / "v4-2x2.textproto",
          {{"size: 4 wraparound: true", "size: 2 wraparound: false"},
           {"  dims { name: \"z\" size: 2 wraparound: false link_bandwidth_gbps: 45 "
            "hop_latency_ns: 1000 }\n",
            ""}});
    files_ = {serve_file("v6e", (dir_ / "v6e-2x2.textproto").string(), 1),
              serve_file("v5e", (topologies / "v5e-2x2.textproto").string(), 2),
              serve_file("v4", (dir_ / "v4-2x2.textproto").string(), 1)};
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  static void slice(const std::filesystem::path& from, const std::filesystem::path& to,
                    const std::vector<std::pair<std::string, std::string>>& edits) {
    std::ifstream in(from);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& [old_text, new_text] : edits) {
      for (size_t at = text.find(old_text); at != std::string::npos;
           at = text.find(old_text, at + new_text.size()))
        text.replace(at, old_text.size(), new_text);
    }
    std::ofstream(to) << text;
  }

  static std::string serve_file(const std::string& name, const std::string& topology, int count) {
    const std::filesystem::path path = dir_ / (name + ".serve.textproto");
    std::ofstream(path) << "name: \"llama3-8b-" << name << "\"\nreplicas {\n  name: \"" << name
                        << "-2x2\"\n  count: " << count << "\n  topology: \"" << topology
                        << "\"\n  workload: \""
                        << (source_dir() / "workloads/serve/llama3-8b-v5e-2x2.textproto").string()
                        << "\"\n  max_batch: 32\n  max_tokens_per_step: 2048\n}\n"
                        << "arrivals {\n  poisson { rate_per_s: 4 }\n"
                        << "  prompt_tokens { fixed: 256 }\n  output_tokens { fixed: 64 }\n}\n"
                        << "slo { ttft_ms: 500 tpot_ms: 50 }\nrequests: 40\nseed: 3\n";
    return path.string();
  }

  static std::string pricing() {
    return (source_dir() / "topologies/pricing/google-cloud-2026.textproto").string();
  }

  // `podsim capacity FILES... --target-rate 4 EXTRA...`: exit code, stdout, stderr.
  static int capacity(const std::vector<std::string>& extra, std::string& out, std::string& err) {
    std::vector<std::string> args = {"capacity"};
    args.insert(args.end(), files_.begin(), files_.end());
    args.emplace_back("--target-rate");
    args.emplace_back("4");
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream o;
    std::ostringstream e;
    const int code = cli::run_cli(args, o, e);
    out = o.str();
    err = e.str();
    return code;
  }

  static std::filesystem::path dir_;
  static std::vector<std::string> files_;
};

std::filesystem::path CapacityMinimise::dir_;
std::vector<std::string> CapacityMinimise::files_;

TEST_F(CapacityMinimise, EachObjectivePicksItsOwnConfiguration) {
  std::vector<config::ServeSpec> specs;
  for (const std::string& f : files_)
    specs.push_back(config::load_serve_file(f));
  CapacityOptions o;
  o.ttft_ms = 500;
  o.tpot_ms = 50;
  o.pricing = std::make_shared<const config::PricingSpec>(config::load_pricing_file(pricing()));
  const FewestChips chips = fewest_chips(specs, 4, o);
  ASSERT_EQ(chips.configs.size(), 3u);
  EXPECT_EQ(chips.configs[0].chips, 4u);
  EXPECT_EQ(chips.configs[1].chips, 8u);
  EXPECT_EQ(chips.configs[2].chips, 4u);
  for (const ConfigVerdict& v : chips.configs) {
    EXPECT_TRUE(v.run.ok) << v.name;
    EXPECT_TRUE(v.run.energy_modelled) << v.name;
    EXPECT_TRUE(v.run.priced) << v.name;
  }
  EXPECT_EQ(chips.best, 0) << "v6e and v4 have 4 chips each; the first given wins";
  // v5e's 8 chips at $1.20 an hour cost less than v6e's 4 at $2.70.
  const std::vector<ConfigVerdict>& v = chips.configs;
  EXPECT_LT(v[1].run.usd_per_m_output_tokens, v[0].run.usd_per_m_output_tokens);
  EXPECT_LT(v[1].run.usd_per_m_output_tokens, v[2].run.usd_per_m_output_tokens);
  EXPECT_LT(v[2].run.j_per_output_token, v[1].run.j_per_output_token);
  EXPECT_LT(v[2].run.j_per_output_token, v[0].run.j_per_output_token);
  o.minimise = Minimise::kCost;
  EXPECT_EQ(fewest_chips(specs, 4, o).best, 1);
  o.minimise = Minimise::kEnergy;
  EXPECT_EQ(fewest_chips(specs, 4, o).best, 2);
  // Ties on the objective go to the fewest chips, then the first given.
  FewestChips tied;
  CapacityRun run = v[1].run;
  add_verdict(tied, specs[1], run, Minimise::kCost);  // 8 chips
  add_verdict(tied, specs[0], run, Minimise::kCost);  // 4 chips, the same cost
  add_verdict(tied, specs[2], run, Minimise::kCost);  // 4 chips, the same cost, later
  EXPECT_EQ(tied.best, 1);
}

TEST_F(CapacityMinimise, TheCommandNamesEachChoiceAndShowsItsFigures) {
  std::string out;
  std::string err;
  ASSERT_EQ(capacity({}, out, err), 0) << err;
  std::string chips;
  ASSERT_EQ(capacity({"--minimise", "chips"}, chips, err), 0) << err;
  EXPECT_EQ(chips, out) << "chips is the default";
  EXPECT_EQ(out.rfind("config         chips  rate_per_s  ttft_p99_s", 0), 0u) << out;
  EXPECT_EQ(out.find("j_per_output_token"), std::string::npos) << "no new column by default";
  EXPECT_NE(out.find("fewest chips at 4 requests/s: 'llama3-8b-v6e', 4 chips"), std::string::npos)
      << out;
  std::string csv;
  ASSERT_EQ(capacity({"--format", "csv"}, csv, err), 0) << err;
  const report::CsvDocument chosen = report::parse_csv(csv, "capacity");
  ASSERT_EQ(chosen.rows.size(), 3u) << "a row per configuration";
  for (const report::CsvRecord& row : chosen.rows) {
    EXPECT_EQ(row.cells[static_cast<size_t>(chosen.column("mode"))], "target_rate");
    EXPECT_EQ(row.cells[static_cast<size_t>(chosen.column("answer.config"))], "llama3-8b-v6e");
    EXPECT_EQ(row.cells[static_cast<size_t>(chosen.column("answer.chips"))], "4");
  }

  ASSERT_EQ(capacity({"--minimise", "cost", "--pricing", pricing()}, out, err), 0) << err;
  EXPECT_NE(out.find("lowest cost at 4 requests/s: 'llama3-8b-v5e', $"), std::string::npos) << out;
  EXPECT_NE(out.find("per million output tokens, 8 chips"), std::string::npos) << out;
  ASSERT_EQ(capacity({"--minimise", "energy"}, out, err), 0) << err;
  EXPECT_NE(out.find("least energy at 4 requests/s: 'llama3-8b-v4', "), std::string::npos) << out;
  EXPECT_NE(out.find("J per output token, 4 chips"), std::string::npos) << out;

  // Each CSV row carries its run's figures and the answer's.
  ASSERT_EQ(capacity({"--minimise", "cost", "--pricing", pricing(), "--format", "csv"}, csv, err),
            0)
      << err;
  const report::CsvDocument priced = report::parse_csv(csv, "capacity");
  ASSERT_EQ(priced.rows.size(), 3u);
  for (const report::CsvRecord& row : priced.rows) {
    EXPECT_GT(
        std::stod(row.cells[static_cast<size_t>(priced.column("runs.usd_per_m_output_tokens"))]),
        0);
    EXPECT_EQ(row.cells[static_cast<size_t>(priced.column("answer.config"))], "llama3-8b-v5e");
    EXPECT_EQ(row.cells[static_cast<size_t>(priced.column("objectives.minimise"))], "cost");
  }
}

TEST_F(CapacityMinimise, UsageErrorsExitTwo) {
  std::string out;
  std::string err;
  EXPECT_EQ(capacity({"--minimise", "cost"}, out, err), 2);
  EXPECT_NE(err.find("--minimise cost needs --pricing"), std::string::npos) << err;
  EXPECT_EQ(capacity({"--minimise", "watts"}, out, err), 2);
  EXPECT_NE(err.find("--minimise: expected chips, cost or energy"), std::string::npos) << err;
  std::ostringstream o;
  std::ostringstream e;
  EXPECT_EQ(cli::run_cli({"capacity", files_[0], "--minimise", "energy"}, o, e), 2)
      << "--minimise chooses among files at a target rate";
  EXPECT_NE(e.str().find("needs --target-rate"), std::string::npos) << e.str();
  // A chip the pricing file does not price at the commitment: exit 2 before any run.
  EXPECT_EQ(capacity({"--pricing", pricing(), "--commitment", "1-year"}, out, err), 2);
  EXPECT_NE(err.find("TPU v5e"), std::string::npos) << "v6e has a 1-year price, v5e none: " << err;
  EXPECT_TRUE(out.empty()) << out;
  // --minimise energy with a topology that has no power model names the file.
  {
    std::ifstream in(dir_ / "v4-2x2.textproto");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t from = text.find("  power {");
    const size_t to = text.find("\n  }\n", from);
    ASSERT_NE(from, std::string::npos);
    text.erase(from, to + 5 - from);
    std::ofstream(dir_ / "v4-2x2-unpowered.textproto") << text;
  }
  const std::string unpowered =
      serve_file("v4-unpowered", (dir_ / "v4-2x2-unpowered.textproto").string(), 1);
  std::ostringstream o2;
  std::ostringstream e2;
  EXPECT_EQ(
      cli::run_cli({"capacity", files_[0], unpowered, "--target-rate", "4", "--minimise", "energy"},
                   o2, e2),
      2);
  EXPECT_NE(e2.str().find("v4-unpowered.serve.textproto"), std::string::npos) << e2.str();
  EXPECT_NE(e2.str().find("replicas[0].topology"), std::string::npos) << e2.str();
  EXPECT_NE(e2.str().find("power model"), std::string::npos) << e2.str();
  EXPECT_TRUE(o2.str().empty());
}

TEST_F(CapacityMinimise, TheRateSearchGainsCostColumnsWithAPricingFile) {
  std::ostringstream o;
  std::ostringstream e;
  ASSERT_EQ(cli::run_cli({"capacity", files_[1], "--pricing", pricing(), "--format", "csv",
                          "--tolerance", "0.25"},
                         o, e),
            0)
      << e.str();
  const report::CsvDocument csv = report::parse_csv(o.str(), "capacity");
  ASSERT_FALSE(csv.rows.empty());
  for (const report::CsvRecord& row : csv.rows) {
    EXPECT_EQ(row.cells[static_cast<size_t>(csv.column("runs.priced"))], "true");
    EXPECT_GT(std::stod(row.cells[static_cast<size_t>(csv.column("runs.usd_per_m_output_tokens"))]),
              0);
    EXPECT_EQ(row.cells[static_cast<size_t>(csv.column("objectives.pricing"))],
              "google-cloud-2026");
  }
}

}  // namespace capacity_test
}  // namespace podsim::fleet
