// `podsim run --format table` on an operation-list workload: compute
// operations, then collectives, one table each. JSON, CSV, text and binary
// print podsim.Result instead (report/result_print.h, report/result_csv.h).
// RunInputs also names the run in traces (report/trace.h).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "engine/op_list.h"

namespace podsim::report {

struct RunInputs {
  std::string topology;  // pod name
  std::string topology_file;
  std::string workload;  // workload name
  std::string workload_file;
  std::string network;  // network model name
  std::string compute;  // compute model name
  uint64_t chips = 0;
};

void render_op_list(const RunInputs& in, const engine::OpListResult& r, std::ostream& out);

}  // namespace podsim::report
