// The python layer: the C++ side of the `podsim` Python module
// (docs/python.md). It sits above study/, sweep/, fleet/, config/ and
// report/, as cli/ does, and calls the same library functions the commands
// call, so `podsim.run()` gives the bytes `podsim run --format binpb` prints.
// Results cross into Python serialised (Protobuf binary), and the Python side
// parses them with the generated *_pb2 classes: one schema, no hand-written
// conversion of any field. Only module.cc knows of pybind11; the functions
// here are plain C++.
//
// Threads: every call loads its own inputs and builds its own simulation
// (study/evaluate.h, fleet/serve.h), so calls may run on several threads at
// once; module.cc releases the GIL around them.
//
// Errors: bad input throws config::InputError (every diagnostic: file, line,
// column, field, reason), a bad argument UsageError, a run past its limits
// sim::WorkLimitExceeded; anything else is a bug in podsim.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/diagnostics.h"
#include "sim/work_budget.h"

namespace podsim::python {

// A bad argument (an unknown network model, options that exclude each
// other): what the CLI reports as bad usage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run whose inputs break a rule: the loader's diagnostics, and the
// podsim.Result (status invalid, binary) that `podsim run --format binpb`
// prints before it exits 2.
class InvalidRun : public config::InputError {
 public:
  InvalidRun(const config::InputError& error, std::string result_binpb)
      : config::InputError(error.diagnostics()), result_binpb_(std::move(result_binpb)) {}
  const std::string& result_binpb() const { return result_binpb_; }

 private:
  std::string result_binpb_;
};

// `podsim run`'s options (src/cli/cmd_run.cc), nullopt where the CLI has a
// default or no option was given.
struct RunRequest {
  std::optional<std::string> topology_file;  // nullopt: the embedded v5e 16x16
  std::optional<std::string> workload_file;  // nullopt: the embedded default
  std::vector<std::string> set;              // "path=value", as --set
  std::string network = "flow";
  std::optional<uint64_t> packet_bytes;  // --network packet only; 64 KiB
  std::optional<std::string> switching;  // --network packet only; cut-through
  std::string compute = "roofline";
  std::optional<std::string> op_table_file;     // --compute table
  std::optional<std::string> calibration_file;  // --calibration
  std::optional<std::string> pricing_file;      // --pricing
  bool allow_oom = false;
  bool vs_healthy = false;
  bool fold = true;                      // false: --no-fold
  bool symmetry = true;                  // false: --no-symmetry
  bool every_step = false;               // GENERATION only
  std::optional<double> step_tolerance;  // GENERATION only; 1e-3
  bool link_stats = false;
  sim::WorkLimits limits = sim::kDefaultWorkLimits;
};

// The podsim.Result of the run, serialised as `--format binpb` writes it.
// Status ok or oom (a step that does not fit, without allow_oom: the CLI
// prints it and exits 1); invalid inputs throw InvalidRun.
std::string run_result(const RunRequest& request);

// `podsim serve`'s options (src/cli/cmd_serve.cc).
struct ServeRequest {
  std::string serve_file;
  std::vector<std::string> set;  // "path=value", as --set on serve (serve., topology., ...)
  std::optional<uint64_t> seed;  // in place of the file's
  bool no_bucket_error = false;
  bool no_prefix_cache = false;
  bool compare_no_prefix_cache = false;
  std::optional<std::string> pricing_file;
  sim::WorkLimits limits = sim::kDefaultWorkLimits;
  bool requests = false;    // also the per-request CSV (--requests)
  bool timeseries = false;  // also the time-series CSV (--timeseries)
};

struct ServeResult {
  std::string report_binpb;  // podsim.output.ServeReport, what --format json prints
  std::string requests_csv;  // when asked for
  std::string timeseries_csv;
};

ServeResult serve_report(const ServeRequest& request);

// The CSV `podsim sweep` writes for these results (serialised
// podsim.Result), in this order: the header of the first one's kind, then
// each one's rows. For one result it is what `podsim run --format csv`
// prints. Results of both kinds (serving and operation list) are a
// UsageError, as in a sweep.
std::string results_csv(const std::vector<std::string>& results_binpb);

// The one-row CSV `podsim serve --format csv` prints for a serialised
// podsim.output.ServeReport.
std::string serve_report_csv(const std::string& report_binpb);

}  // namespace podsim::python
