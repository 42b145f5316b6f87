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
  fleet::ServeOutput out;
  fleet::ServeOutput without;
  try {
    fleet::Server server(spec, request.limits);
    out = server.run(spec);
    if (compare) {
      config::ServeSpec off = spec;
      for (config::ServeReplicaSpec& r : off.replicas)
        r.prefix_caching = false;
      without = server.run(off);
    }
  } catch (const fleet::StepError& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, e.field(), 0, 0, e.what()});
  }
  podsim::output::ServeReport report = fleet::make_report(spec, out, pricing.get());
  if (compare)
    fleet::add_without_prefix_cache(report, without);
  ServeResult result;
  report.SerializeToString(&result.report_binpb);
  if (request.requests)
    result.requests_csv = fleet::requests_csv(out);
  if (request.timeseries)
    result.timeseries_csv = fleet::timeseries_csv(out);
  return result;
}

}  // namespace podsim::python
