// podsim.to_dataframe()'s text: the CSV the commands write, from the same
// functions (report/result_csv.h through sweep/row_writer.h, and
// fleet/serve_output.h), so the frame's columns and cells are the CLI's.
#include <stdexcept>

#include "fleet/serve_output.h"
#include "podsim/result.pb.h"
#include "podsim/serve_report.pb.h"
#include "python/api.h"
#include "sweep/row_writer.h"

namespace podsim::python {

std::string results_csv(const std::vector<std::string>& results_binpb) {
  sweep::RowWriter rows(sweep::RowFormat::kCsv);
  std::string text;
  for (size_t i = 0; i < results_binpb.size(); ++i) {
    podsim::Result r;
    if (!r.ParseFromString(results_binpb[i]))
      throw UsageError("results[" + std::to_string(i) + "] is not a podsim.Result");
    try {
      text += rows.rows(sweep::render(sweep::RowFormat::kCsv, r));
    } catch (const std::invalid_argument& e) {
      throw UsageError("results[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return text;
}

std::string serve_report_csv(const std::string& report_binpb) {
  podsim::output::ServeReport report;
  if (!report.ParseFromString(report_binpb))
    throw UsageError("not a podsim.output.ServeReport");
  return fleet::summary_csv(report);
}

}  // namespace podsim::python
