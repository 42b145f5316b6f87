// The extension module podsim._podsim: pybind11 glue over api.h and
// sweep_stream.h. Python's podsim/__init__.py wraps it (keyword arguments,
// parsing the serialised results with the generated *_pb2 classes).
//
// Every simulation runs with the GIL released, so Python threads run
// podsim side by side; arguments are converted before and results built
// after, with the GIL held. C++ exceptions become podsim's Python
// exceptions (podsim/_errors.py) here, so no error ends the interpreter.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "python/api.h"
#include "python/sweep_stream.h"
#include "sim/work_budget.h"

namespace py = pybind11;

namespace podsim::python {
namespace {

// Raises podsim._errors.<name>(message, diagnostics, result).
void raise(const char* name, const std::string& message, const py::list& diagnostics,
           const py::object& result) {
  const py::object cls = py::module_::import("podsim._errors").attr(name);
  const py::object error = cls(message, diagnostics, result);
  PyErr_SetObject(cls.ptr(), error.ptr());
}

py::list diagnostics_of(const config::InputError& e) {
  py::list out;
  for (const config::Diagnostic& d : e.diagnostics()) {
    py::dict item;
    item["file"] = d.file;
    item["line"] = d.line;
    item["column"] = d.column;
    item["field"] = d.field;
    item["reason"] = d.message;
    item["text"] = d.to_string();
    out.append(item);
  }
  return out;
}

void translate(std::exception_ptr p) {
  if (!p)
    return;
  try {
    std::rethrow_exception(p);
  } catch (const py::builtin_exception&) {
    throw;  // pybind11's own (a bad argument type): TypeError, ValueError, ...
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError
  } catch (const InvalidRun& e) {
    raise("InputError", e.what(), diagnostics_of(e), py::bytes(e.result_binpb()));
  } catch (const config::InputError& e) {
    raise("InputError", e.what(), diagnostics_of(e), py::none());
  } catch (const UsageError& e) {
    raise("UsageError", e.what(), py::list(), py::none());
  } catch (const sim::WorkLimitExceeded& e) {
    raise("LimitError", e.what(), py::list(), py::none());
  } catch (const std::exception& e) {
    raise(
        "InternalError",
        std::string("internal error: ") + e.what() + "\nThis is a bug in podsim; please report it.",
        py::list(), py::none());
  }
}

// --max-events, --max-memory-mb and --max-wall-seconds (cli/limit_options.cc):
// 0 is no limit, None the CLI's default.
sim::WorkLimits limits_of(std::optional<double> max_events, std::optional<double> max_memory_mb,
                          std::optional<double> max_wall_seconds) {
  const auto checked = [](const char* name, double v, double max) {
    if (!std::isfinite(v) || v < 0 || v > max)
      throw UsageError(std::string(name) + " must be a number from 0 (no limit) to " +
                       std::to_string(static_cast<uint64_t>(max)) + ", got " + std::to_string(v));
    return v;
  };
  sim::WorkLimits l = sim::kDefaultWorkLimits;
  if (max_events)
    l.max_events = static_cast<uint64_t>(checked("max_events", *max_events, 1e18));
  if (max_memory_mb)
    l.max_memory_bytes = static_cast<uint64_t>(checked("max_memory_mb", *max_memory_mb, 1e9)) << 20;
  if (max_wall_seconds)
    l.max_wall_seconds = checked("max_wall_seconds", *max_wall_seconds, 1e9);
  return l;
}

std::optional<uint64_t> unsigned_of(const char* name, const std::optional<int64_t>& v) {
  if (!v)
    return std::nullopt;
  if (*v < 0)
    throw UsageError(std::string(name) + " must not be negative, got " + std::to_string(*v));
  return static_cast<uint64_t>(*v);
}

py::bytes run(std::optional<std::string> topology, std::optional<std::string> workload,
              std::vector<std::string> set, std::string network,
              std::optional<int64_t> packet_bytes, std::optional<std::string> switching,
              std::string compute, std::optional<std::string> op_table,
              std::optional<std::string> calibration, std::optional<std::string> pricing,
              bool allow_oom, bool vs_healthy, bool fold, bool symmetry, bool every_step,
              std::optional<double> step_tolerance, bool link_stats,
              std::optional<double> max_events, std::optional<double> max_memory_mb,
              std::optional<double> max_wall_seconds) {
  RunRequest r;
  r.topology_file = std::move(topology);
  r.workload_file = std::move(workload);
  r.set = std::move(set);
  r.network = std::move(network);
  r.packet_bytes = unsigned_of("packet_bytes", packet_bytes);
  r.switching = std::move(switching);
  r.compute = std::move(compute);
  r.op_table_file = std::move(op_table);
  r.calibration_file = std::move(calibration);
  r.pricing_file = std::move(pricing);
  r.allow_oom = allow_oom;
  r.vs_healthy = vs_healthy;
  r.fold = fold;
  r.symmetry = symmetry;
  r.every_step = every_step;
  r.step_tolerance = step_tolerance;
  r.link_stats = link_stats;
  r.limits = limits_of(max_events, max_memory_mb, max_wall_seconds);
  std::string bytes;
  {
    const py::gil_scoped_release unlocked;
    bytes = run_result(r);
  }
  return py::bytes(bytes);
}

py::tuple serve(std::string serve_file, std::vector<std::string> set, std::optional<int64_t> seed,
                bool no_bucket_error, bool no_prefix_cache, bool compare_no_prefix_cache,
                std::optional<std::string> pricing, bool requests, bool timeseries,
                std::optional<double> max_events, std::optional<double> max_memory_mb,
                std::optional<double> max_wall_seconds) {
  ServeRequest r;
  r.serve_file = std::move(serve_file);
  r.set = std::move(set);
  r.seed = unsigned_of("seed", seed);
  r.no_bucket_error = no_bucket_error;
  r.no_prefix_cache = no_prefix_cache;
  r.compare_no_prefix_cache = compare_no_prefix_cache;
  r.pricing_file = std::move(pricing);
  r.requests = requests;
  r.timeseries = timeseries;
  r.limits = limits_of(max_events, max_memory_mb, max_wall_seconds);
  ServeResult out;
  {
    const py::gil_scoped_release unlocked;
    out = serve_report(r);
  }
  return py::make_tuple(py::bytes(out.report_binpb), py::str(out.requests_csv),
                        py::str(out.timeseries_csv));
}

// A sweep as Python iterates it: next() waits with the GIL released, a
// tenth of a second at a time, looking for Ctrl-C between waits.
class Sweep {
 public:
  explicit Sweep(const SweepRequest& request) {
    const py::gil_scoped_release unlocked;
    stream_ = std::make_unique<SweepStream>(request);
  }
  ~Sweep() { close(); }
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;

