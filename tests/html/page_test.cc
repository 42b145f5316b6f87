// The page from files: detection by content, the sections each kind of input
// gives, the same bytes twice, and bad inputs named with their file.
#include "html/page.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "html/report_inputs.h"
#include "html/swept.h"

namespace podsim::html {
namespace {

namespace fs = std::filesystem;

class PageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
           ("html_page_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  fs::path dir_;
};

// A sweep's rows with the columns the page reads (a real sweep has ~300).
constexpr const char* kSweep =
    "schema_version,status,reason,inputs.topology.name,inputs.topology.overrides,"
    "inputs.workload.overrides,serving.step_time_us,serving.tokens_per_s_per_chip,"
    "serving.units.mxu_us,serving.units.vector_us,serving.units.issue_us,"
    "serving.units.dma_wait_us,serving.units.overhead_us,serving.collective_exposed_us,"
    "serving.idle_us\n"
    "14,ok,,v5e,a.bw=25;a.bw2=25,w.batch=16,1000,50,400,100,50,50,100,200,100\n"
    "14,ok,,v5e,a.bw=50;a.bw2=50,w.batch=16,800,60,400,100,50,50,100,50,50\n"
    "14,ok,,v5e,a.bw=25;a.bw2=25,w.batch=32,1500,70,700,200,100,100,100,200,100\n"
    "14,oom,too big,v5e,a.bw=50;a.bw2=50,w.batch=32,0,0,0,0,0,0,0,0,0\n";

constexpr const char* kRequests =
    "request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,first_token_s,"
    "finish_s,ttft_s,tpot_s,e2e_s\n"
    "0,0,r0,10,5,ok,0,0.05,0.3,0.05,0.0625,0.3\n"
    "1,0.5,r0,10,1,ok,0,0.6,0.6,0.1,,0.1\n"
    "2,0.7,r0,10,5,rejected,0,,,,,\n";

constexpr const char* kTimeseries =
    "time_s,replica,waiting,running,kv_blocks_used,kv_utilisation\n"
    "0,r0,0,1,2,0.1\n0,r1,1,0,0,0\n1,r0,2,3,4,0.5\n1,r1,0,1,1,0.05\n";

constexpr const char* kSummary =
    R"({"name": "demo", "requests": "3", "completed": "2", "rejected": "1",
        "ttft_s": {"p50": 0.05, "p99": 0.1}, "slo_ttft_ms": 80, "slo_tpot_ms": 50,
        "a_field_of_a_newer_podsim": 1})";

TEST_F(PageTest, SweepGivesBreakdownSweepPlotAndInputs) {
  const ReportInputs in = load_report_inputs({file("sweep.csv", kSweep)});
  ASSERT_EQ(in.results.size(), 1u);
  const std::string page = render_page(in);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("Step-time breakdown"), std::string::npos);
  EXPECT_NE(page.find("<h2>Sweep</h2>"), std::string::npos);
  EXPECT_NE(page.find("<h2>Inputs</h2>"), std::string::npos);
  // The co-varying paths are one parameter, the x axis; batch the series.
  EXPECT_NE(page.find("a.bw / a.bw2"), std::string::npos);
  EXPECT_NE(page.find("batch=32"), std::string::npos);
  EXPECT_NE(page.find("1 of 4 rows are not drawn"), std::string::npos);
  // Self-contained: nothing fetched, no script.
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST_F(PageTest, NonNumericSweptValuesAreCategories) {
  const std::string sweep =
      "schema_version,status,inputs.workload.overrides,serving.step_time_us,"
      "serving.compute_us,serving.memory_us,serving.collective_exposed_us,serving.idle_us\n"
      "14,ok,w.layout=by_heads,10,4,3,2,1\n"
      "14,ok,w.layout=by_batch,12,5,3,2,2\n";
  const std::string page = render_page(load_report_inputs({file("cat.csv", sweep)}));
  EXPECT_NE(page.find(">by_heads</text>"), std::string::npos);  // an x tick label
  EXPECT_NE(page.find(">by_batch</text>"), std::string::npos);
  // Before the unit breakdown: the parts by op class.
  EXPECT_NE(page.find("memory-bound (HBM)"), std::string::npos);
  EXPECT_EQ(page.find("Throughput"), std::string::npos);  // no tokens/s column
}

