// `podsim capacity`'s answer as a message (podsim.output.CapacityReport,
// proto/podsim/capacity_report.proto), for every mode: the objectives, each
// serve file's inputs, every serve run, the answer and its status. The CSV
// (report/message_csv.h: one row per run, the answer in every row), JSON,
// text and binary forms are the message printed; the table stays the
// command's own (cli/cmd_capacity.cc).
#pragma once

#include <string>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/capacity.h"
#include "fleet/capacity_bound.h"
#include "fleet/capacity_mix.h"
#include "fleet/capacity_replicas.h"
#include "podsim/capacity_report.pb.h"

namespace podsim::fleet {

// The rate search: status ok (the highest rate found), none (no rate tried
// met the objectives) or, with `bound` unattainable, unattainable (no run).
podsim::output::CapacityReport rate_search_report(const config::ServeSpec& spec,
                                                  const CapacityOptions& options,
                                                  const CapacityResult& result,
                                                  const TtftBound& bound);

// --target-rate over serve files: the best by options.minimise.
podsim::output::CapacityReport target_rate_report(const std::vector<config::ServeSpec>& specs,
                                                  double rate, const CapacityOptions& options,
                                                  const FewestChips& result);

// --fewest-replicas: the fewest copies of the file's one replica entry.
podsim::output::CapacityReport fewest_replicas_report(const config::ServeSpec& spec, double rate,
                                                      const CapacityOptions& options,
                                                      const FewestReplicas& result);

// --choose-mix: the count of each replica entry.
podsim::output::CapacityReport choose_mix_report(const config::ServeSpec& spec, double rate,
                                                 const CapacityOptions& options,
                                                 const MixChoice& result);

// The report's CSV: the header and one row per run (one with no run).
std::string capacity_csv(const podsim::output::CapacityReport& report);
// Pretty-printed JSON, every field present, ending in a newline.
std::string capacity_json(const podsim::output::CapacityReport& report);

}  // namespace podsim::fleet
