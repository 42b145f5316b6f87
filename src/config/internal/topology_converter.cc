#include "config/internal/topology_converter.h"

#include "config/internal/power_validator.h"
#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config::internal {
namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

// A given peak (validated to agree with the matrix units within 2%), else the
// matrix units' own: 2 FLOP per MAC x `macs_per_cycle` x MAC/s.
double peak_of(double given_tera, double macs_per_s, uint32_t macs_per_cycle) {
  return given_tera > 0 ? given_tera * kTera : 2.0 * macs_per_s * macs_per_cycle;
}

ChipSpec to_chip_spec(const Chip& c) {
  ChipSpec chip;
  chip.name = c.name();
  chip.hbm_bytes = c.hbm_bytes();
  chip.hbm_bandwidth = sim::Bandwidth::from_gbps(c.hbm_bandwidth_gbps());
  const MatrixUnits& mxu = c.matrix_units();
  chip.mxu_count = mxu.count();
  chip.mxu_rows = mxu.rows();
  chip.mxu_columns = mxu.columns();
  chip.mxu_clock_hz = mxu.clock_ghz() * kGiga;
  chip.mxu_weight_load_bytes_per_cycle = mxu.weight_load_bytes_per_cycle();
  const double macs = matrix_unit_macs_per_s(chip);
  chip.peak_bf16_flops = peak_of(c.peak().bf16_tflops(), macs, 1);
  chip.peak_int8_ops = peak_of(c.peak().int8_tops(), macs, mxu.int8_macs_per_cycle());
  chip.peak_fp8_flops = peak_of(c.peak().fp8_tflops(), macs, mxu.fp8_macs_per_cycle());
  chip.vmem_bytes = c.vmem_bytes();
  chip.ici_ports = c.ici_ports();
  // 0 is proto3's "unset": podsim's default (docs/tensorcore.md).
  const TensorCore& tc = c.tensor_core();
  TensorCoreSpec& core = chip.tensor_core;
  if (tc.cores() > 0)
    core.cores = tc.cores();
  if (tc.vector_lanes() > 0)
    core.vector_lanes = tc.vector_lanes();
  if (tc.vector_sublanes() > 0)
    core.vector_sublanes = tc.vector_sublanes();
  if (tc.vector_alus() > 0)
    core.vector_alus = tc.vector_alus();
  core.transcendentals_per_cycle = tc.transcendentals_per_cycle() > 0
                                       ? tc.transcendentals_per_cycle()
                                       : core.vector_lanes * core.vector_sublanes / 4.0;
  core.dma_bandwidth = sim::Bandwidth::from_gbps(
      tc.dma_bandwidth_gbps() > 0 ? tc.dma_bandwidth_gbps() : c.hbm_bandwidth_gbps());
  if (tc.dma_latency_ns() > 0)
    core.dma_latency = sim::Time::from_ns_rounded(tc.dma_latency_ns());
  if (tc.dma_granule_bytes() > 0)
    core.dma_granule_bytes = tc.dma_granule_bytes();
  if (tc.step_issue_cycles() > 0)
    core.step_issue_cycles = tc.step_issue_cycles();
  return chip;
}

// The clock knob (Power.clock_factor): every clocked unit runs at the
// factor, so the clock and every compute peak scale by it; HBM, ICI and DCN
// do not. The peaks were derived or checked at the nominal clock.
void apply_clock_factor(ChipSpec& chip) {
  const double f = chip.power.clock_factor;
  if (f == 1.0)
    return;
  chip.mxu_clock_hz *= f;
  chip.peak_bf16_flops *= f;
  chip.peak_int8_ops *= f;
  chip.peak_fp8_flops *= f;
}

TorusSpec to_torus_spec(const Torus& t) {
  TorusSpec torus;
  for (int i = 0; i < t.dims_size(); ++i) {
    const Dimension& d = t.dims(i);
    torus.dims.push_back(DimensionSpec{dimension_name(d, i), d.size(), d.wraparound(),
                                       sim::Bandwidth::from_gbps(d.link_bandwidth_gbps()),
                                       sim::Time::from_ns_rounded(d.hop_latency_ns())});
  }
  for (const Twist& tw : t.twists()) {
    torus.twists.push_back(TwistSpec{tw.dim(), tw.shift_dim(), tw.offset()});
  }
  return torus;
}

}  // namespace

CalibrationSpec to_calibration_spec(const Calibration& c) {
  CalibrationSpec cal;
  // 0 is proto3's "unset": ideal, no loss.
  cal.ici_link_efficiency = c.ici_link_efficiency() == 0 ? 1.0 : c.ici_link_efficiency();
  cal.dcn_efficiency = c.dcn_efficiency() == 0 ? 1.0 : c.dcn_efficiency();
  cal.collective_overhead = sim::Time::from_ns_rounded(c.collective_overhead_ns());
  cal.mxu_efficiency = c.mxu_efficiency() == 0 ? 1.0 : c.mxu_efficiency();
  cal.hbm_efficiency = c.hbm_efficiency() == 0 ? 1.0 : c.hbm_efficiency();
  cal.op_overhead = sim::Time::from_ns_rounded(c.op_overhead_ns());
  cal.ring_step_overhead = sim::Time::from_ns_rounded(c.ring_step_overhead_ns());
  cal.hbm_latency = sim::Time::from_ns_rounded(c.hbm_latency_ns());
  cal.mxu_tile_overhead_cycles = c.mxu_tile_overhead_cycles();
  cal.source = c.source();
  return cal;
}

PodSpec to_pod_spec(const Topology& topology, std::string source_file) {
  PodSpec pod;
  pod.name = topology.name();
  pod.description = topology.description();
  pod.source_file = std::move(source_file);
  pod.chip = to_chip_spec(topology.chip());
  pod.chip.power = to_power_spec(topology);
  apply_clock_factor(pod.chip);
  pod.torus = to_torus_spec(topology.torus());
  pod.slices = topology.slices() == 0 ? 1 : topology.slices();
  if (pod.slices > 1) {
    pod.dcn = DcnSpec{sim::Bandwidth::from_gbps(topology.dcn().bandwidth_gbps_per_chip()),
                      sim::Time::from_ns_rounded(topology.dcn().latency_ns())};
  }
  for (const FailedLink& f : topology.failed_links()) {
    pod.failed_links.push_back(
        FailedLinkSpec{f.slice(), std::vector<uint32_t>(f.coords().begin(), f.coords().end()),
                       f.dim(), f.direction()});
  }
  for (const DeadChip& d : topology.dead_chips()) {
    pod.dead_chips.push_back(
        DeadChipSpec{d.slice(), std::vector<uint32_t>(d.coords().begin(), d.coords().end())});
  }
  for (const DegradedLink& d : topology.degraded_links()) {
    pod.degraded_links.push_back(DegradedLinkSpec{
        d.slice(), std::vector<uint32_t>(d.coords().begin(), d.coords().end()), d.dim(),
        d.direction(), d.has_bandwidth_factor() ? d.bandwidth_factor() : 1.0,
        sim::Time::from_ns_rounded(d.extra_latency_ns())});
  }
  for (const Straggler& s : topology.stragglers()) {
    pod.stragglers.push_back(
        StragglerSpec{s.slice(), std::vector<uint32_t>(s.coords().begin(), s.coords().end()),
                      s.has_compute_factor() ? s.compute_factor() : 1.0,
                      s.has_hbm_factor() ? s.hbm_factor() : 1.0});
  }
  pod.calibration = to_calibration_spec(topology.calibration());
  return pod;
}

}  // namespace podsim::config::internal
