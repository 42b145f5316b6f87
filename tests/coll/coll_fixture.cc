#include "coll_fixture.h"

#include "sim/simulation.h"
#include "specs.h"

namespace podsim::coll::testing {

config::PodSpec pod_spec(const std::vector<Dim>& dims, uint32_t slices) {
  const char* names[] = {"x", "y", "z"};
  std::vector<podsim::testing::TorusDim> torus;
  for (size_t i = 0; i < dims.size(); ++i) {
    torus.push_back({names[i], dims[i].size, dims[i].wrap});
  }
  podsim::testing::PodOptions options;
  options.link_gbps = kLinkGBps;
  config::PodSpec spec = podsim::testing::v5e_torus(torus, options);
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

Outcome run(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
            net::Model model) {
  net::Options options;
  options.model = model;
  auto network = net::make_network(pod, options);
  sim::Simulation sim;
  const Plan plan = lower(pod, mesh, c, options);
  CollectiveRun run(pod, *network, plan);
  run.start(sim);
  sim.run();
  Outcome o;
  o.done = run.done();
  o.seconds = (run.end_time() - run.start_time()).to_s();
  o.transfers_started = run.transfers_started();
  o.transfers_delivered = run.transfers_delivered();
  o.bytes_sent = run.bytes_sent();
  o.bytes_received = run.bytes_received();
  o.link_bytes.assign(run.link_bytes().begin(), run.link_bytes().end());
  o.network_link_bytes = network->link_stats(sim).bytes;
  o.schedule = plan.schedule;
  return o;
}

}  // namespace podsim::coll::testing
