// The serve summary as a self-describing message (fleet/serve_output.h,
// fleet/serve_inputs.h): its inputs are those a `podsim run` of each replica
// group's files records, its CSV is derived from the schema with the
// earlier columns first and unchanged, every --format prints the same
// message, and progress on stderr never changes stdout.
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
#include "fleet/serve.h"
#include "fleet/serve_output.h"
#include "report/message_csv.h"
#include "report/result_inputs.h"

namespace podsim::fleet {
namespace serve_report_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

std::string fixture() {
  return (source_dir() / "tests/fleet/data/long-prompts.serve.textproto").string();
}

struct Ran {
  int code;
  std::string out;
  std::string err;
};

Ran run(const std::vector<std::string>& args, bool terminal = false) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_cli(args, out, err, terminal);
  return {code, out.str(), err.str()};
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ','))
    cells.push_back(cell);
  return cells;
}

TEST(ServeReport, CarriesEveryReplicaGroupsInputsAsARunRecordsThem) {
  const config::ServeSpec spec = config::load_serve_file(fixture());
  const podsim::output::ServeReport r = make_report(spec, serve(spec));
  EXPECT_EQ(r.podsim_version(), std::string(report::podsim_version()));
  const podsim::output::ServeInputs& in = r.inputs();
  EXPECT_EQ(in.name(), "llama3-8b-long-prompts");
  EXPECT_EQ(in.file(), fixture());
  EXPECT_EQ(in.sha256().size(), 64u);
  EXPECT_EQ(in.router(), "ROUND_ROBIN");
  EXPECT_EQ(in.arrivals().process(), "trace");
  EXPECT_EQ(in.arrivals().trace_requests(), 20u);
  EXPECT_DOUBLE_EQ(in.arrivals().rate_per_s(), 19 / 1.9) << "requests over the trace's span";
  EXPECT_EQ(in.slo_ttft_ms(), 100);
  ASSERT_EQ(in.replicas_size(), 1);
  const podsim::output::ServeReplicaInputs& g = in.replicas(0);
  EXPECT_EQ(g.scheduler(), "CONTINUOUS_BATCHING");
  EXPECT_EQ(g.max_batch(), 32u);
  EXPECT_EQ(g.max_tokens_per_step(), 8192u);
  // The same messages a `podsim run` of the group's topology and workload fills.
  podsim::Result run = report::new_result();
  report::fill_topology_inputs(spec.replicas[0].pod, *run.mutable_inputs()->mutable_topology());
  report::fill_workload_inputs(spec.replicas[0].workload, spec.replicas[0].pod,
                               *run.mutable_inputs());
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(g.topology(), run.inputs().topology()));
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(g.workload(), run.inputs().workload()));
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(g.serving(), run.inputs().serving()));
}

TEST(ServeReport, TheCsvKeepsTheEarlierColumnsFirstAndAppendsTheInputs) {
  const config::ServeSpec spec = config::load_serve_file(fixture());
  const podsim::output::ServeReport r = make_report(spec, serve(spec));
  const std::string csv = summary_csv(r);
  const size_t eol = csv.find('\n');
  ASSERT_NE(eol, std::string::npos);
  const std::vector<std::string> header = split(csv.substr(0, eol));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << "one row";
  // The columns before issue 32, in their order (tests/regression/baselines/serve.csv).
  const std::vector<std::string> first = {"name",      "source_file", "seed",        "requests",
                                          "completed", "rejected",    "preemptions", "duration_s"};
  ASSERT_GE(header.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 8), first);
  const auto at = [&](const std::string& name) {
    return std::find(header.begin(), header.end(), name) - header.begin();
  };
  // Issue 32's time between tokens (tbt_s ... tbt_relative_error) follows the
  // last earlier column, then the inputs.
  EXPECT_EQ(at("tbt_s.mean"), at("kv_transfer_bytes") + 1) << "appended after the last";
  EXPECT_EQ(at("podsim_version"), at("tbt_relative_error") + 1) << "appended after the TBT";
  for (const char* c :
       {"inputs.sha256", "inputs.arrivals.trace_sha256", "inputs.arrivals.rate_per_s",
        "inputs.replicas.scheduler", "inputs.replicas.max_batch",
        "inputs.replicas.topology.chip.name", "inputs.replicas.topology.sha256",
        "inputs.replicas.serving.model.name", "inputs.replicas.serving.sharding.tensor_axes"})
    EXPECT_LT(at(c), static_cast<long>(header.size())) << c;
  EXPECT_EQ(at("replicas.name"), static_cast<long>(header.size())) << "json only";
  const report::MessageCsv layout(podsim::output::ServeReport::descriptor());
  EXPECT_EQ(layout.columns(), header);
  const std::vector<std::string> row = layout.rows(r).at(0);
  EXPECT_EQ(row[static_cast<size_t>(at("inputs.replicas.serving.model.name"))], "LLaMA-3-8B");
  EXPECT_EQ(row[static_cast<size_t>(at("inputs.replicas.scheduler"))], "CONTINUOUS_BATCHING");
}

TEST(ServeCommand, EveryFormatPrintsOneMessage) {
  const Ran json = run({"serve", fixture(), "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  podsim::output::ServeReport from_json;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &from_json).ok());
  const Ran text = run({"serve", fixture(), "--format", "textproto"});
  ASSERT_EQ(text.code, 0) << text.err;
  podsim::output::ServeReport from_text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.out, &from_text));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(from_json, from_text));
  const Ran bin = run({"serve", fixture(), "--format", "binpb"});
  ASSERT_EQ(bin.code, 0) << bin.err;
  podsim::output::ServeReport from_bin;
  ASSERT_TRUE(from_bin.ParseFromString(bin.out));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(from_json, from_bin));
  EXPECT_EQ(run({"serve", fixture(), "--format", "xml"}).code, 2);
}

TEST(ServeCommand, ProgressNeverChangesStdout) {
  for (const char* format : {"table", "csv", "json"}) {
    const Ran quiet = run({"serve", fixture(), "--format", format, "-q"}, true);
    const Ran terminal = run({"serve", fixture(), "--format", format}, true);
    const Ran log = run({"serve", fixture(), "--format", format}, false);
    ASSERT_EQ(quiet.code, 0) << quiet.err;
    EXPECT_EQ(terminal.out, quiet.out) << format;
    EXPECT_EQ(log.out, quiet.out) << format;
    EXPECT_EQ(quiet.err, "") << "nothing with -q";
  }
  const Ran quiet = run({"capacity", fixture(), "--percentile", "50", "--format", "csv", "-q"});
  const Ran shown = run({"capacity", fixture(), "--percentile", "50", "--format", "csv"}, true);
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(shown.out, quiet.out);
}

}  // namespace serve_report_test
}  // namespace podsim::fleet