TEST_F(PageTest, SweptParametersGroupPathsThatVaryTogether) {
  const std::string path = file("sweep.csv", kSweep);
  const ReportInputs in = load_report_inputs({path});
  const report::CsvDocument& doc = in.results.front();
  std::vector<const report::CsvRecord*> rows;
  for (const auto& r : doc.rows) {
    rows.push_back(&r);
  }
  const auto swept = swept_parameters(doc, rows);
  ASSERT_EQ(swept.size(), 2u);
  EXPECT_EQ(swept[0].paths, (std::vector<std::string>{"a.bw", "a.bw2"}));
  EXPECT_EQ(swept[1].paths, (std::vector<std::string>{"w.batch"}));
  EXPECT_EQ(row_labels(doc, rows)[1], "bw=50, batch=16");
}

TEST_F(PageTest, ServeOutputsGiveCdfsWithSloLinesAndTimeSeries) {
  const ReportInputs in = load_report_inputs(
      {file("s.json", kSummary), file("r.csv", kRequests), file("t.csv", kTimeseries)});
  ASSERT_EQ(in.summaries.size(), 1u);
  ASSERT_EQ(in.requests.size(), 1u);
  ASSERT_EQ(in.timeseries.size(), 1u);
  const std::string page = render_page(in);
  EXPECT_NE(page.find("TTFT: distribution over requests"), std::string::npos);
  EXPECT_NE(page.find("SLO 80 ms"), std::string::npos);
  EXPECT_NE(page.find("SLO 50 ms"), std::string::npos);
  EXPECT_NE(page.find("r.csv (2 requests)"), std::string::npos);  // rejected left out
  EXPECT_NE(page.find("r.csv (1 requests)"), std::string::npos);  // TPOT: one has one token
  EXPECT_NE(page.find("KV-cache occupancy"), std::string::npos);
  EXPECT_EQ(page.find("Step-time breakdown"), std::string::npos);
}

// A per-request CSV with max_tbt_s (docs/serving.md, "Time between
// tokens") gives a fourth distribution with the TBT objective's line.
TEST_F(PageTest, LongestGapBetweenTokensWithItsObjective) {
  const std::string requests =
      "request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,first_token_s,"
      "finish_s,ttft_s,tpot_s,e2e_s,max_tbt_s,tbt_over_slo\n"
      "0,0,r0,10,5,ok,0,0.05,0.3,0.05,0.0625,0.3,0.125,1\n";
  const std::string summary =
      R"({"name": "demo", "requests": "1", "completed": "1", "ttft_s": {"p50": 0.05},
          "slo_tbt_ms": 100})";
  const std::string page =
      render_page(load_report_inputs({file("s.json", summary), file("r.csv", requests)}));
  EXPECT_NE(page.find("longest gap between tokens: distribution over requests"), std::string::npos);
  EXPECT_NE(page.find("SLO 100 ms"), std::string::npos);
  // Without the column (kRequests), no such chart.
  EXPECT_EQ(render_page(load_report_inputs({file("r2.csv", kRequests)}))
                .find("longest gap between tokens"),
            std::string::npos);
}

TEST_F(PageTest, CapacitySearchAndFrontier) {
  const std::string capacity =
      "rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,meets_slo\n"
      "10,0.14,0.016,598,0,yes\n40,7.1,0.034,2391,0,no\n30.625,0.41,0.034,1838,0,yes\n";
  const std::string frontier =
      "topology,mesh,batch,tokens_per_s_per_chip,tpot_us\n"
      "v5e,tensor=x+y,8,181.9,2748.8\nv5e,tensor=x+y,1,30.2,2069.9\n";
  const ReportInputs in =
      load_report_inputs({file("cap.csv", capacity), file("front.csv", frontier)});
  ASSERT_EQ(in.capacity.size(), 1u);
  ASSERT_EQ(in.frontiers.size(), 1u);
  const std::string page = render_page(in);
  EXPECT_NE(page.find("highest rate that met the objectives: 30.62 /s"), std::string::npos);
  EXPECT_NE(page.find("p99 TTFT, missed"), std::string::npos);
  EXPECT_NE(page.find("batch 8, mesh tensor=x+y: 181.9 tokens/s per chip at 2.749 ms"),
            std::string::npos);
}

