// `podsim capacity`'s report (fleet/capacity_report.h): an objective no rate
// can meet is reported unattainable with the requests and the bound, the
// bound checked against the simulator; a feasible one searches as before;
// every --format prints the same message.
#include "fleet/capacity_report.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "config/serve_loader.h"
#include "fleet/capacity_bound.h"
#include "fleet/serve.h"
#include "report/format.h"
#include "report/message_csv.h"

namespace podsim::fleet {
namespace capacity_report_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

// 20 requests, three (ids 5, 11, 17) of 8000 prompt tokens, slo 100 ms TTFT.
std::string fixture() {
  return (source_dir() / "tests/fleet/data/long-prompts.serve.textproto").string();
}

struct Ran {
  int code;
  std::string out;
  std::string err;
};

Ran capacity(std::vector<std::string> extra) {
  std::vector<std::string> args = {"capacity", fixture()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

podsim::output::CapacityReport from_json(const std::string& json) {
  podsim::output::CapacityReport r;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &r);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return r;
}

CapacityOptions objectives(uint32_t percentile) {
  CapacityOptions o;
  o.ttft_ms = 100;
  o.tpot_ms = 50;
  o.percentile = percentile;
  return o;
}

TEST(CapacityBound, TheLongestPromptsPrefillAloneMissingTheTargetIsUnattainable) {
  const config::ServeSpec spec = config::load_serve_file(fixture());
  const TtftBound b = ttft_bound(spec, objectives(90));
  ASSERT_TRUE(b.known);
  ASSERT_TRUE(b.unattainable);
  EXPECT_EQ(b.requests, 20u);
  EXPECT_EQ(b.allowed, 2u) << "p90 of 20 is the 18th smallest: 2 may exceed it";
  EXPECT_EQ(b.binding, 3u) << "the three 8000-token prompts, not the 256-token ones";
  EXPECT_EQ(b.binding_ids, (std::vector<uint64_t>{5, 11, 17}));
  EXPECT_EQ(b.prompt_tokens, 8000u);
  EXPECT_GT(b.prefill_s, 0.1);
  EXPECT_EQ(b.replica, "v5e-2x2");
  EXPECT_NE(b.reason.find("3 requests (the longest prompts, ids 5, 11, 17; 8000 prompt tokens "
                          "or more) need at least"),
            std::string::npos)
      << b.reason;
  EXPECT_NE(b.reason.find("> the TTFT target 0.1 s at p90 (at most 2 of 20 may exceed it)"),
            std::string::npos)
      << b.reason;

  // The bound is the simulator's: one 8000-token request served alone has
  // that TTFT (within the step-time buckets' 1%), and in the whole trace
  // served at its own rate every binding request's TTFT is at least it.
  config::ServeSpec alone = spec;
  alone.arrivals.trace = {spec.arrivals.trace[5]};
  alone.arrivals.trace[0].arrival = sim::Time::s(0);
  const ServeOutput one = serve(alone);
  ASSERT_EQ(one.run.requests.size(), 1u);
  const double ttft_alone = (one.run.requests[0].first_token - one.run.requests[0].arrival).to_s();
  EXPECT_NEAR(ttft_alone, b.prefill_s, 0.01 * b.prefill_s);
  const ServeOutput all = serve(spec);
  for (const uint64_t id : b.binding_ids) {
    const RequestRecord& r = all.run.requests.at(id);
    EXPECT_GE((r.first_token - r.arrival).to_s(), b.prefill_s * 0.99) << id;
  }
}

TEST(CapacityBound, AFeasibleTargetSearchesAsBefore) {
  const config::ServeSpec spec = config::load_serve_file(fixture());
  const TtftBound b = ttft_bound(spec, objectives(50));
  EXPECT_TRUE(b.known);
  EXPECT_FALSE(b.unattainable) << "10 of 20 may exceed the objective at p50";
  const CapacityResult direct = find_capacity(spec, objectives(50));
  ASSERT_GT(direct.rate_per_s, 0);
  const Ran r = capacity({"--percentile", "50", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const podsim::output::CapacityReport report = from_json(r.out);
  EXPECT_EQ(report.status(), "ok");
  EXPECT_EQ(report.mode(), "rate_search");
  EXPECT_EQ(report.answer().rate_per_s(), direct.rate_per_s);
  EXPECT_EQ(report.answer().bracketed(), direct.bracketed);
  EXPECT_EQ(report.answer().chips(), 4u);
  ASSERT_EQ(static_cast<size_t>(report.runs_size()), direct.runs.size());
  for (int i = 0; i < report.runs_size(); ++i) {
    EXPECT_EQ(report.runs(i).rate_per_s(), direct.runs[static_cast<size_t>(i)].rate_per_s) << i;
    EXPECT_EQ(report.runs(i).meets_slo(), direct.runs[static_cast<size_t>(i)].ok) << i;
  }
  EXPECT_EQ(report.objectives().percentile(), 50u);
  EXPECT_EQ(report.objectives().ttft_ms(), 100);
  ASSERT_EQ(report.serve_files_size(), 1);
  EXPECT_EQ(report.serve_files(0).file(), fixture());
  EXPECT_EQ(report.serve_files(0).sha256().size(), 64u);
  EXPECT_EQ(report.serve_files(0).arrivals().trace_requests(), 20u);
  EXPECT_EQ(report.serve_files(0).arrivals().trace_sha256().size(), 64u);
  EXPECT_EQ(report.serve_files(0).replicas(0).topology().chips(), 4u);
  EXPECT_EQ(report.serve_files(0).replicas(0).serving().model().name(), "LLaMA-3-8B");

  // The table says the same rate as before.
  const Ran table = capacity({"--percentile", "50"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("capacity of 'llama3-8b-long-prompts': " +
                           report::format_fixed(direct.rate_per_s, 3) + " requests/s"),
            std::string::npos)
      << table.out;
}

TEST(CapacityCommand, AnUnattainableTargetSaysSoInEveryFormat) {
  const Ran table = capacity({"--percentile", "90"});
  EXPECT_EQ(table.code, 1) << "no rate meets it: a check failed\n" << table.err;
  EXPECT_NE(table.out.find("capacity of 'llama3-8b-long-prompts': unattainable: 3 requests "
                           "(the longest prompts, ids 5, 11, 17;"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("requests/s"), std::string::npos) << "never a tiny rate";

  const Ran json = capacity({"--percentile", "90", "--format", "json"});
  EXPECT_EQ(json.code, 1) << json.err;
  const podsim::output::CapacityReport r = from_json(json.out);
  EXPECT_EQ(r.status(), "unattainable");
  EXPECT_NE(r.reason().find("need at least"), std::string::npos);
  EXPECT_EQ(r.bound().binding(), 3u);
  EXPECT_EQ(r.bound().binding_ids_size(), 3);
  EXPECT_EQ(r.bound().prompt_tokens(), 8000u);
  EXPECT_EQ(r.answer().rate_per_s(), 0);
  EXPECT_EQ(r.runs_size(), 0) << "nothing searched";

  const Ran csv = capacity({"--percentile", "90", "--format", "csv"});
  EXPECT_EQ(csv.code, 1);
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  EXPECT_EQ(header.rfind("schema_version,podsim_version,mode,status,reason,", 0), 0u) << header;
  EXPECT_NE(header.find(",bound.binding,"), std::string::npos);
  EXPECT_NE(header.find(",runs.rate_per_s,"), std::string::npos);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 2) << "a header and one row";
  EXPECT_NE(csv.out.find(",rate_search,unattainable,"), std::string::npos) << csv.out;
}

TEST(CapacityCommand, EveryFormatPrintsOneMessageAndTheCsvCarriesTheAnswerInEachRow) {
  const Ran json = capacity({"--percentile", "50", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const podsim::output::CapacityReport r = from_json(json.out);
  const Ran text = capacity({"--percentile", "50", "--format", "textproto"});
  ASSERT_EQ(text.code, 0) << text.err;
  podsim::output::CapacityReport from_text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.out, &from_text));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(r, from_text));
  const Ran bin = capacity({"--percentile", "50", "--format", "binpb"});
  ASSERT_EQ(bin.code, 0) << bin.err;
  podsim::output::CapacityReport from_bin;
  ASSERT_TRUE(from_bin.ParseFromString(bin.out));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(r, from_bin));

  const Ran csv = capacity({"--percentile", "50", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out, capacity_csv(r));
  const report::MessageCsv layout(podsim::output::CapacityReport::descriptor());
  const std::vector<std::string> columns = layout.columns();
  const auto rows = layout.rows(r);
  ASSERT_EQ(rows.size(), static_cast<size_t>(r.runs_size()));
  const auto col = [&](const std::string& name) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    EXPECT_NE(it, columns.end()) << name;
    return static_cast<size_t>(it - columns.begin());
  };
  for (const auto& row : rows) {
    EXPECT_EQ(row[col("status")], "ok");
    EXPECT_EQ(row[col("answer.rate_per_s")], report::format_double(r.answer().rate_per_s()));
    EXPECT_EQ(row[col("objectives.percentile")], "50");
    EXPECT_EQ(row[col("serve_files.replicas.topology.chip.name")],
              r.serve_files(0).replicas(0).topology().chip().name());
  }
}

TEST(CapacityCommand, TheTargetRateModesPrintTheirReports) {
  const Ran target = capacity({"--percentile", "50", "--target-rate", "5", "--format", "json"});
  ASSERT_LE(target.code, 1) << target.err;
  const podsim::output::CapacityReport t = from_json(target.out);
  EXPECT_EQ(t.mode(), "target_rate");
  EXPECT_EQ(t.objectives().target_rate_per_s(), 5);
  ASSERT_EQ(t.runs_size(), 1);
  EXPECT_EQ(t.runs(0).config(), "llama3-8b-long-prompts");
  EXPECT_EQ(t.status(), t.runs(0).meets_slo() ? "ok" : "none");

  const Ran copies = capacity({"--percentile", "50", "--target-rate", "5", "--fewest-replicas",
                               "--max-replicas", "2", "--format", "csv"});
  ASSERT_LE(copies.code, 1) << copies.err;
  EXPECT_NE(copies.out.find(",fewest_replicas,"), std::string::npos) << copies.out;
}

}  // namespace capacity_report_test
}  // namespace podsim::fleet
