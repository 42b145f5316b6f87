// summarize(): every figure of `podsim topo`, computed from the pod graph.
#include "report/topology_report.h"

#include "topo/components.h"
#include "topo/metrics.h"

namespace podsim::report {

TopologySummary summarize(const topo::Pod& pod) {
  const config::PodSpec& spec = pod.spec();
  TopologySummary s;
  s.name = spec.name;
  s.description = spec.description;
  s.source = spec.source_file;
  s.chip = spec.chip.name;
  s.chips = pod.chip_count();
  s.slices = pod.slice_count();
  s.twists = static_cast<uint32_t>(spec.torus.twists.size());
  s.failed_links = spec.failed_links.size();
  s.dead_chips = spec.dead_chips.size();
  s.degraded_links = spec.degraded_links.size();
  s.stragglers = spec.stragglers.size();
  for (const auto& a : topo::axis_bandwidths(pod)) {
    DimensionSummary d;
    d.name = a.name;
    d.size = a.size;
    d.wraparound = a.wraparound;
    d.link_bandwidth_gbps = a.link.gbps();
    d.axis_bandwidth_gbps = a.per_chip.gbps();
    d.hop_latency_ns = spec.torus.dims[a.dim].hop_latency.to_ns();
    s.dims.push_back(d);
  }
  for (const auto& link : pod.links()) {
    (link.kind == topo::LinkKind::kIci ? s.ici_links : s.dcn_links) += 1;
  }
  s.diameter_hops = topo::diameter_hops(pod);
  if (!s.diameter_hops) {
    const topo::Components parts = topo::ici_components(pod);
    for (uint32_t slice = 0; slice < pod.slice_count(); ++slice) {
      if (parts.per_slice[slice] <= 1)
        continue;
      s.disconnected += (s.disconnected.empty() ? "" : "; ") +
                        (pod.slice_count() > 1 ? "slice " + std::to_string(slice) + ": " : "") +
                        topo::describe_components(pod, parts, slice);
    }
  }
  s.chip_ici_bandwidth_gbps = topo::chip_ici_bandwidth(pod).typical.gbps();
  if (const auto cut = topo::bisection(pod)) {
    s.bisection_links = cut->links;
    s.bisection_bandwidth_gbps = cut->bandwidth.gbps();
    s.bisection_cut = cut->dim == topo::kSliceDim ? "slices" : spec.torus.dims[cut->dim].name;
    if (cut->offset != 0)
      s.bisection_cut += " (rotated by " + std::to_string(cut->offset) + ")";
  } else {
    s.bisection_cut = "none";
  }
  if (spec.dcn) {
    s.dcn_bandwidth_gbps_per_chip = spec.dcn->bandwidth_per_chip.gbps();
  }
  s.peak_bf16_tflops_per_chip = spec.chip.peak_bf16_flops * 1e-12;
  s.peak_bf16_pflops_total = spec.chip.peak_bf16_flops * static_cast<double>(s.chips) * 1e-15;
  s.hbm_gib_per_chip = static_cast<double>(spec.chip.hbm_bytes) / (1024.0 * 1024.0 * 1024.0);
  s.hbm_bandwidth_gbps_per_chip = spec.chip.hbm_bandwidth.gbps();
  return s;
}

}  // namespace podsim::report
