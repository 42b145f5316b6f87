#include "fleet/serve_run.h"

#include <utility>

#include "config/diagnostics.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve_output.h"

namespace podsim::fleet {

ServeRuns run_and_report(const config::ServeSpec& spec, const ServeRunOptions& options) {
  ServeRuns runs;
  try {
    Server server(spec, options.limits);
    if (options.progress)
      server.set_progress(options.progress);
    runs.out = server.run(spec, options.record_steps);
    if (options.compare_no_prefix_cache) {
      config::ServeSpec off = spec;
      for (config::ServeReplicaSpec& r : off.replicas)
        r.prefix_caching = false;
      runs.without = server.run(off);
    }
  } catch (const StepError& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, e.field(), 0, 0, e.what()});
  }
  runs.report = make_report(spec, runs.out, options.pricing);
  if (options.compare_no_prefix_cache)
    add_without_prefix_cache(runs.report, runs.without);
  return runs;
}

}  // namespace podsim::fleet
