// sharding.collective_matmul simulated end to end (study/collective_matmul.h,
// workload/collective_matmul.cc) on TPU v5p 4x4x4, whose axes are rings:
// LLaMA-3-70B's layer shapes (8 of its 80 layers, to keep the test quick).
// Looping hides most of the exposed tensor-parallel time of a large prefill
// and little of a batch-1 decode, and AUTO is never slower than the plain
// collectives; over v5e's lines and over an axis of two torus dimensions
// too.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "result_support.h"

namespace podsim::study {
namespace {

using testing::root;

// On a 3D slice (x, y, z) or a 2D one (x, y).
std::string workload_text(bool three_d) {
  return std::string(R"pb(
           name: "cm"
           mesh { axes { name: "x" dims: "x" }
                  axes { name: "y" dims: "y" })pb") +
         (three_d ? R"pb(
                axes { name: "z" dims: "z" })pb"
                  : "") +
         R"pb(
           }
           model {
    name: "LLaMA-3-70B, 8 layers"
    layers: 8
    d_model: 8192
    heads: 64
    kv_heads: 8
    head_dim: 128
    ffn_dim: 28672
    gated_ffn: true
    vocab: 128256
  }
  scenario { phase: PREFILL batch: 64 prompt_len: 2048 }
  sharding { tensor_axes: "x" data_axes: "y" )pb" +
         (three_d ? R"pb(data_axes: "z")pb" : "") + "}\n";
}

struct Outcome {
  double step_us = 0;
  double exposed_us = 0;
  double hidden_us = 0;
  podsim::ServingResult serving;
};

Outcome run(const std::string& topology, std::vector<config::Override> overrides,
            const char* collective_matmul) {
  const config::PodSpec spec = config::load_topology_file(root() / "topologies" / topology);
  overrides.push_back({"workload.sharding.collective_matmul", collective_matmul});
  const config::WorkloadSpec w =
      config::parse_workload_text(workload_text(true), "cm.textproto", spec, overrides);
  const podsim::Result r = evaluate(topo::Pod(spec), w, RunOptions{});
  EXPECT_EQ(r.status(), podsim::Result::ok) << r.reason();
  return {r.serving().step_time_us(), r.serving().collective_exposed_us(),
          r.serving().collective_overlapped_us(), r.serving()};
}

const std::vector<config::Override> kOneDPrefill = {
    {"workload.sharding.tensor_collective", "TENSOR_REDUCE_SCATTER_ALL_GATHER"}};

TEST(CollectiveMatmulRun, ALargePrefillHidesMostOfItsCollectives) {
  const Outcome off = run("v5p-4x4x4.textproto", kOneDPrefill, "COLLECTIVE_MATMUL_OFF");
  const Outcome on = run("v5p-4x4x4.textproto", kOneDPrefill, "COLLECTIVE_MATMUL_ON");
  ASSERT_GT(off.exposed_us, 0.1 * off.step_us);  // a fifth of the step or so
  EXPECT_EQ(off.hidden_us, 0);                   // nothing overlaps a single sequence's chain
  EXPECT_LT(on.exposed_us, 0.5 * off.exposed_us);
  EXPECT_GT(on.hidden_us, 0.5 * off.exposed_us);
  EXPECT_LT(on.step_us, off.step_us);
  EXPECT_EQ(on.serving.collective_matmul(), "on");
  EXPECT_GT(on.serving.collective_matmul_looped(), 0U);
  EXPECT_EQ(off.serving.collective_matmul(), "off");
  EXPECT_EQ(off.serving.collective_matmul_looped(), 0U);
}

TEST(CollectiveMatmulRun, ABatchOneDecodeHidesLittle) {
  // 2D over x and y, one sequence per replica (heads over x and y): the
  // collectives are a few hops' latency each, the chunks tiny.
  const std::vector<config::Override> decode = {
      {"workload.scenario.phase", "DECODE"},       {"workload.scenario.batch", "4"},
      {"workload.scenario.prompt_len", "0"},       {"workload.scenario.context_len", "2048"},
      {"workload.sharding.tensor_axes", "[x, y]"}, {"workload.sharding.data_axes", "[z]"}};
  const Outcome off = run("v5p-4x4x4.textproto", decode, "COLLECTIVE_MATMUL_OFF");
  const Outcome on = run("v5p-4x4x4.textproto", decode, "COLLECTIVE_MATMUL_ON");
  ASSERT_GT(off.exposed_us, 0);
  EXPECT_LT(off.exposed_us - on.exposed_us, 0.3 * off.exposed_us);
}

TEST(CollectiveMatmulRun, AutoIsNeverSlowerAndKeepsTheFaster) {
  struct Point {
    const char* name;
    std::vector<config::Override> overrides;
  };
  const std::vector<config::Override> two_d = {{"workload.sharding.tensor_axes", "[x, y]"},
                                               {"workload.sharding.data_axes", "[z]"}};
  std::vector<Point> points;
  for (const char* batch : {"4", "16", "256"}) {
    std::vector<config::Override> d = two_d;
    d.push_back({"workload.scenario.phase", "DECODE"});
    d.push_back({"workload.scenario.prompt_len", "0"});
    d.push_back({"workload.scenario.context_len", "2048"});
    d.push_back({"workload.scenario.batch", batch});
    points.push_back({"2D decode", d});
  }
  points.push_back({"2D prefill", two_d});
  points.push_back({"1D RS+AG prefill", kOneDPrefill});
  bool chose_on = false;
  bool chose_off = false;
  for (const Point& p : points) {
    const Outcome off = run("v5p-4x4x4.textproto", p.overrides, "COLLECTIVE_MATMUL_OFF");
    const Outcome on = run("v5p-4x4x4.textproto", p.overrides, "COLLECTIVE_MATMUL_ON");
    const Outcome best = run("v5p-4x4x4.textproto", p.overrides, "COLLECTIVE_MATMUL_AUTO");
    EXPECT_LE(best.step_us, off.step_us) << p.name;
    EXPECT_EQ(best.step_us, std::min(off.step_us, on.step_us)) << p.name;
    EXPECT_EQ(best.serving.collective_matmul(), on.step_us < off.step_us ? "auto: on" : "auto: off")
        << p.name;
    (on.step_us < off.step_us ? chose_on : chose_off) = true;
  }
  // The grid holds steps where looping pays and steps where it does not
  // (chunks along the tokens re-read the weights).
  EXPECT_TRUE(chose_on);
  EXPECT_TRUE(chose_off);
}

// ON against OFF and AUTO for one workload text on one shipped topology.
struct ThreeWays {
  podsim::Result off, on, best;
};

ThreeWays three_ways(const std::string& topology, const std::string& text,
                     const std::vector<config::Override>& overrides) {
  const config::PodSpec spec = config::load_topology_file(root() / "topologies" / topology);
  ThreeWays t;
  for (auto [cm, out] :
       {std::pair{"COLLECTIVE_MATMUL_OFF", &t.off}, std::pair{"COLLECTIVE_MATMUL_ON", &t.on},
        std::pair{"COLLECTIVE_MATMUL_AUTO", &t.best}}) {
    std::vector<config::Override> o = overrides;
    o.push_back({"workload.sharding.collective_matmul", cm});
    *out = evaluate(topo::Pod(spec), config::parse_workload_text(text, "cm.textproto", spec, o),
                    RunOptions{});
    EXPECT_EQ(out->status(), podsim::Result::ok) << out->reason();
  }
  return t;
}

// Looping pays, AUTO keeps it, and the breakdown shows the time it hides.
void expect_looping_pays(const ThreeWays& t) {
  const podsim::ServingResult& off = t.off.serving();
  const podsim::ServingResult& on = t.on.serving();
  EXPECT_EQ(off.collective_matmul_looped(), 0U);
  EXPECT_GT(on.collective_matmul_looped(), 0U);
  EXPECT_EQ(on.collective_matmul_whole(), 0U) << on.collective_matmul_whole_reasons();
  EXPECT_LT(on.step_time_us(), off.step_time_us());
  EXPECT_LT(on.collective_exposed_us(), off.collective_exposed_us());
  EXPECT_GT(on.collective_overlapped_us(), off.collective_overlapped_us());
  EXPECT_EQ(t.best.serving().step_time_us(), on.step_time_us());
  EXPECT_EQ(t.best.serving().collective_matmul(), "auto: on");
}

TEST(CollectiveMatmulRun, LinesLoopOnV5e) {
  // v5e 4x4 has no wraparound: the tensor axis x is a 4-chip line, and the
  // loop's cyclic shifts cross it back (workload/collective_matmul.cc).
  const ThreeWays t =
      three_ways("v5e-4x4.textproto", workload_text(false),
                 {{"workload.sharding.tensor_axes", "[x]"},
                  {"workload.sharding.data_axes", "[y]"},
                  {"workload.sharding.tensor_collective", "TENSOR_REDUCE_SCATTER_ALL_GATHER"},
                  {"workload.scenario.batch", "16"},
                  {"workload.model.layers", "2"}});
  expect_looping_pays(t);
}

TEST(CollectiveMatmulRun, AnAxisOverTwoTorusDimensionsLoopsOnV4) {
  // Tensor parallelism over [y, z] of the v4 4x4x4 (16 chips, one mesh axis
  // over two rings), LLaMA-3-405B's layer shapes: its FFN's chunks hide
  // their shifts.
  const std::string text = R"pb(
    name: "cm-yz"
    mesh {
      axes {
        name: "model"
        dims: [ "y", "z" ]
      }
      axes { name: "data" dims: "x" }
    }
    model {
      name: "LLaMA-3-405B, 2 layers"
      layers: 2
      d_model: 16384
      heads: 128
      kv_heads: 8
      head_dim: 128
      ffn_dim: 53248
      gated_ffn: true
      vocab: 128256
    }
    scenario { phase: PREFILL batch: 16 prompt_len: 2048 }
    sharding {
      tensor_axes: "model"
      tensor_collective: TENSOR_REDUCE_SCATTER_ALL_GATHER
      data_axes: "data"
    }
  )pb";
  expect_looping_pays(three_ways("v4-4x4x4.textproto", text, {}));
}

