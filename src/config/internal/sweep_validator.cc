#include "config/internal/sweep_validator.h"

#include <array>
#include <cmath>
#include <set>
#include <string_view>

#include "config/diagnostics.h"
#include "config/internal/enum_values.h"
#include "config/internal/sweep_ranges.h"
#include "config/serve_overrides.h"
#include "podsim/sweep.pb.h"

namespace podsim::config::internal {
namespace {

constexpr std::array<std::string_view, 3> kNetworks = {"analytical", "flow", "packet"};
constexpr std::array<std::string_view, 3> kComputes = {"roofline", "systolic", "tensorcore"};

template <size_t N>
bool one_of(const std::array<std::string_view, N>& names, const std::string& s) {
  for (std::string_view n : names) {
    if (n == s)
      return true;
  }
  return false;
}

template <size_t N>
std::string listed(const std::array<std::string_view, N>& names) {
  std::vector<std::string> v(names.begin(), names.end());
  return join(v);
}

bool rooted(std::string_view path) {
  return path.starts_with("topology.") || path.starts_with("workload.");
}

// The paths a sweep's points may set: of its topology and workload, or of
// its serve file (config/serve_overrides.h).
bool rooted(std::string_view path, bool serve) {
  return serve ? serve_rooted(path) : rooted(path);
}

// What the paths of a sweep may start with, for messages.
std::string roots_text(bool serve) {
  return serve ? "serve., topology., workload. or replicas[i].topology. / replicas[i].workload."
               : "topology. or workload.";
}

bool run_option(std::string_view path) {
  return path == "network" || path == "compute";
}

bool input_file(std::string_view path) {
  return path == "topology" || path == "workload";
}

std::filesystem::path resolve(const std::filesystem::path& base_dir, const std::string& name) {
  const std::filesystem::path p(name);
  return p.is_absolute() ? p : base_dir / p;
}

NumericRange range_of(const Parameter& p) {
  NumericRange r;
  if (p.has_geometric()) {
    r.geometric = true;
    r.start = p.geometric().start();
    r.stop = p.geometric().stop();
    r.step = p.geometric().factor();
  } else {
    r.start = p.linear().start();
    r.stop = p.linear().stop();
    r.step = p.linear().step();
  }
  return r;
}

class SweepValidator {
 public:
  SweepValidator(const Sweep& s, const std::filesystem::path& base_dir)
      : s_(s), base_dir_(base_dir), serve_(!s.serve().empty()) {}

  std::vector<FieldIssue> run() {
    check_base("topology", s_.topology());
    check_base("workload", s_.workload());
    check_base("serve", s_.serve());
    if (serve_)
      check_serve_fields();
    if (!s_.network().empty() && !one_of(kNetworks, s_.network()))
      issues_.add(root_("network"),
                  "must be one of " + listed(kNetworks) + ", got \"" + s_.network() + "\"");
    if (!s_.compute().empty() && !one_of(kComputes, s_.compute()))
      issues_.add(root_("compute"),
                  "must be one of " + listed(kComputes) + ", got \"" + s_.compute() + "\"");
    if (s_.has_step_tolerance() && !(s_.step_tolerance() >= 0 && s_.step_tolerance() < 1))
      issues_.add(root_("step_tolerance"),
                  "must be a relative error in [0, 1), such as 0.001, got " +
                      format_number(s_.step_tolerance()));
    known_value(*Combine_descriptor(), s_.combine(), root_("combine"), issues_);
    for (int i = 0; i < s_.set_size(); ++i)
      check_set(i);
    if (s_.parameters_size() == 0)
      issues_.add(root_("parameters"), "a sweep needs at least one parameter to vary");
    std::set<std::string> paths;
    std::vector<uint64_t> counts;
    for (int i = 0; i < s_.parameters_size(); ++i) {
      const uint64_t n = check_parameter(i);
      if (!s_.parameters(i).path().empty() && !paths.insert(s_.parameters(i).path()).second)
        issues_.add(root_("parameters", i)("path"),
                    "\"" + s_.parameters(i).path() + "\" is varied twice");
      counts.push_back(n);
    }
    check_points(counts);
    return issues_.issues();
  }

 private:
  void check_base(const char* field, const std::string& name) {
    if (!name.empty())
      check_file(root_(field), name);
  }

  void check_file(const FieldPath& at, const std::string& name) {
    const std::filesystem::path p = resolve(base_dir_, name);
    if (const std::string why = input_file_problem(p); !why.empty())
      issues_.add(at, why);
  }

