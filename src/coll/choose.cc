#include "coll/choose.h"

#include "coll/executor.h"
#include "sim/simulation.h"

namespace podsim::coll {

net::Model choice_model(net::Model run) {
  return run == net::Model::kPacket ? net::Model::kFlow : run;
}

sim::Time estimate(const topo::Pod& pod, const Plan& plan, const net::Options& options,
                   sim::WorkBudget* budget) {
  net::Options on = options;
  on.model = choice_model(options.model);
  const auto network = net::make_network(pod, on);
  sim::Simulation sim(sim::Simulation::Options::charging(budget));
  CollectiveRun run(pod, *network, plan, executor_options(pod));
  run.start(sim);
  sim.run();
  return run.end_time() - run.start_time();
}

}  // namespace podsim::coll
