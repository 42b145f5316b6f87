// study::evaluate(): the Result of each workload form, of a configuration
// that does not fit, of inputs that do not load, and from several threads.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <thread>

#include "report/result_inputs.h"
#include "result_support.h"
#include "workload/model_math.h"

namespace podsim::study {
namespace {

using google::protobuf::util::MessageDifferencer;
using testing::analytical;
using testing::load;

TEST(Evaluate, ServingStepCarriesItsInputsAndFigures) {
  const auto in = load("v5e-4x4.textproto", "llama3-8b-decode-v5e.textproto");
  const podsim::Result r = evaluate(in.pod, in.workload, analytical());
  EXPECT_EQ(r.status(), podsim::Result::ok);
  EXPECT_EQ(r.reason(), "");
  EXPECT_EQ(r.schema_version(), report::kResultSchemaVersion);
  EXPECT_EQ(r.podsim_version(), report::podsim_version());
  const auto& t = r.inputs().topology();
  EXPECT_EQ(t.name(), in.pod.spec().name);
  EXPECT_EQ(t.chips(), 16U);
  ASSERT_EQ(t.dims_size(), 2);
  EXPECT_EQ(t.dims(0).size(), 4U);
  EXPECT_DOUBLE_EQ(t.dims(0).link_bandwidth_gbps(),
                   in.pod.spec().torus.dims[0].link_bandwidth.gbps());
  EXPECT_GT(t.dims(0).hop_latency_ns(), 0);
  EXPECT_EQ(t.chip().hbm_bytes(), in.pod.spec().chip.hbm_bytes);
  EXPECT_GT(t.chip().peak_bf16_flops(), 0);
  EXPECT_GT(t.chip().mxu_rows(), 0U);
  EXPECT_GT(t.chip().mxu_clock_hz(), 0);
  EXPECT_EQ(t.calibration().source(), in.pod.spec().calibration.source);
  const auto& w = r.inputs().workload();
  EXPECT_EQ(w.form(), "serving");
  EXPECT_EQ(w.name(), in.workload.name);
  EXPECT_EQ(r.inputs().run().network(), "analytical");
  EXPECT_EQ(r.inputs().run().compute(), "roofline");
  const auto& sv = r.inputs().serving();
  EXPECT_EQ(sv.model().name(), "LLaMA-3-8B");
  EXPECT_EQ(sv.scenario().phase(), "decode");
  EXPECT_EQ(sv.scenario().batch(), in.workload.serving->scenario.batch);
  EXPECT_EQ(sv.sharding().tensor_axes_size(),
            static_cast<int>(in.workload.serving->sharding.tensor_axes.size()));
  const auto& s = r.serving();
  EXPECT_TRUE(s.simulated());
  EXPECT_GT(s.step_time_us(), 0);
  EXPECT_NEAR(s.compute_us() + s.memory_us() + s.collective_exposed_us() + s.idle_us(),
              s.step_time_us(), 1e-6 * s.step_time_us());
  EXPECT_TRUE(s.memory().fits());
  EXPECT_GT(s.by_layer_size(), 0);
  EXPECT_GT(s.by_op_class_size(), 0);
  EXPECT_GT(s.chips_breakdown_size(), 0);
  EXPECT_FALSE(r.has_op_list());
  EXPECT_FALSE(r.has_link_stats());
}

// Padded heads: the inputs record the field and the real model; MFU counts
// the real model's FLOPs. 18 heads over 6 KV heads on the 4 chips of y (2D)
// pad to 24 over 8.
TEST(Evaluate, PaddedHeadsAreRecordedAndMfuCountsTheRealModel) {
  auto in = load("v5e-4x4.textproto", "llama3-8b-decode-v5e.textproto");
  config::ServingSpec& serving = *in.workload.serving;
  serving.model.heads = 18;
  serving.model.kv_heads = 6;
  serving.sharding.pad_heads = true;
  const podsim::Result r = evaluate(in.pod, in.workload, analytical());
  ASSERT_EQ(r.status(), podsim::Result::ok) << r.reason();
  EXPECT_TRUE(r.inputs().serving().sharding().pad_heads());
  EXPECT_EQ(r.inputs().serving().model().heads(), 18U);
  EXPECT_EQ(r.inputs().serving().model().kv_heads(), 6U);
  const double flops = workload::model_flops(serving);
  const double capacity =
      r.serving().step_time_us() * 1e-6 * 16 * in.pod.spec().chip.peak_bf16_flops;
  EXPECT_NEAR(r.serving().mfu() * capacity, flops, 1e-6 * flops);
}

TEST(Evaluate, OperationListGivesEveryOperation) {
  const auto in = load("v5e-4x4.textproto", "matmul-allreduce-v5e-4x4.textproto");
  RunOptions o = analytical();
  o.link_stats = true;
  const podsim::Result r = evaluate(in.pod, in.workload, o);
  EXPECT_EQ(r.status(), podsim::Result::ok);
  EXPECT_EQ(r.inputs().workload().form(), "op_list");
  EXPECT_EQ(r.inputs().workload().operations(), in.workload.operations.size());
  ASSERT_EQ(r.op_list().operations_size(), static_cast<int>(in.workload.operations.size()));
  bool compute = false;
  bool collective = false;
  for (const auto& op : r.op_list().operations()) {
    EXPECT_GE(op.end_us(), op.start_us());
    if (op.bound() == "network") {
      collective = true;
      EXPECT_GT(op.collective().group_size(), 1U);
      EXPECT_GT(op.collective().algbw_gbps(), 0);
      EXPECT_FALSE(op.collective().schedule().empty());
    } else {
      compute = true;
      EXPECT_GT(op.compute().flops(), 0);
      EXPECT_EQ(op.compute().hbm_bytes(), op.bytes());
    }
  }
  EXPECT_TRUE(compute);
  EXPECT_TRUE(collective);
  EXPECT_GT(r.op_list().makespan_us(), 0);
  EXPECT_EQ(r.link_stats().links_size(), static_cast<int>(in.pod.links().size()));
  EXPECT_FALSE(r.has_serving());
}

TEST(Evaluate, ConfigurationThatDoesNotFitIsAnOomResult) {
  config::PodSpec spec =
      config::load_topology_file(testing::root() / "topologies/v5e-4x4.textproto");
  spec.chip.hbm_bytes = 1'600'000'000;  // a tenth of a v5e's
  const config::WorkloadSpec w = config::load_workload_file(
      testing::root() / "workloads/llama3-8b-decode-v5e.textproto", spec);
  const topo::Pod pod(std::move(spec));
  const podsim::Result r = evaluate(pod, w, analytical());
  EXPECT_EQ(r.status(), podsim::Result::oom);
  EXPECT_NE(r.reason().find("does not fit in HBM"), std::string::npos) << r.reason();
  EXPECT_FALSE(r.serving().simulated());
  EXPECT_FALSE(r.serving().memory().fits());
  EXPECT_GT(r.serving().memory().hbm_used_bytes(), r.serving().memory().hbm_capacity_bytes());
  EXPECT_EQ(r.serving().step_time_us(), 0);
  EXPECT_EQ(r.inputs().topology().chip().hbm_bytes(), 1'600'000'000U);

  RunOptions allow = analytical();
  allow.allow_oom = true;
  const podsim::Result sim = evaluate(pod, w, allow);
  EXPECT_EQ(sim.status(), podsim::Result::ok);
  EXPECT_TRUE(sim.serving().simulated());
  EXPECT_FALSE(sim.serving().memory().fits());
  EXPECT_TRUE(sim.inputs().run().allow_oom());
}

TEST(Evaluate, InputsThatDoNotLoadAreAnInvalidResult) {
  const config::PodSpec pod = config::default_topology();
  const RunOptions options = analytical();
  try {
    config::parse_topology_text("torus { dims { size: 0 } }", "bad.textproto");
    FAIL() << "the topology should not load";
  } catch (const config::InputError& e) {
    KnownInputs known;
    known.topology_file = "bad.textproto";
    known.workload_file = "w.textproto";
    known.options = &options;
    const podsim::Result r = invalid_result(e, known);
    EXPECT_EQ(r.status(), podsim::Result::invalid);
    EXPECT_EQ(r.reason(), e.what());
    EXPECT_NE(r.reason().find("bad.textproto"), std::string::npos);
    EXPECT_EQ(r.inputs().topology().file(), "bad.textproto");
    EXPECT_EQ(r.inputs().workload().file(), "w.textproto");
    EXPECT_EQ(r.inputs().run().network(), "analytical");
    EXPECT_TRUE(r.has_serving());  // the kind of an unknown form
    // Known topology: its inputs are filled.
    known.pod = &pod;
    const podsim::Result with_pod = invalid_result(e, known);
    EXPECT_EQ(with_pod.inputs().topology().name(), pod.name);
    EXPECT_EQ(with_pod.inputs().topology().dims_size(), 2);
  }
}

TEST(Evaluate, ThreadsOnDifferentInputsGiveTheSequentialResults) {
  const auto a = load("v5e-4x4.textproto", "llama3-8b-decode-v5e.textproto");
  const auto b = load("v5e-4x4.textproto", "collectives-tour-v5e-4x4.textproto");
  const podsim::Result ra = evaluate(a.pod, a.workload, analytical());
  const podsim::Result rb = evaluate(b.pod, b.workload, RunOptions{});
  podsim::Result ta;
  podsim::Result tb;
  std::thread t1([&] { ta = evaluate(a.pod, a.workload, analytical()); });
  std::thread t2([&] { tb = evaluate(b.pod, b.workload, RunOptions{}); });
  t1.join();
  t2.join();
  EXPECT_TRUE(MessageDifferencer::Equals(ra, ta));
  EXPECT_TRUE(MessageDifferencer::Equals(rb, tb));
}

}  // namespace
}  // namespace podsim::study
