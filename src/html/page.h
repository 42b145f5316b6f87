// The html layer: `podsim report`'s page. It reads podsim's output files
// (report_inputs.h: detected by content, tables read with
// report/csv_reader.h) and draws them as one self-contained HTML page:
// inline CSS and inline SVG charts (svg.h, line_chart.h, stacked_bars.h), no
// script, no fonts or images fetched, so it opens offline and renders the
// same everywhere. Everything taken from the inputs is escaped (escape.h);
// numbers are written locale-free (ticks.h); nothing depends on the time or
// the machine, so the same inputs give the same bytes.
//
// Depends on report/ (the CSV reader, the Result schema and its CSV rows)
// and the output schemas; nothing below it knows of HTML.
#pragma once

#include <string>

#include "html/report_inputs.h"

namespace podsim::html {

// The page: the inputs list, then for each table of results the step-time
// breakdown and the sweep plot, then the search frontier, the serving
// section and the capacity search, and last each table's inputs. Throws ReportInputError when
// a cell it draws is unusable, or when the inputs hold nothing to draw.
std::string render_page(const ReportInputs& inputs);

}  // namespace podsim::html
