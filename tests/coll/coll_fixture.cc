#include "coll_fixture.h"

#include "sim/simulation.h"

namespace podsim::coll::testing {

config::PodSpec pod_spec(const std::vector<Dim>& dims, uint32_t slices) {
  config::PodSpec spec;
  spec.name = "test";
  spec.chip.name = "test-chip";
  spec.chip.peak_bf16_flops = 1.97e14;
  spec.chip.hbm_bytes = 16'000'000'000;
  spec.chip.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  spec.chip.ici_ports = 6;
  const char* names[] = {"x", "y", "z"};
  for (size_t i = 0; i < dims.size(); ++i) {
    config::DimensionSpec d;
    d.name = names[i];
    d.size = dims[i].size;
    d.wraparound = dims[i].wrap;
    d.link_bandwidth = sim::Bandwidth::from_gbps(kLinkGBps);
    d.hop_latency = sim::Time::us(1);
    spec.torus.dims.push_back(d);
  }
  spec.slices = slices;
  if (slices > 1) {
    spec.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(kDcnGBps), sim::Time::us(10)};
  }
  return spec;
}

topo::DeviceMesh one_axis_per_dim(const topo::Pod& pod) {
  std::vector<topo::MeshAxisSpec> axes;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    axes.push_back({pod.spec().torus.dims[d].name, {d}});
  }
  if (pod.slice_count() > 1) {
    axes.push_back({"dcn", {topo::kSliceDim}});
  }
  return topo::DeviceMesh(pod, axes);
}

config::CollectiveSpec collective(config::CollectiveKind kind, uint64_t bytes,
                                  std::vector<std::string> axes) {
  config::CollectiveSpec c;
  c.kind = kind;
  c.bytes = bytes;
  c.axes = std::move(axes);
  return c;
}

Outcome run(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
            net::Model model) {
  net::Options options;
  options.model = model;
  auto network = net::make_network(pod, options);
  sim::Simulation sim;
  CollectiveRun run(pod, *network, lower(pod, mesh, c));
  run.start(sim);
  sim.run();
  Outcome o;
  o.done = run.done();
  o.seconds = (run.end_time() - run.start_time()).to_s();
  o.transfers_started = run.transfers_started();
  o.transfers_delivered = run.transfers_delivered();
  o.bytes_sent = run.bytes_sent();
  o.bytes_received = run.bytes_received();
  o.link_bytes = run.link_bytes();
  return o;
}

}  // namespace podsim::coll::testing
