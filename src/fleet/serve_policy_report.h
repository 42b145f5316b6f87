// The serve summary's figures of speculative decoding and SLO-aware
// scheduling (docs/serving.md, "Outputs"): into the ServeReport message,
// and the terminal table's lines for them. Beside fleet/serve_output.h,
// which calls these.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fleet/summary.h"
#include "podsim/serve_report.pb.h"

namespace podsim::fleet {

void fill_policy_report(const ServeSummary& s, podsim::output::ServeReport& r);

// Percentiles into their report message (every latency figure of the summary).
void fill_latency(const Percentiles& p, podsim::output::LatencyPercentiles& out);

// "speculation", "admission" and one "SLO class" line each, when they apply.
void policy_key_values(const podsim::output::ServeReport& r,
                       std::vector<std::pair<std::string, std::string>>& kv);

}  // namespace podsim::fleet