TEST(CollectiveMatmulRun, AParallelBlockLoopsBetweenItsFusedProjections) {
  // The shipped PaLM 62B (parallel block, 2D weight-stationary over x and
  // [y, z] of the v4 4x4x4) as a prefill of 64 prompts: its fused
  // projections' collectives over x loop, and the step is faster.
  std::ifstream in(root() / "workloads/palm-62b-decode-v4.textproto");
  std::stringstream text;
  text << in.rdbuf();
  const ThreeWays t = three_ways("v4-4x4x4.textproto", text.str(),
                                 {{"workload.scenario.phase", "PREFILL"},
                                  {"workload.scenario.prompt_len", "2048"},
                                  {"workload.scenario.context_len", "0"},
                                  {"workload.scenario.batch", "64"},
                                  {"workload.sharding.kv_layout", "KV_BY_HEADS"},
                                  {"workload.model.layers", "4"}});
  EXPECT_EQ(t.on.serving().collective_matmul_looped(), 8U);  // two per layer
  EXPECT_EQ(t.on.serving().collective_matmul_whole_reasons().find("parallel block"),
            std::string::npos);
  EXPECT_LT(t.on.serving().step_time_us(), t.off.serving().step_time_us());
  EXPECT_LT(t.on.serving().collective_exposed_us(), t.off.serving().collective_exposed_us());
  EXPECT_EQ(t.best.serving().step_time_us(), t.on.serving().step_time_us());
}

}  // namespace
}  // namespace podsim::study
