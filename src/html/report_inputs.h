// The files `podsim report` reads, each recognised by its content, not its
// name: a Result CSV (`podsim run|sweep --format csv`), Result JSON, JSON
// Lines (`sweep --format jsonl`) or binary (`run --format binpb`), a serve
// summary (`serve --summary-json`), a per-request CSV (`serve --requests`),
// a time-series CSV (`serve --timeseries`), a capacity search CSV
// (`capacity --format csv`) and a search frontier CSV (`podsim search`).
// Every table is kept as a report::CsvDocument (Results in JSON or binary
// become the rows `run --format csv` would have written, by
// report/result_csv.h), so the page reads one shape of data.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "podsim/serve_report.pb.h"
#include "report/csv_reader.h"

namespace podsim::html {

// A file the report cannot use: what() reads "FILE[:LINE]: problem".
class ReportInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ServeSummary {
  std::string source;  // the file, as named
  podsim::output::ServeReport report;
};

struct ReportInputs {
  std::vector<std::string> files;  // every file, as named, in order
  // Result rows; files with the same header are one table (rows in file
  // order), so a sweep split over files reads as one.
  std::vector<report::CsvDocument> results;
  std::vector<ServeSummary> summaries;
  std::vector<report::CsvDocument> requests;
  std::vector<report::CsvDocument> timeseries;
  std::vector<report::CsvDocument> capacity;
  std::vector<report::CsvDocument> frontiers;
};

// Reads every file. Throws ReportInputError naming the file (and line) when
// one cannot be read, is malformed, or is none of the outputs above.
ReportInputs load_report_inputs(const std::vector<std::string>& paths);

// The files' kinds, for messages and tests.
enum class InputKind { kResults, kServeSummary, kRequests, kTimeseries, kCapacity, kFrontier };

// What a CSV header is, or throws ReportInputError naming `source`.
InputKind csv_kind_of(const std::vector<std::string>& header, const std::string& source);

}  // namespace podsim::html
