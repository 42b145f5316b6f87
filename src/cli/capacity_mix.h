// `podsim capacity FILE --target-rate R --choose-mix`: the count of each
// replica entry that meets the objectives at R with the fewest chips, the
// lowest cost or the least energy (fleet/capacity_mix.h). Called by
// cmd_capacity.cc once its options are read.
#pragma once

#include <cstdint>
#include <string>

#include "cli/context.h"
#include "config/serve_spec.h"
#include "fleet/capacity.h"
#include "podsim/capacity_report.pb.h"
#include "report/result_print.h"
#include "sweep/transport.h"

namespace podsim::cli {

// "p99 TTFT <= 1000 ms, p99 TPOT <= 100 ms; 0 = none": the objectives as
// every capacity answer's line names them.
std::string objectives_text(const fleet::CapacityOptions& options);

// The report on stdout as --format asks: csv, json, textproto or binpb
// (not table: each mode renders its own).
void print_capacity_report(Context& ctx, const podsim::output::CapacityReport& report,
                           report::ResultFormat format);

int capacity_mix(Context& ctx, const config::ServeSpec& spec, double rate, uint32_t max_copies,
                 const fleet::CapacityOptions& options, report::ResultFormat format,
                 sweep::Transport& transport, unsigned jobs);

}  // namespace podsim::cli