  // A sweep of a serve file runs `podsim serve`: the run's inputs and
  // options come from the serve file, so the sweep sets none of its own.
  void check_serve_fields() {
    const auto unused = [&](const char* field, bool set, const std::string& instead) {
      if (set)
        issues_.add(root_(field), std::string("not with serve: ") + instead);
    };
    unused("topology", !s_.topology().empty(),
           "the serve file names each replica's topology (vary it with serve.replicas[i].topology, "
           "or its fields with topology....)");
    unused("workload", !s_.workload().empty(),
           "the serve file names each replica's workload (vary it with serve.replicas[i].workload, "
           "or its fields with workload....)");
    unused("network", !s_.network().empty(),
           "the serve file's network sets the step simulations' "
           "(serve.network)");
    unused("compute", !s_.compute().empty(), "a serve run times steps with the roofline model");
    unused("allow_oom", s_.allow_oom(), "a replica that does not fit is bad input in podsim serve");
    unused("every_step", s_.every_step(), "it applies to runs of a GENERATION scenario");
    unused("step_tolerance", s_.has_step_tolerance(),
           "it applies to runs of a GENERATION scenario");
  }

  void check_set(int i) {
    const std::string& s = s_.set(i);
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      issues_.add(root_("set", i), "expected PATH=VALUE, got \"" + s + "\"");
    } else if (!rooted(std::string_view(s).substr(0, eq), serve_)) {
      issues_.add(root_("set", i), "the path must start with " + roots_text(serve_) + ", got \"" +
                                       s.substr(0, eq) + "\"");
    }
  }

  // Returns how many values the parameter has (0 when it is invalid).
  uint64_t check_parameter(int i) {
    const Parameter& p = s_.parameters(i);
    const FieldPath at = root_("parameters", i);
    if (p.path().empty()) {
      issues_.add(at("path"), serve_ ? "must name a --set path (" + roots_text(true) + ")"
                                     : "must name a --set path, network, compute, topology or "
                                       "workload");
    } else if (serve_ && !rooted(p.path(), true)) {
      issues_.add(at("path"), "a sweep of a serve file varies --set paths: must start with " +
                                  roots_text(true) + "; got \"" + p.path() + "\"");
    } else if (!serve_ && !run_option(p.path()) && !input_file(p.path()) && !rooted(p.path())) {
      issues_.add(at("path"),
                  "must start with topology. or workload., or be network, compute, "
                  "topology or workload; got \"" +
                      p.path() + "\"" +
                      (serve_rooted(p.path()) ? " (serve paths need the sweep's serve file)" : ""));
    }
    for (int k = 0; k < p.also_size(); ++k) {
      if (!rooted(p.also(k), serve_)) {
        issues_.add(at("also", k),
                    "must be a --set path (" + roots_text(serve_) + "), got \"" + p.also(k) + "\"");
      } else if (!rooted(p.path(), serve_)) {
        issues_.add(at("also", k), "only a --set path can set further paths, not " + p.path());
      }
    }
    const int forms = (p.values_size() > 0) + p.has_linear() + p.has_geometric();
    if (forms != 1) {
      issues_.add(at("values"), "give exactly one of values, linear and geometric (" +
                                    std::to_string(forms) + " given)");
      return 0;
    }
    if (p.values_size() > 0)
      return check_values(p, at);
    return check_range(p, at);
  }

  uint64_t check_values(const Parameter& p, const FieldPath& at) {
    if (static_cast<uint64_t>(p.values_size()) > kMaxParameterValues) {
      issues_.add(at("values"), "at most " + std::to_string(kMaxParameterValues) + " values");
      return 0;
    }
    for (int k = 0; k < p.values_size(); ++k) {
      const std::string& v = p.values(k);
      if (p.path() == "network" && !one_of(kNetworks, v))
        issues_.add(at("values", k), "must be one of " + listed(kNetworks) + ", got \"" + v + "\"");
      if (p.path() == "compute" && !one_of(kComputes, v))
        issues_.add(at("values", k), "must be one of " + listed(kComputes) + ", got \"" + v + "\"");
      if (input_file(p.path()))
        check_file(at("values", k), v);
    }
    return static_cast<uint64_t>(p.values_size());
  }

