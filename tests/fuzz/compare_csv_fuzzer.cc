// The result CSV reader and `podsim compare`: the input is two CSV files,
// baseline and current, separated by the first NUL byte (without one, the
// file is compared with itself). Both are parsed (RFC 4180), compared row
// by row and the comparison rendered as table, CSV and JSON, as
// `podsim compare` prints it. CsvError and CompareError are its refusals
// (exit 2).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "fuzz_support.h"
#include "report/compare.h"
#include "report/compare_report.h"
#include "report/csv_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podsim;
  const std::string_view input = fuzz::as_text(data, size);
  const size_t nul = input.find('\0');
  const std::string_view baseline = input.substr(0, nul);
  const std::string_view current = nul == std::string_view::npos ? input : input.substr(nul + 1);
  try {
    const report::CsvDocument b = report::parse_csv(baseline, "baseline.csv");
    const report::CsvDocument c = report::parse_csv(current, "current.csv");
    // Tolerances from the input's length, so both the exact and the
    // tolerant paths run.
    report::CompareInputs in{"baseline.csv", "current.csv", {}};
    if (size % 3 == 1) {
      in.options = {0.05, 1.0, {}, {}};
    } else if (size % 3 == 2) {
      in.options = {0.0, 0.0, {}, {}};
    }
    // Rows paired by the baseline's first column (--match-by) on some inputs.
    if (size % 5 == 0 && !b.header.empty()) {
      in.options.match_by = {b.header.front()};
    }
    const report::Comparison cmp = report::compare_results(b, c, in.options);
    for (const report::Format f :
         {report::Format::kTable, report::Format::kCsv, report::Format::kJson}) {
      std::ostringstream out;
      report::render_comparison(in, cmp, f, out);
    }
  } catch (const report::CsvError&) {
  } catch (const report::CompareError&) {
  }
  return 0;
}