  uint64_t points() const { return stream_ ? stream_->points() : 0; }

  py::object next() {
    if (!stream_)
      return py::none();
    while (true) {
      bool ready = false;
      {
        const py::gil_scoped_release unlocked;
        ready = stream_->wait_for(std::chrono::milliseconds(100));
      }
      if (ready)
        break;
      if (PyErr_CheckSignals() != 0)
        throw py::error_already_set();
    }
    std::optional<std::string> bytes;
    {
      const py::gil_scoped_release unlocked;
      bytes = stream_->next();
    }
    if (!bytes)
      return py::none();
    return py::bytes(*bytes);
  }

  // Stops the points still running (after the ones being computed).
  void close() {
    if (!stream_)
      return;
    std::unique_ptr<SweepStream> stream = std::move(stream_);
    if (PyGILState_Check() != 0) {
      const py::gil_scoped_release unlocked;
      stream.reset();
    }
  }

 private:
  std::unique_ptr<SweepStream> stream_;
};

}  // namespace
}  // namespace podsim::python

PYBIND11_MODULE(_podsim, m) {
  namespace pp = podsim::python;
  m.doc() = "podsim's C++ side; use the podsim package (docs/python.md)";
  py::register_local_exception_translator(&pp::translate);
  m.def("run", &pp::run, py::arg("topology"), py::arg("workload"), py::arg("set"),
        py::arg("network"), py::arg("packet_bytes"), py::arg("switching"), py::arg("compute"),
        py::arg("op_table"), py::arg("calibration"), py::arg("pricing"), py::arg("allow_oom"),
        py::arg("vs_healthy"), py::arg("fold"), py::arg("symmetry"), py::arg("every_step"),
        py::arg("step_tolerance"), py::arg("link_stats"), py::arg("max_events"),
        py::arg("max_memory_mb"), py::arg("max_wall_seconds"));
  m.def("serve", &pp::serve, py::arg("serve_file"), py::arg("set"), py::arg("seed"),
        py::arg("no_bucket_error"), py::arg("no_prefix_cache"), py::arg("compare_no_prefix_cache"),
        py::arg("pricing"), py::arg("requests"), py::arg("timeseries"), py::arg("max_events"),
        py::arg("max_memory_mb"), py::arg("max_wall_seconds"));
  m.def(
      "results_csv",
      [](const std::vector<std::string>& results) {
        std::string text;
        {
          const py::gil_scoped_release unlocked;
          text = pp::results_csv(results);
        }
        return text;
      },
      py::arg("results"));
  m.def(
      "serve_report_csv", [](const std::string& report) { return pp::serve_report_csv(report); },
      py::arg("report"));
  py::class_<pp::Sweep>(m, "Sweep")
      .def(py::init([](std::string sweep_file, int64_t jobs, std::vector<std::string> set,
                       std::optional<std::string> calibration, std::optional<std::string> pricing,
                       std::optional<double> max_events, std::optional<double> max_memory_mb,
                       std::optional<double> max_wall_seconds) {
             pp::SweepRequest r;
             if (jobs < 1 || jobs > 1024)
               throw pp::UsageError("jobs must be between 1 and 1024, got " + std::to_string(jobs));
             r.sweep_file = std::move(sweep_file);
             r.jobs = static_cast<unsigned>(jobs);
             r.set = std::move(set);
             r.calibration_file = std::move(calibration);
             r.pricing_file = std::move(pricing);
             r.limits = pp::limits_of(max_events, max_memory_mb, max_wall_seconds);
             return std::make_unique<pp::Sweep>(r);
           }),
           py::arg("sweep_file"), py::arg("jobs"), py::arg("set"), py::arg("calibration"),
           py::arg("pricing"), py::arg("max_events"), py::arg("max_memory_mb"),
           py::arg("max_wall_seconds"))
      .def_property_readonly("points", &pp::Sweep::points)
      .def("next", &pp::Sweep::next)
      .def("close", &pp::Sweep::close);
}
