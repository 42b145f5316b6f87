// Energy (issue 30; engine/energy.h, docs/energy.md) end to end on shipped
// inputs: the parts add up to the total both ways and to power x time per
// chip; a folded or symmetric run reports the same joules as a full one,
// bit for bit; idle power doubled doubles idle energy only; the ICI energy
// is every link's bytes priced; the clock knob trades time for energy as
// the voltage law says.
#include "engine/energy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "config/dvfs.h"
#include "engine/link_usage.h"
#include "result_support.h"
#include "study/generation.h"

namespace podsim::study {
namespace {

using testing::root;

config::PodSpec topology(const std::string& file, const std::vector<std::string>& sets = {}) {
  config::Overrides o;
  for (const std::string& s : sets)
    o.push_back(config::parse_override(s));
  return config::load_topology_file(root() / "topologies" / file, o);
}

struct EnergyRun {
  Evaluation ev;
  const engine::StepEnergy& energy() const { return ev.serving->summary.energy; }
  const engine::StepResult& step() const { return ev.serving->step; }
};

EnergyRun run_energy(const config::PodSpec& spec, const std::string& workload,
                     RunOptions options = {}) {
  const topo::Pod pod(spec);
  const config::WorkloadSpec w = config::load_workload_file(root() / "workloads" / workload, spec);
  EnergyRun r{evaluate_in_detail(pod, w, options)};
  EXPECT_EQ(r.ev.result.status(), podsim::Result::ok) << r.ev.result.reason();
  return r;
}

TEST(Energy, WorkEnergyIsEachCountTimesItsEnergy) {
  config::PowerSpec p;
  p.mxu_bf16_pj_per_flop = 0.25;
  p.mxu_int8_pj_per_op = 0.125;
  p.mxu_fp8_pj_per_flop = 0.5;
  p.vector_pj_per_flop = 2;
  p.hbm_pj_per_byte = 30;
  p.vmem_pj_per_byte = 0.5;
  chip::WorkDone w;
  w.mxu_bf16_flops = 4e6;
  w.mxu_int8_ops = 8e6;
  w.mxu_fp8_flops = 2e6;
  w.vector_flops = 1000;
  w.hbm_bytes = 1e5;
  w.vmem_bytes = 3;  // 1.5 pJ rounds to 2
  const engine::EnergyParts e = engine::work_energy(w, p);
  EXPECT_EQ(e.mxu_pj, 1'000'000 + 1'000'000 + 1'000'000);
  EXPECT_EQ(e.vector_pj, 2000);
  EXPECT_EQ(e.hbm_pj, 3'000'000);
  EXPECT_EQ(e.vmem_pj, 2);
  EXPECT_EQ(e.idle_pj + e.host_pj + e.ici_pj + e.dcn_pj, 0);
}

TEST(Energy, PartsAddUpBothWaysAndStaticPowerIsPowerTimesTime) {
  const config::PodSpec spec = topology("v5e-4x4.textproto");
  const EnergyRun r = run_energy(spec, "llama3-8b-decode-v5e.textproto");
  const engine::StepEnergy& e = r.energy();
  ASSERT_TRUE(e.modelled);
  EXPECT_EQ(e.powered_chips, 16u);
  EXPECT_EQ(e.parts.total(), e.classes.total());
  const int64_t t_ps = r.step().step_time.count_ps();
  const config::PowerSpec& p = spec.chip.power;
  for (const engine::ChipEnergy& c : e.chips) {
    EXPECT_EQ(c.parts.total(), c.classes.total());
    // Host power over the whole step, exactly; idle power too, to the
    // rounding of its four classes (at most 2 pJ).
    EXPECT_EQ(c.parts.host_pj, std::llround(p.host_watts * static_cast<double>(t_ps)));
    EXPECT_NEAR(static_cast<double>(c.parts.idle_pj), p.idle_watts * static_cast<double>(t_ps),
                2.0);
    EXPECT_GT(c.parts.hbm_pj, 0);
    EXPECT_GT(c.parts.mxu_pj, 0);
  }
  // The result's figures are the engine's.
  const podsim::Energy& out = r.ev.result.serving().energy();
  EXPECT_DOUBLE_EQ(out.step_j(), static_cast<double>(e.parts.total()) * 1e-12);
  EXPECT_DOUBLE_EQ(out.mean_power_w(),
                   static_cast<double>(e.parts.total()) / static_cast<double>(t_ps));
  EXPECT_DOUBLE_EQ(out.j_per_token() * static_cast<double>(r.ev.result.serving().tokens()),
                   out.step_j());
  EXPECT_GE(out.peak_power_w(), out.mean_power_w());
}

TEST(Energy, IciEnergyIsEveryLinksBytesPriced) {
  const config::PodSpec spec = topology("v5e-4x4.textproto");
  const EnergyRun r = run_energy(spec, "llama3-8b-decode-v5e.textproto");
  const topo::Pod pod(spec);
  const net::LinkStats links = engine::unfold_replicas(pod, r.step().chips, r.step().link_stats);
  double bytes = 0;
  for (topo::LinkId id = 0; id < pod.links().size(); ++id)
    bytes += static_cast<double>(links.bytes[id]);
  ASSERT_GT(bytes, 0);
  EXPECT_NEAR(static_cast<double>(r.energy().parts.ici_pj),
              bytes * spec.chip.power.ici_pj_per_byte_per_hop, 16.0);  // a pJ per chip
}

// Folded, symmetric and full runs play the same chips' timelines; their
// joules are the same integers summed.
void expect_same_energy(const std::string& topo_file, const std::string& workload,
                        net::Model network) {
  SCOPED_TRACE(topo_file + " " + workload);
  const config::PodSpec spec = topology(topo_file);
  RunOptions folded;
  folded.network.model = network;
  RunOptions full = folded;
  full.fold = false;
  full.symmetry = false;
  const EnergyRun a = run_energy(spec, workload, folded);
  const EnergyRun b = run_energy(spec, workload, full);
  // The shortcut was taken: one chip per class, or replicas folded.
  EXPECT_TRUE(a.step().symmetric || a.step().simulated_chips < b.step().simulated_chips);
  EXPECT_FALSE(b.step().symmetric);
  EXPECT_EQ(a.energy().parts, b.energy().parts);
  EXPECT_EQ(a.energy().classes, b.energy().classes);
  EXPECT_EQ(a.energy().critical, b.energy().critical);
  EXPECT_EQ(a.energy().peak_watts, b.energy().peak_watts);
  EXPECT_EQ(a.ev.result.serving().energy().SerializeAsString(),
            b.ev.result.serving().energy().SerializeAsString());
}

TEST(Energy, FoldedAndSymmetricRunsReportTheJoulesOfAFullRunBitForBit) {
  expect_same_energy("v6e-16x16.textproto", "llama3-8b-decode-v6e.textproto", net::Model::kFlow);
  expect_same_energy("v5e-16x16.textproto", "llama3-70b-decode-v5e.textproto",
                     net::Model::kAnalytical);
  expect_same_energy("tpu7x-4x4x4.textproto", "llama3-70b-decode-tpu7x.textproto",
                     net::Model::kFlow);
}

TEST(Energy, DoublingIdlePowerDoublesIdleEnergyOnly) {
  const config::PodSpec base = topology("v5e-4x4.textproto");
  const double idle = base.chip.power.idle_watts;
  const config::PodSpec doubled =
      topology("v5e-4x4.textproto", {"topology.chip.power.idle_watts=" + std::to_string(2 * idle)});
  const EnergyRun a = run_energy(base, "llama3-8b-decode-v5e.textproto");
  const EnergyRun b = run_energy(doubled, "llama3-8b-decode-v5e.textproto");
  EXPECT_EQ(a.step().step_time, b.step().step_time);
  engine::EnergyParts pa = a.energy().parts;
  engine::EnergyParts pb = b.energy().parts;
  // Each chip rounds four idle parts: within 4 pJ a chip of twice.
  EXPECT_NEAR(static_cast<double>(pb.idle_pj), 2.0 * static_cast<double>(pa.idle_pj),
              4.0 * a.energy().powered_chips);
  pa.idle_pj = pb.idle_pj = 0;
  EXPECT_EQ(pa, pb);
}

// --set overrides putting every power figure but `keep` at 0.
std::vector<std::string> zeroed_power(const std::string& keep = "") {
  std::vector<std::string> sets;
  for (const char* f : {"idle_watts", "host_watts", "mxu_bf16_pj_per_flop", "mxu_int8_pj_per_op",
                        "vector_pj_per_flop", "hbm_pj_per_byte", "vmem_pj_per_byte",
                        "ici_pj_per_byte_per_hop", "dcn_pj_per_byte"}) {
    if (f != keep)
      sets.push_back(std::string("topology.chip.power.") + f + "=0");
  }
  return sets;
}

TEST(Energy, IdlePowerWithNoWorkIsAllThereIs) {
  // Every dynamic energy and the host at 0: the step's energy is idle
  // power x step time x chips, to the picojoule per class.
  const config::PodSpec spec = topology("v5e-4x4.textproto", zeroed_power("idle_watts"));
  const EnergyRun r = run_energy(spec, "llama3-8b-decode-v5e.textproto");
  const double expected =
      spec.chip.power.idle_watts * static_cast<double>(r.step().step_time.count_ps()) * 16;
  EXPECT_NEAR(static_cast<double>(r.energy().parts.total()), expected, 4.0 * 16);
  EXPECT_EQ(r.energy().parts.total(), r.energy().parts.idle_pj);
}

TEST(Energy, ATopologyWithoutAPowerModelReportsNoEnergy) {
  const EnergyRun r =
      run_energy(topology("v5e-4x4.textproto", zeroed_power()), "llama3-8b-decode-v5e.textproto");
  EXPECT_FALSE(r.energy().modelled);
  EXPECT_FALSE(r.ev.result.serving().energy().modelled());
  EXPECT_EQ(r.ev.result.serving().energy().step_j(), 0);
}

TEST(Energy, TheClockKnobScalesComputeAndTheVoltageLawScalesEnergy) {
  // A prefill is compute-bound: a slower clock is slower, and each
  // operation's dynamic energy falls as the voltage squared.
  const config::PodSpec nominal = topology("v5e-4x4.textproto");
  const config::PodSpec slow =
      topology("v5e-4x4.textproto", {"topology.chip.power.clock_factor=0.7"});
  const double v = config::voltage_for_clock(0.7, {});
  EXPECT_LT(v, 1.0);
  EXPECT_DOUBLE_EQ(slow.chip.power.voltage, v);
  EXPECT_DOUBLE_EQ(slow.chip.mxu_clock_hz, nominal.chip.mxu_clock_hz * 0.7);
  EXPECT_DOUBLE_EQ(slow.chip.peak_bf16_flops, nominal.chip.peak_bf16_flops * 0.7);
  EXPECT_DOUBLE_EQ(slow.chip.power.mxu_bf16_pj_per_flop,
                   nominal.chip.power.mxu_bf16_pj_per_flop * v * v);
  EXPECT_DOUBLE_EQ(slow.chip.power.idle_watts, nominal.chip.power.idle_watts * v);
  EXPECT_EQ(slow.chip.power.hbm_pj_per_byte, nominal.chip.power.hbm_pj_per_byte);
  const EnergyRun a = run_energy(nominal, "llama3-8b-prefill-v5e.textproto");
  const EnergyRun b = run_energy(slow, "llama3-8b-prefill-v5e.textproto");
  EXPECT_GT(b.step().step_time, a.step().step_time);
  EXPECT_NEAR(static_cast<double>(b.energy().parts.mxu_pj),
              static_cast<double>(a.energy().parts.mxu_pj) * v * v,
              1e-9 * static_cast<double>(a.energy().parts.mxu_pj) + 16);
}

}  // namespace
}  // namespace podsim::study

