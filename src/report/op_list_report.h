// `podsim run` on an operation-list workload: one entry per operation.
//
// JSON: {"topology", "workload", "network", "chips", "makespan_us", "events",
// "operations": [{"name", "kind", "time_us", "flops", "bytes", "bound",
// "achieved_flops_per_s", "repeat", "start_us", "end_us"}] (every operation,
// compute and collective, in file order),
// "collectives": [{"name", "kind", "bytes", "axes", "group_size", "repeat",
// "start_us", "end_us", "time_us", "algbw_gbps", "busbw_gbps",
// "link_util_mean", "link_util_max", "links_used", "transfers"}]}, and with
// --link-stats a "link_stats" object (report/link_report.h).
// The collectives array holds collective operations only.
// CSV: one row per operation with the run's inputs echoed in every row; the
// last columns (flops, hbm_bytes, bound, achieved_tflops) describe compute
// rows. Table: compute operations, then collectives, one table each.
// docs/outputs.md documents every key and column.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "engine/op_list.h"
#include "report/format.h"
#include "report/link_report.h"

namespace podsim::report {

struct RunInputs {
  std::string topology;  // pod name
  std::string topology_file;
  std::string workload;  // workload name
  std::string workload_file;
  std::string network;  // network model name
  std::string compute;  // compute model name
  uint64_t chips = 0;
  // Set with --link-stats: per-link utilisation, written into the JSON only.
  std::optional<LinkReport> link_stats;
};

void render_op_list(const RunInputs& in, const engine::OpListResult& r, Format format,
                    std::ostream& out);

}  // namespace podsim::report
