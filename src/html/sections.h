// The report page's sections, each an HTML fragment (a heading, charts as
// inline SVG, tables) built from the loaded inputs; empty when the inputs
// hold nothing for it. They throw ReportInputError naming the file and line
// of a cell they cannot use.
#pragma once

#include <string>
#include <vector>

#include "html/report_inputs.h"

namespace podsim::html {

// Where the step time goes: a stacked bar per result row whose status is ok
// (matrix units, vector unit, issue, DMA wait, op overhead, exposed
// collectives, idle: they add up to the step time, as scripts/plot_sweep.py
// draws them), labelled by what differs between rows.
std::string breakdown_section(const report::CsvDocument& results);

// A metric against the swept parameter: step time and tokens/s per chip
// against the override that varies most between rows, a line per value of
// the other varying overrides. Empty when no override varies.
std::string sweep_section(const report::CsvDocument& results);

// The inputs.* columns: those equal in every row as one table, those that
// differ as a table with a row per result.
std::string inputs_section(const report::CsvDocument& results);

// podsim search's frontier: tokens/s per chip against per-token latency,
// a line per slice, each point's batch in its tooltip.
std::string frontier_section(const std::vector<report::CsvDocument>& frontiers);

// podsim serve: the summaries' figures, the CDFs of TTFT, TPOT and
// end-to-end latency (a line per requests file, the summaries' SLOs as
// dashed lines), and the waiting queue, running batch and KV-cache
// occupancy over time (a line per replica).
std::string serve_section(const ReportInputs& inputs);

// podsim capacity: the percentile TTFT and TPOT of each run against its
// arrival rate, runs that met the objectives apart from those that did not.
std::string capacity_section(const std::vector<report::CsvDocument>& capacity);

}  // namespace podsim::html
