// Disaggregated prefill and decode replicas (issue 14 points 2 and 6: "a
// disaggregated configuration pays the KV transfer it should", over "ICI or
// DCN (using the point-to-point transfers of the network layer)"). A cache's move
// is checked against `podsim run` (study::evaluate_in_detail) of the SEND
// operation list that moves the same bytes on the same multi-slice pod.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "fleet/kv_transfer.h"
#include "fleet_fixture.h"
#include "study/evaluate.h"

namespace podsim::fleet {
namespace disaggregation_test {

using testing::LinearTimer;

constexpr uint64_t kKvBytesPerToken = 1000;  // per chip
constexpr double kDcnGBps = 1.0;             // per chip, each way

// `slices` 2x2 slices (4 chips, v5e-like) joined by DCN at 1 GB/s per chip, 10 us.
config::PodSpec slices_over_dcn(uint32_t slices) {
  config::PodSpec s;
  s.name = "kv-test";
  s.chip.name = "v5e-like";
  s.chip.peak_bf16_flops = 1.97e14;
  s.chip.peak_int8_ops = 3.94e14;
  s.chip.hbm_bytes = 16'000'000'000;
  s.chip.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  s.chip.mxu_count = 4;
  s.chip.mxu_rows = 128;
  s.chip.mxu_columns = 128;
  s.chip.mxu_clock_hz = 1.5e9;
  s.chip.ici_ports = 4;
  for (const char* name : {"x", "y"}) {
    config::DimensionSpec d;
    d.name = name;
    d.size = 2;
    d.link_bandwidth = sim::Bandwidth::from_gbps(50);
    d.hop_latency = sim::Time::us(1);
    s.torus.dims.push_back(d);
  }
  s.slices = slices;
  s.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(kDcnGBps), sim::Time::us(10)};
  return s;
}

FleetSetup pools(StepTimer& timer, uint32_t prefills, uint32_t decodes,
                 net::Model model = net::Model::kFlow) {
  FleetSetup setup;
  for (uint32_t i = 0; i < prefills + decodes; ++i) {
    ReplicaSetup r = testing::replica(timer, config::SchedulerKind::kContinuous, 16, 4096, 100000);
    r.role = i < prefills ? ReplicaRole::kPrefill : ReplicaRole::kDecode;
    r.chips = 4;
    r.kv_bytes_per_token = kKvBytesPerToken;
    setup.replicas.push_back(r);
    setup.kv_transfer.place.push_back(config::KvPlacement{i, {}});
  }
  setup.kv_transfer.pod = std::make_shared<const topo::Pod>(slices_over_dcn(prefills + decodes));
  setup.kv_transfer.model = model;
  return setup;
}

// What `podsim run` gives for caches of `tokens` each leaving slice 0 for
// slice 1 at once (one SEND operation each, none waiting for another): the
// end of each operation.
std::vector<sim::Time> podsim_run(const std::vector<uint64_t>& tokens,
                                  net::Model model = net::Model::kFlow) {
  const topo::Pod pod(slices_over_dcn(2));
  config::WorkloadSpec w;
  w.name = "kv-sends";
  for (size_t i = 0; i < tokens.size(); ++i)
    w.operations.push_back(
        config::OperationSpec{"cache" + std::to_string(i),
                              {},
                              1,
                              kv_send(pod, {}, {0, {}}, {1, {}}, tokens[i] * kKvBytesPerToken)});
  study::RunOptions options;
  options.network.model = model;
  const study::Evaluation e = study::evaluate_in_detail(pod, w, options);
  std::vector<sim::Time> ends;
  if (!e.op_list)
    return ends;
  for (const engine::OperationResult& op : e.op_list->operations)
    ends.push_back(op.end - op.start);
  return ends;
}

TEST(Disaggregation, ALoneRequestPaysItsPrefillTheNetworksTransferAndItsDecodes) {
  for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
    SCOPED_TRACE(std::string(net::to_string(model)));
    LinearTimer timer;
    FleetSetup setup = pools(timer, 1, 1, model);
    setup.arrivals = make_arrival_process(testing::trace_of({{0, 500, 4}}), 0);
    const FleetRun r = simulate(std::move(setup));
    ASSERT_EQ(r.requests.size(), 1u);
    const RequestRecord& q = r.requests[0];
    LinearTimer formula;
    const sim::Time prefill = formula.step_time(StepShape{1, 500, 0, 0, 0});
    const std::vector<sim::Time> run = podsim_run({500}, model);
    ASSERT_EQ(run.size(), 1u);
    const sim::Time transfer = run[0];
    // 500 tokens x 1000 B per chip over each chip's own 1 GB/s DCN link: 0.5 ms
    // plus the DCN latency (and the ICI-free route: slice to slice).
    EXPECT_NEAR(transfer.to_s(), 0.5e-3 + 10e-6, 0.01e-3);
    sim::Time decode;
    for (uint32_t k = 0; k < 3; ++k)
      decode += formula.step_time(StepShape{0, 0, 0, 1, 500 + k});
    EXPECT_EQ(q.replica, 0u);
    EXPECT_EQ(q.decode_replica, 1u);
    EXPECT_EQ(q.first_token - q.arrival, prefill);
    EXPECT_EQ(q.kv_transfer.count_ps(), transfer.count_ps());
    EXPECT_EQ((q.finish - q.arrival).count_ps(), (prefill + transfer + decode).count_ps());
    EXPECT_EQ(r.replicas[0].decode_tokens, 0u) << "the prefill replica never decodes";
    EXPECT_EQ(r.replicas[1].prefill_tokens, 0u) << "the decode replica never prefills";
    EXPECT_EQ(r.replicas[1].decode_tokens, 3u);
  }
}