namespace podsim::study {
namespace {

TEST(Energy, AGenerationsEnergyIsItsStepsEnergy) {
  const config::PodSpec spec = topology("v5e-4x4.textproto");
  const topo::Pod pod(spec);
  const config::WorkloadSpec w =
      config::load_workload_file(root() / "workloads" / "llama3-8b-generation-v5e.textproto", spec,
                                 {config::parse_override("workload.scenario.output_len=4")});
  RunOptions options;
  options.generation.every_step = true;
  const Evaluation gen = evaluate_in_detail(pod, w, options);
  ASSERT_EQ(gen.result.status(), podsim::Result::ok) << gen.result.reason();
  const podsim::GenerationResult& g = gen.result.generation();
  // Each step on its own: the prefill, then decode steps 1 to 3.
  const config::ScenarioSpec& s = w.serving->scenario;
  const auto step_j = [&](const config::ScenarioSpec& scenario) {
    config::WorkloadSpec one = w;
    one.serving->scenario = scenario;
    const Evaluation e = evaluate_in_detail(pod, one, options);
    EXPECT_EQ(e.result.status(), podsim::Result::ok) << e.result.reason();
    return e.result.serving().energy().step_j();
  };
  double expected = step_j(prefill_step(s));
  EXPECT_DOUBLE_EQ(g.prefill_energy_j(), expected);
  for (uint32_t c = g.first_decode_context_len(); c <= g.last_decode_context_len(); ++c)
    expected += step_j(decode_step(s, c));
  EXPECT_NEAR(g.energy_j(), expected, 1e-12 * expected);
  EXPECT_DOUBLE_EQ(g.j_per_token(), g.energy_j() / static_cast<double>(g.tokens()));
  EXPECT_DOUBLE_EQ(g.mean_power_w(), g.energy_j() / (g.total_us() * 1e-6));
}

}  // namespace
}  // namespace podsim::study

