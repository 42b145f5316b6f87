#include "fleet/serve_sweep.h"

#include <string>

#include "config/serve_loader.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"
#include "fleet/serve_cost.h"
#include "fleet/serve_output.h"
#include "report/table.h"

namespace podsim::fleet {
namespace {

// " (sweep point 3: serve.slo.ttft_ms=500, ...)": which point a diagnostic
// is about.
std::string point_note(const sweep::Point& point) {
  std::string note = " (sweep point ";
  note += std::to_string(point.index);
  for (size_t i = 0; i < point.varied.size(); ++i) {
    note += i == 0 ? ": " : ", ";
    note += point.varied[i];
  }
  note += ")";
  return note;
}

config::InputError at_point(const config::InputError& e, const sweep::Point& point) {
  std::vector<config::Diagnostic> diagnostics = e.diagnostics();
  for (config::Diagnostic& d : diagnostics)
    d.message += point_note(point);
  return config::InputError(std::move(diagnostics));
}

config::ServeSpec load_point(const config::SweepSpec& spec, const sweep::Point& point) {
  try {
    return config::load_serve_file(*spec.serve_file, point_overrides(point));
  } catch (const config::InputError& e) {
    throw at_point(e, point);
  }
}

}  // namespace

config::Overrides point_overrides(const sweep::Point& point) {
  config::Overrides overrides;
  overrides.reserve(point.overrides.size());
  for (const std::string& o : point.overrides)
    overrides.push_back(config::parse_override(o));
  return overrides;
}

std::vector<config::NamedInputFile> check_serve_points(const config::SweepSpec& spec,
                                                       const config::PricingSpec* pricing) {
  std::vector<config::NamedInputFile> named;
  for (uint64_t i = 0; i < spec.points; ++i) {
    const sweep::Point point = sweep::point_at(spec, i);
    const config::ServeSpec serve = load_point(spec, point);
    if (pricing != nullptr) {
      try {
        require_pricing(serve, *pricing);
      } catch (const config::InputError& e) {
        throw at_point(e, point);
      }
    }
    for (config::NamedInputFile& f : config::files_named_by(serve))
      named.push_back(std::move(f));
  }
  return named;
}

sweep::RenderedPoint run_serve_point(const config::SweepSpec& spec, const sweep::Point& point,
                                     const sim::WorkLimits& limits,
                                     const config::PricingSpec* pricing) {
  const config::ServeSpec serve = load_point(spec, point);
  ServeOutput out;
  try {
    out = fleet::serve(serve, false, limits);
  } catch (const StepError& e) {
    throw config::InputError(
        config::Diagnostic{serve.source_file, e.field(), 0, 0, e.what() + point_note(point)});
  }
  const std::string summary = summary_csv(make_report(serve, out, pricing));
  const size_t end_of_header = summary.find('\n');
  std::string overrides;
  for (size_t i = 0; i < point.overrides.size(); ++i) {
    if (i > 0)
      overrides += ';';
    overrides += point.overrides[i];
  }
  sweep::RenderedPoint r;
  r.status = podsim::Result::ok;
  r.events = out.run.events;
  r.kind = kServeRowKind;
  r.header = summary.substr(0, end_of_header);
  r.header += ",overrides\n";
  // The summary's one row, without its line end, then the overrides.
  std::string row = summary.substr(end_of_header + 1);
  if (!row.empty() && row.back() == '\n')
    row.pop_back();
  r.text = std::move(row);
  r.text += ',';
  r.text += report::csv_escape(overrides);
  r.text += '\n';
  return r;
}

}  // namespace podsim::fleet
