// podsim.serve(): `podsim serve` (src/cli/cmd_serve.cc) without its files,
// the summary serialised, the per-request and time-series CSVs as text.
#include "fleet/serve.h"

#include <algorithm>
#include <memory>

#include "config/overrides.h"
#include "config/pricing_loader.h"
#include "config/serve_loader.h"
#include "config/serve_overrides.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve_cost.h"
#include "fleet/serve_output.h"
#include "fleet/serve_run.h"
#include "python/api.h"

namespace podsim::python {

ServeResult serve_report(const ServeRequest& request) {
  std::shared_ptr<const config::PricingSpec> pricing;
  if (request.pricing_file)
    pricing = std::make_shared<const config::PricingSpec>(
        config::load_pricing_file(*request.pricing_file));
  config::ServeSpec spec = config::load_serve_file(
      request.serve_file, config::parse_overrides(request.set, config::check_serve_override_roots));
  if (pricing)
    fleet::require_pricing(spec, *pricing);
  if (request.seed)
    spec.seed = *request.seed;
  if (request.no_bucket_error)
    spec.buckets.measure_error = false;
  const bool compare = request.compare_no_prefix_cache;
  if (compare && request.no_prefix_cache)
    throw UsageError("compare_no_prefix_cache and no_prefix_cache exclude each other");
  if (request.no_prefix_cache)
    for (config::ServeReplicaSpec& r : spec.replicas)
      r.prefix_caching = false;
  if (compare && std::none_of(spec.replicas.begin(), spec.replicas.end(),
                              [](const config::ServeReplicaSpec& r) { return r.prefix_caching; }))
    throw UsageError("compare_no_prefix_cache needs a replica with prefix_caching");
  fleet::ServeRunOptions options;
  options.limits = request.limits;
  options.compare_no_prefix_cache = compare;
  options.pricing = pricing.get();
  const fleet::ServeRuns runs = fleet::run_and_report(spec, options);
  ServeResult result;
  runs.report.SerializeToString(&result.report_binpb);
  if (request.requests)
    result.requests_csv = fleet::requests_csv(runs.out);
  if (request.timeseries)
    result.timeseries_csv = fleet::timeseries_csv(runs.out);
  return result;
}

}  // namespace podsim::python
