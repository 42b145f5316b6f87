#include "coll/choose.h"

#include "coll/executor.h"
#include "sim/simulation.h"

namespace podsim::coll {

sim::Time estimate(const topo::Pod& pod, const Plan& plan, const net::Options& options) {
  net::Options analytical = options;
  analytical.model = net::Model::kAnalytical;
  const auto network = net::make_network(pod, analytical);
  sim::Simulation sim;
  CollectiveRun run(pod, *network, plan);
  run.start(sim);
  sim.run();
  return run.end_time() - run.start_time();
}

}  // namespace podsim::coll
