// What `podsim serve` writes (docs/serving.md, "Outputs"): the per-request
// CSV, the time-series CSV, the summary as JSON (podsim.output.ServeReport,
// proto/podsim/serve_report.proto), as one CSV row (the report's scalar
// fields flattened) and as a terminal table. Every number is printed in its
// shortest round-trip form, so a run's files are byte-identical run to run.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "config/pricing_spec.h"
#include "config/serve_spec.h"
#include "fleet/serve.h"
#include "podsim/serve_report.pb.h"

namespace podsim::fleet {

// With `pricing` (--pricing; require_pricing() passed before the run): the
// report's cost figures too (fleet/serve_cost.h).
podsim::output::ServeReport make_report(const config::ServeSpec& spec, const ServeOutput& out,
                                        const config::PricingSpec* pricing = nullptr);

// The "without" of --compare-no-prefix-cache: `without` is the same run
// with prefix caching off on every replica.
void add_without_prefix_cache(podsim::output::ServeReport& report, const ServeOutput& without);

// request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,
// first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions,decode_replica,
// kv_transfer_s,energy_j,cached_prompt_tokens,max_tbt_s,tbt_over_slo
std::string requests_csv(const ServeOutput& out);
// The same bytes handed to `sink` in pieces of about 1 MiB, so a caller
// streaming them to a file (report::AtomicFile) holds one piece at a time
// rather than the whole CSV (about 170 bytes a request).
void write_requests_csv(const ServeOutput& out, const std::function<void(std::string_view)>& sink);
// time_s,replica,waiting,running,kv_blocks_used,kv_utilisation,power_w,
// fleet_power_w: power_w is the replica's (its running step's energy over
// its time, or its static power), fleet_power_w the sum over the replicas at
// that time; both empty when the replica's (or some replica's) chip has no
// power model.
std::string timeseries_csv(const ServeOutput& out);
std::string summary_json(const podsim::output::ServeReport& report);
std::string summary_csv(const podsim::output::ServeReport& report);
void render_summary(std::ostream& os, const podsim::output::ServeReport& report);

}  // namespace podsim::fleet
