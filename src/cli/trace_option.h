// `podsim run --trace FILE [--trace-chips LIST] [--trace-units LAYER]`: the request, checked before
// the run, and the trace, written after a successful one (whole or not at
// all, like --out). The trace itself is report/trace.h.
#pragma once

#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/output.h"
#include "engine/op_list.h"
#include "report/trace.h"
#include "report/trace_chips.h"

namespace podsim::cli {

struct TraceRequest {
  std::string file;
  report::TraceChipRequest chips;
  std::string unit_layer;  // --trace-units as a breakdown layer key; empty: none
};

// nullopt without --trace. Throws UsageError for --trace-chips without
// --trace, a bad LIST (syntax, or a chip id not in a pod of `chip_count`
// chips), or a FILE whose directory does not exist -- before any simulation.
std::optional<TraceRequest> parse_trace_request(const std::optional<std::string>& file,
                                                const std::optional<std::string>& chips,
                                                uint32_t chip_count);

// --trace-units LAYER as the breakdown's layer key: "12" or "L12" (below
// `layers`), "embed", "head" or "other". Throws UsageError otherwise.
std::string parse_trace_layer(const std::string& layer, uint32_t layers);

// Chooses the chips, warns when the default limited them, writes the file
// to its temporary among `pending` (put in place with the command's other
// outputs). Throws report::OutputError when it cannot be written.
void write_step_trace(Context& ctx, PendingOutputs& pending, const TraceRequest& request,
                      const report::StepTraceInputs& inputs);

void write_op_list_trace(Context& ctx, PendingOutputs& pending, const TraceRequest& request,
                         const report::RunInputs& run, const engine::OpListResult& result);

}  // namespace podsim::cli