  uint64_t check_range(const Parameter& p, const FieldPath& at) {
    const bool geo = p.has_geometric();
    const FieldPath r = at(geo ? "geometric" : "linear");
    if (run_option(p.path()) || input_file(p.path())) {
      issues_.add(r, p.path() + " takes values, not a numeric range");
      return 0;
    }
    const NumericRange range = range_of(p);
    // Both checked, so both are reported.
    const bool start_ok = issues_.finite(r("start"), range.start);
    const bool stop_ok = issues_.finite(r("stop"), range.stop);
    bool ok = start_ok && stop_ok;
    if (geo) {
      ok &= issues_.positive(r("start"), range.start);
      if (!(range.step > 1) || !std::isfinite(range.step)) {
        issues_.add(r("factor"), "must be a finite number > 1, got " + format_number(range.step));
        ok = false;
      }
    } else {
      ok &= issues_.positive(r("step"), range.step);
    }
    if (ok && range.stop < range.start) {
      issues_.add(r("stop"), "must be >= start (" + format_number(range.start) + "), got " +
                                 format_number(range.stop));
      ok = false;
    }
    if (!ok)
      return 0;
    const uint64_t n = range_count(range);
    if (n > kMaxParameterValues) {
      issues_.add(r, "makes " + format_number(static_cast<double>(n)) + " values; at most " +
                         std::to_string(kMaxParameterValues));
      return 0;
    }
    return n;
  }

  void check_points(const std::vector<uint64_t>& counts) {
    if (counts.empty())
      return;
    for (uint64_t n : counts) {
      if (n == 0)
        return;  // already reported
    }
    if (s_.combine() == ZIP) {
      for (size_t i = 1; i < counts.size(); ++i) {
        if (counts[i] != counts[0])
          issues_.add(root_("parameters", static_cast<int>(i)),
                      "zipped parameters need equal lengths: this one has " +
                          std::to_string(counts[i]) + " values, parameters[0] has " +
                          std::to_string(counts[0]));
      }
      return;
    }
    uint64_t points = 1;
    for (uint64_t n : counts) {
      if (points > kMaxSweepPoints / n) {
        issues_.add(root_("parameters"),
                    "the grid makes more than " + std::to_string(kMaxSweepPoints) + " points");
        return;
      }
      points *= n;
    }
  }

  const Sweep& s_;
  const std::filesystem::path& base_dir_;
  const bool serve_;  // a sweep of a serve file
  const FieldPath root_;
  IssueList issues_;
};

std::vector<std::string> values_of(const Parameter& p) {
  if (p.values_size() > 0)
    return {p.values().begin(), p.values().end()};
  const NumericRange r = range_of(p);
  std::vector<std::string> out;
  const uint64_t n = range_count(r);
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i)
    out.push_back(range_value(r, i));
  return out;
}

}  // namespace

std::vector<FieldIssue> validate_sweep(const Sweep& sweep, const std::filesystem::path& base_dir) {
  return SweepValidator(sweep, base_dir).run();
}

SweepSpec to_sweep_spec(const Sweep& sweep, const std::filesystem::path& base_dir,
                        std::string source_file) {
  SweepSpec spec;
  spec.name = sweep.name();
  spec.description = sweep.description();
  spec.source_file = std::move(source_file);
  if (!sweep.topology().empty())
    spec.topology_file = resolve(base_dir, sweep.topology()).lexically_normal().string();
  if (!sweep.workload().empty())
    spec.workload_file = resolve(base_dir, sweep.workload()).lexically_normal().string();
  if (!sweep.serve().empty())
    spec.serve_file = resolve(base_dir, sweep.serve()).lexically_normal().string();
  spec.combine = sweep.combine() == ZIP ? SweepCombine::kZip : SweepCombine::kGrid;
  spec.set.assign(sweep.set().begin(), sweep.set().end());
  if (!sweep.network().empty())
    spec.network = sweep.network();
  if (!sweep.compute().empty())
    spec.compute = sweep.compute();
  spec.allow_oom = sweep.allow_oom();
  spec.every_step = sweep.every_step();
  if (sweep.has_step_tolerance())
    spec.step_tolerance = sweep.step_tolerance();
  for (const Parameter& p : sweep.parameters()) {
    SweepParameter param{p.path(), values_of(p), {p.also().begin(), p.also().end()}};
    if (input_file(p.path())) {
      for (std::string& v : param.values)
        v = resolve(base_dir, v).lexically_normal().string();
    }
    spec.parameters.push_back(std::move(param));
  }
  spec.points = spec.combine == SweepCombine::kZip ? spec.parameters.front().values.size() : 1;
  if (spec.combine == SweepCombine::kGrid) {
    for (const auto& p : spec.parameters)
      spec.points *= p.values.size();
  }
  return spec;
}

}  // namespace podsim::config::internal