TEST(Disaggregation, CachesInFlightTogetherShareTheDcnLinksAsTheFlowModelSays) {
  LinearTimer timer;
  FleetSetup setup = pools(timer, 1, 1);
  setup.replicas[0].limits.max_batch = 2;
  // A short request first keeps the prefill replica busy, so the next two
  // prefill in one step and their caches leave together: each chip's DCN
  // link carries both, max-min fairly (half each) until the smaller is done.
  setup.arrivals =
      make_arrival_process(testing::trace_of({{0, 10, 1}, {0.001, 500, 2}, {0.001, 250, 2}}), 0);
  const FleetRun r = simulate(std::move(setup));
  ASSERT_EQ(r.requests.size(), 3u);
  EXPECT_EQ(r.requests[1].first_token, r.requests[2].first_token) << "one prefill step";
  const std::vector<sim::Time> together = podsim_run({500, 250});
  ASSERT_EQ(together.size(), 2u);
  EXPECT_EQ(r.requests[1].kv_transfer.count_ps(), together[0].count_ps());
  EXPECT_EQ(r.requests[2].kv_transfer.count_ps(), together[1].count_ps());
  // Contention: each takes longer than alone. The smaller one at half rate
  // (2 x 0.25 ms), the larger 0.75 ms in all (the link is busy throughout).
  const sim::Time alone = podsim_run({500})[0];
  EXPECT_GT(r.requests[1].kv_transfer, alone);
  EXPECT_GT(r.requests[2].kv_transfer, podsim_run({250})[0]);
  EXPECT_NEAR(r.requests[2].kv_transfer.to_s(), 0.5e-3 + 10e-6, 0.01e-3);
  EXPECT_NEAR(r.requests[1].kv_transfer.to_s(), 0.75e-3 + 10e-6, 0.01e-3);
}

TEST(Disaggregation, CachesOnDisjointLinksDoNotWaitForEachOther) {
  // Two prefill slices sending to two decode slices at once: every chip has
  // its own DCN up and down link, so two caches between four different slices
  // take the time of one.
  LinearTimer timer;
  FleetSetup setup = pools(timer, 2, 2);
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 500, 2}, {0, 500, 2}}), 0);
  const FleetRun r = simulate(std::move(setup));
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_NE(r.requests[0].replica, r.requests[1].replica);
  EXPECT_NE(r.requests[0].decode_replica, r.requests[1].decode_replica);
  EXPECT_EQ(r.requests[0].kv_transfer.count_ps(), podsim_run({500})[0].count_ps());
  EXPECT_EQ(r.requests[1].kv_transfer.count_ps(), podsim_run({500})[0].count_ps());
}