namespace podsim::study {
namespace {

TEST(Energy, AnOperationListsEnergyIsItsChipsPowerItsWorkAndItsLinks) {
  const config::PodSpec spec = topology("v5e-4x4.textproto");
  const topo::Pod pod(spec);
  const config::WorkloadSpec w =
      config::load_workload_file(root() / "workloads" / "matmul-allreduce-v5e-4x4.textproto", spec);
  RunOptions symmetric;
  RunOptions full;
  full.symmetry = false;
  full.fold = false;
  const Evaluation a = evaluate_in_detail(pod, w, symmetric);
  const Evaluation b = evaluate_in_detail(pod, w, full);
  ASSERT_EQ(a.result.status(), podsim::Result::ok) << a.result.reason();
  const podsim::Energy& e = a.result.op_list().energy();
  EXPECT_EQ(e.SerializeAsString(), b.result.op_list().energy().SerializeAsString());
  const config::PowerSpec& p = spec.chip.power;
  const double makespan_ps = static_cast<double>(a.op_list->makespan.count_ps());
  EXPECT_NEAR(e.parts().idle_j(), 16 * p.idle_watts * makespan_ps * 1e-12, 1e-10);
  EXPECT_NEAR(e.parts().host_j(), 16 * p.host_watts * makespan_ps * 1e-12, 1e-10);
  double bytes = 0;
  for (topo::LinkId id = 0; id < pod.links().size(); ++id)
    bytes += static_cast<double>(a.op_list->link_stats.bytes[id]);
  EXPECT_GT(bytes, 0);
  EXPECT_NEAR(e.parts().ici_j(), bytes * p.ici_pj_per_byte_per_hop * 1e-12, 1e-12);
  EXPECT_GT(e.parts().mxu_j(), 0);
  const podsim::EnergyParts& q = e.parts();
  EXPECT_NEAR(e.step_j(),
              q.idle_j() + q.host_j() + q.mxu_j() + q.vector_j() + q.hbm_j() + q.vmem_j() +
                  q.ici_j() + q.dcn_j(),
              1e-12);
}

}  // namespace
}  // namespace podsim::study