// podsim capacity --format csv: podsim.output.CapacityReport's columns, a
// row per serve run; an unattainable target's one row has no run.
TEST_F(PageTest, CapacityReportCsv) {
  const std::string capacity =
      "mode,status,objectives.percentile,answer.rate_per_s,runs.index,runs.rate_per_s,"
      "runs.ttft_s,runs.tpot_s,runs.meets_slo\n"
      "rate_search,ok,99,30.625,1,10,0.14,0.016,true\n"
      "rate_search,ok,99,30.625,2,40,7.1,0.034,false\n"
      "rate_search,ok,99,30.625,3,30.625,0.41,0.034,true\n";
  const ReportInputs in = load_report_inputs({file("cap.csv", capacity)});
  ASSERT_EQ(in.capacity.size(), 1u);
  const std::string page = render_page(in);
  EXPECT_NE(page.find("highest rate that met the objectives: 30.62 /s"), std::string::npos);
  EXPECT_NE(page.find("p99 TTFT, missed"), std::string::npos);
  EXPECT_NE(page.find("40 requests/s: TTFT 7100 ms"), std::string::npos);

  const std::string none =
      "mode,status,objectives.percentile,answer.rate_per_s,runs.index,runs.rate_per_s,"
      "runs.ttft_s,runs.tpot_s,runs.meets_slo\n"
      "rate_search,unattainable,99,0,,,,,\n";
  const std::string empty = render_page(load_report_inputs({file("none.csv", none)}));
  EXPECT_EQ(empty.find("highest rate that met"), std::string::npos);
}

TEST_F(PageTest, SameInputsSameBytes) {
  const std::vector<std::string> files = {file("sweep.csv", kSweep), file("s.json", kSummary),
                                          file("r.csv", kRequests), file("t.csv", kTimeseries)};
  EXPECT_EQ(render_page(load_report_inputs(files)), render_page(load_report_inputs(files)));
}

TEST_F(PageTest, ShippedBaselineRendersAndEscapesFileNames) {
  const char* root = std::getenv("PODSIM_SOURCE_DIR");
  const fs::path baseline =
      fs::path(root != nullptr ? root : ".") / "tests/regression/baselines/serving.csv";
  ASSERT_TRUE(fs::exists(baseline)) << baseline;
  const std::string hostile = file("<script>alert(1)<.csv", kSweep);
  const std::string page = render_page(load_report_inputs({baseline.string(), hostile}));
  EXPECT_NE(page.find("Step-time breakdown"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;.csv"), std::string::npos);
}

void expect_refused(const std::vector<std::string>& files, const std::string& message) {
  try {
    render_page(load_report_inputs(files));
    ADD_FAILURE() << "accepted; expected: " << message;
  } catch (const ReportInputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST_F(PageTest, BadInputsAreNamed) {
  expect_refused({(dir_ / "missing.csv").string()}, "missing.csv: cannot read");
  expect_refused({file("empty.csv", "\n  \n")}, "empty.csv: empty");
  expect_refused({file("other.csv", "a,b\n1,2\n")}, "other.csv: a CSV whose header");
  expect_refused({file("ragged.csv", "a,b\n1\n")}, "ragged.csv:2");
  std::string bad_step = kSweep;
  bad_step.replace(bad_step.find(",1000,"), 6, ",lots,");
  expect_refused({file("bad.csv", bad_step)},
                 "bad.csv:2: column 'serving.step_time_us' is not a finite number: 'lots'");
  expect_refused({file("j.json", R"({"hello": 1})")}, "j.json: JSON that is neither");
  expect_refused({file("broken.json", "{\"name\": ")}, "broken.json:1: not valid JSON");
  expect_refused({file("bin.binpb", std::string("\x08\x01\xff\xfe\x00\x01", 6))},
                 "bin.binpb: binary, but not a podsim.Result");
  expect_refused({file("summary.csv", "name,ttft_s.p99\nx,1\n")}, "--summary-json");
  expect_refused({file("nan.csv", std::string(kRequests) + "3,1,r0,1,1,ok,0,1,1,nan,,1\n")},
                 "nan.csv:5: column 'ttft_s' is not a finite number");
  expect_refused({file("copies.csv", "copies,rate_per_s,ttft_p99_s,meets_slo\n1,2,3,yes\n")},
                 "copies.csv: a `podsim capacity --target-rate` table");
  expect_refused({}, "no input files");
}

}  // namespace
}  // namespace podsim::html
