// `podsim topo --format json` from a summary, read back into its schema
// (proto/podsim/topology_report.proto) with Protobuf's JSON parser.
#include "report/topology_report.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <sstream>

#include "podsim/topology_report.pb.h"

namespace podsim::report {
namespace {

TopologySummary summary() {
  TopologySummary s;
  s.name = "pod";
  s.chip = "chip";
  s.chips = 8;
  s.dims = {{"x", 8, false, 50, 100, 1000}};
  s.ici_links = 14;
  s.diameter_hops = 7;
  return s;
}

output::TopologyReport read_back(const TopologySummary& s, std::string* text = nullptr) {
  std::ostringstream out;
  render_topology(s, Format::kJson, out);
  output::TopologyReport r;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(out.str(), &r).ok()) << out.str();
  if (text != nullptr) {
    *text = out.str();
  }
  return r;
}

TEST(TopologyReport, JsonReadsBackIntoItsSchema) {
  const output::TopologyReport r = read_back(summary());
  EXPECT_EQ(r.name(), "pod");
  EXPECT_EQ(r.shape(), "8");
  ASSERT_EQ(r.dims_size(), 1);
  EXPECT_EQ(r.dims(0).hop_latency_ns(), 1000.0);
  EXPECT_FALSE(r.dims(0).wraparound());
  EXPECT_TRUE(r.dims(0).has_wraparound());  // written although false
  EXPECT_EQ(r.links(), 14U);
  EXPECT_EQ(r.diameter_hops(), 7U);
}

// Failed links that split a slice leave no diameter: the key is absent (the
// old writer wrote null), never a 0 that reads as a real diameter.
TEST(TopologyReport, DisconnectedPodHasNoDiameterKey) {
  TopologySummary s = summary();
  s.diameter_hops.reset();
  std::string text;
  const output::TopologyReport r = read_back(s, &text);
  EXPECT_FALSE(r.has_diameter_hops());
  EXPECT_EQ(text.find("diameter_hops"), std::string::npos) << text;
  EXPECT_TRUE(r.has_chip_ici_bandwidth_gbps());
}

}  // namespace
}  // namespace podsim::report