namespace podsim::study {
namespace {

// A 72 PB all-reduce (found by the workload fuzzer) runs for 50 simulated
// days on v5e 16x16: its energy, over 1e11 J, is computed and adds up
// rather than overflowing 64-bit picojoules.
TEST(Energy, AnAbsurdlyLongRunsEnergyIsComputedNotWrapped) {
  const config::PodSpec spec = topology("v5e-16x16.textproto");
  const topo::Pod pod(spec);
  const config::WorkloadSpec w = config::parse_workload_text(
      "name: \"big\" mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: \"y\" } } "
      "operations { name: \"allreduce\" repeat: 3 collective { kind: ALL_REDUCE bytes: "
      "72057594037927936 axes: \"y\" axes: \"x\" algorithm: SEQUENTIAL_AXES } }",
      "big.textproto", spec);
  const Evaluation ev = evaluate_in_detail(pod, w, RunOptions{});
  ASSERT_EQ(ev.result.status(), podsim::Result::ok) << ev.result.reason();
  const podsim::Energy& e = ev.result.op_list().energy();
  EXPECT_TRUE(e.modelled());
  EXPECT_GT(e.step_j(), 1e11);
  const double makespan_s = ev.op_list->makespan.to_s();
  EXPECT_NEAR(e.parts().idle_j(), 256 * spec.chip.power.idle_watts * makespan_s,
              1e-9 * e.parts().idle_j());
}

}  // namespace
}  // namespace podsim::study
