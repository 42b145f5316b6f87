// podsim compare BASELINE CURRENT [--rel-tol X] [--abs-tol-us Y] [--column-tol P=R[,A]]...
//                [--match-by COL1,COL2,...] [--max-listed N]
//                [--format F] [--out FILE] [--junit FILE [--junit-suite NAME]]
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/positional_files.h"
#include "cli/unsigned_option.h"
#include "report/compare_junit.h"
#include "report/compare_report.h"
#include "report/output_file.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

double tolerance(const po::variables_map& vm, const char* name) {
  const double v = vm[name].as<double>();
  if (!std::isfinite(v) || v < 0) {
    throw UsageError(std::string("--") + name + " must be a finite number >= 0");
  }
  return v;
}

}  // namespace

int cmd_compare(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim compare BASELINE CURRENT [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "rel-tol", po::value<double>()->default_value(1e-6, "1e-6"),
      "relative tolerance: a value moves when |current - baseline| > rel-tol x |baseline| ...")(
      "abs-tol-us", po::value<double>()->default_value(0.0, "0"),
      "... and > this many microseconds, for columns ending in _us")(
      "column-tol", po::value<std::vector<std::string>>()->composing(),
      "PATTERN=REL[,ABS]: these tolerances instead for the columns PATTERN names (a column, or "
      "a prefix ending in '*'; the most specific wins; ABS in the column's unit); repeatable")(
      "match-by", po::value<std::string>(),
      "COL1,COL2,...: pair rows by just these columns (across an intended change of the other "
      "inputs, which are then compared as values); each key must be unique in a file")(
      "max-listed", po::value<std::string>(),
      "the table lists at most N moved values, N disappeared and N appeared rows (0: all; "
      "default: every moved value, 20 rows of each other list); JSON and CSV list all")(
      "format,f", po::value<std::string>()->default_value("table"), "table, json or csv")(
      "out,o", po::value<std::string>(), "write to this file (whole or not at all)")(
      "junit", po::value<std::string>(),
      "also write a JUnit XML report to this file (one test case per scenario)")(
      "junit-suite", po::value<std::string>(),
      "the JUnit test suite's name (default: CURRENT's file name)");
  po::variables_map vm;
  const std::vector<std::string> files = parse_with_files(args, opts, vm);
  if (vm.count("help") != 0) {
    ctx.out << "Compares two result CSVs written by `podsim run --format csv` (or the\n"
               "regression suite): matches rows by their scenario key (the input columns;\n"
               "numbers by value, so a spreadsheet's copy matches), or by --match-by columns,\n"
               "reports every output value beyond tolerance and every row that appeared or\n"
               "disappeared. Exit 0 when nothing moved, 1 when something did, 2 when the\n"
               "files cannot be read or compared (different headers or schema versions).\n\n"
            << opts;
    return kExitOk;
  }
  if (files.size() != 2) {
    throw UsageError("compare needs two files, BASELINE and CURRENT; got " +
                     std::to_string(files.size()));
  }
  const report::Format format = parse_format_option(vm["format"].as<std::string>());
  const std::string junit = vm.count("junit") != 0 ? vm["junit"].as<std::string>() : "";
  if (junit.empty() && vm.count("junit-suite") != 0) {
    throw UsageError("--junit-suite names the suite of the --junit report; give --junit FILE");
  }
  refuse_clobbering(
      {{"BASELINE", files[0]}, {"CURRENT", files[1]}},
      {{"--out", vm.count("out") != 0 ? vm["out"].as<std::string>() : ""}, {"--junit", junit}});
  report::CompareInputs in;
  in.baseline_file = files[0];
  in.current_file = files[1];
  in.options.rel_tol = tolerance(vm, "rel-tol");
  in.options.abs_tol_us = tolerance(vm, "abs-tol-us");
  if (vm.count("column-tol") != 0) {
    for (const std::string& text : vm["column-tol"].as<std::vector<std::string>>()) {
      try {
        in.options.columns.push_back(report::parse_column_tolerance(text));
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--column-tol: ") + e.what());
      }
    }
  }

  if (vm.count("match-by") != 0) {
    try {
      in.options.match_by = report::parse_match_by(vm["match-by"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--match-by: ") + e.what());
    }
  }

  report::TableLimits limits;
  if (vm.count("max-listed") != 0) {
    const auto n = static_cast<size_t>(unsigned_option(vm, "max-listed", 1'000'000'000));
    limits = {.moved = n, .unmatched = n};
  }

  report::Comparison comparison;
  try {
    comparison = report::compare_results(report::read_csv_file(in.baseline_file),
                                         report::read_csv_file(in.current_file), in.options);
  } catch (const report::CsvError& e) {
    ctx.err << "podsim: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const report::CompareError& e) {
    ctx.err << "podsim: " << e.what() << '\n';
    return kExitBadInput;
  }
  std::ostringstream text;
  report::render_comparison(in, comparison, format, text, limits);
  PendingOutputs pending;  // --junit and --out, put in place together
  if (!junit.empty()) {
    const std::string suite = vm.count("junit-suite") != 0
                                  ? vm["junit-suite"].as<std::string>()
                                  : std::filesystem::path(in.current_file).filename().string();
    std::ostringstream xml;
    report::render_junit(in, comparison, suite, xml);
    pending.add(junit, xml.str());
  }
  emit(ctx, pending,
       vm.count("out") != 0 ? std::optional(vm["out"].as<std::string>()) : std::nullopt,
       text.str());
  return comparison.clean() ? kExitOk : kExitCheckFailed;
}

}  // namespace podsim::cli
