// Warnings, on stderr's log, of collectives the analytical network model may
// time apart from flow and packet (engine/model_caveats.h): `podsim run -n
// analytical`, and `podsim serve` and `capacity`, whose step simulations
// use the analytical model unless the serve file says `network: "flow"`.
// The run goes on; the warning names the collectives, and the replica.
#pragma once

#include "cli/context.h"
#include "config/serve_spec.h"
#include "config/workload_spec.h"
#include "net/network.h"
#include "topo/pod.h"

namespace podsim::cli {

void warn_if_out_of_step(Context& ctx, const topo::Pod& pod, const config::WorkloadSpec& workload,
                         net::Model model);

// Every replica of the serve file whose step has such collectives.
void warn_if_out_of_step(Context& ctx, const config::ServeSpec& spec);

}  // namespace podsim::cli