// Over ICI: a 4x4 slice (lines, 50 GB/s links) whose left half (x 0-1) is
// the prefill replica and right half (x 2-3) the decode replica, both 2x2.
TEST(Disaggregation, OverIciACacheCrossesTheSlicesLinksAsPodsimRunSays) {
  config::PodSpec ici = slices_over_dcn(1);
  ici.dcn.reset();
  ici.torus.dims[0].size = 4;
  ici.torus.dims[1].size = 4;
  const std::vector<uint32_t> shape = {2, 2};
  const config::KvPlacement left{0, {0, 0}};
  const config::KvPlacement right{0, {2, 0}};
  LinearTimer timer;
  FleetSetup setup = pools(timer, 1, 1);
  setup.kv_transfer.pod = std::make_shared<const topo::Pod>(ici);
  setup.kv_transfer.shape = shape;
  setup.kv_transfer.place = {left, right};
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 500, 2}}), 0);
  const FleetRun r = simulate(std::move(setup));
  ASSERT_EQ(r.requests.size(), 1u);

  const topo::Pod pod(ici);
  config::WorkloadSpec w;
  w.name = "kv-ici";
  const config::CollectiveSpec send = kv_send(pod, shape, left, right, 500 * kKvBytesPerToken);
  ASSERT_EQ(send.pairs.size(), 4u);
  EXPECT_EQ(send.pairs[1].src.coords, (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(send.pairs[1].dst.coords, (std::vector<uint32_t>{3, 0}));
  w.operations.push_back(config::OperationSpec{"cache", {}, 1, send});
  const study::Evaluation e = study::evaluate_in_detail(pod, w, study::RunOptions{});
  ASSERT_TRUE(e.op_list.has_value());
  const sim::Time run = e.op_list->operations[0].end - e.op_list->operations[0].start;
  EXPECT_EQ(r.requests[0].kv_transfer.count_ps(), run.count_ps());
  // Each row's two pairs, (0,y)->(2,y) and (1,y)->(3,y), both cross the link
  // (1,y)->(2,y): 0.5 MB each at half of 50 GB/s, then two 1 us hops.
  EXPECT_NEAR(run.to_s(), 0.5e6 / 25e9 + 2e-6, 0.1e-6);
}

TEST(Disaggregation, RunsAreDeterministic) {
  auto once = [] {
    LinearTimer timer;
    FleetSetup setup = pools(timer, 2, 3);
    config::ArrivalSpec spec;
    spec.kind = config::ArrivalKind::kPoisson;
    spec.rate_per_s = 200;
    spec.prompt.kind = config::LengthKind::kUniform;
    spec.prompt.min = 1;
    spec.prompt.max = 800;
    spec.output.kind = config::LengthKind::kFixed;
    spec.output.min = spec.output.max = 8;
    setup.arrivals = make_arrival_process(spec, 5);
    setup.max_requests = 300;
    return simulate(std::move(setup));
  };
  const FleetRun a = once();
  const FleetRun b = once();
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i)
    EXPECT_EQ(a.requests[i].kv_transfer.count_ps(), b.requests[i].kv_transfer.count_ps()) << i;
}

TEST(Disaggregation, PoolsServeEveryRequestAndSplitTheWork) {
  LinearTimer timer;
  FleetSetup setup = pools(timer, 2, 3);
  setup.router = config::RouterKind::kLeastOutstandingTokens;
  config::ArrivalSpec spec;
  spec.kind = config::ArrivalKind::kPoisson;
  spec.rate_per_s = 30;
  spec.prompt.kind = config::LengthKind::kUniform;
  spec.prompt.min = 1;
  spec.prompt.max = 800;
  spec.output.kind = config::LengthKind::kUniform;
  spec.output.min = 1;
  spec.output.max = 300;
  setup.arrivals = make_arrival_process(spec, 3);
  setup.max_requests = 3000;
  const FleetRun r = simulate(std::move(setup));
  uint64_t prompts = 0;
  uint64_t decodes = 0;
  for (const RequestRecord& q : r.requests) {
    ASSERT_TRUE(q.done);
    EXPECT_LT(q.replica, 2u);
    if (q.output_tokens > 1) {
      EXPECT_GE(q.decode_replica, 2u);
      EXPECT_GT(q.kv_transfer, sim::Time());
    }
    prompts += q.prompt_tokens;
    decodes += q.output_tokens - 1;
  }
  EXPECT_EQ(r.replicas[0].prefill_tokens + r.replicas[1].prefill_tokens, prompts);
  uint64_t decoded = 0;
  for (size_t i = 2; i < 5; ++i) {
    decoded += r.replicas[i].decode_tokens;
    EXPECT_GT(r.replicas[i].decode_tokens, 0u) << "every decode replica gets work";
  }
  EXPECT_EQ(decoded, decodes);
}

}  // namespace disaggregation_test
}  // namespace podsim::fleet
