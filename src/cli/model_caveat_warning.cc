#include "cli/model_caveat_warning.h"

#include <spdlog/logger.h>

#include <exception>
#include <string>
#include <vector>

#include "engine/model_caveats.h"

namespace podsim::cli {
namespace {

void warn(Context& ctx, const std::vector<std::string>& out, const std::string& where) {
  if (out.empty())
    return;
  std::string names;
  for (const std::string& o : out)
    names += (names.empty() ? "" : "; ") + o;
  ctx.log->warn(
      "the analytical model may time {}{} apart from flow and packet: over dimensions that "
      "differ (size, line or ring, the DCN) a collective's shares fall out of step, and this "
      "model queues at a link what the others share (0.75x to 1.22x flow on random cases; "
      "docs/architecture.md, \"The network models\"); the flow model is the reference",
      names, where);
}

}  // namespace

void warn_if_out_of_step(Context& ctx, const topo::Pod& pod, const config::WorkloadSpec& workload,
                         net::Model model) {
  if (model == net::Model::kAnalytical)
    warn(ctx, engine::out_of_step_collectives(pod, workload), "");
}

void warn_if_out_of_step(Context& ctx, const config::ServeSpec& spec) {
  if (net::parse_model(spec.network).value_or(net::Model::kAnalytical) != net::Model::kAnalytical)
    return;
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    std::vector<std::string> out;
    try {
      out = engine::out_of_step_collectives(topo::Pod(r.pod), r.workload);
    } catch (const std::exception&) {
      continue;  // a step that does not lower: the run says why
    }
    warn(ctx, out, " (replica '" + r.name + "')");
  }
}

}  // namespace podsim::cli
