#include "calibrate/profile_writer.h"

#include <cmath>
#include <sstream>

#include "report/format.h"
#include "report/table.h"

namespace podsim::calibrate {
namespace {

std::string percent(double v) {
  return report::format_fixed(100.0 * v, 2) + "%";
}

// Six significant digits: what a profile needs, and stable across runs.
std::string sig(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

std::string with_unit(Knob k, double v) {
  const std::string_view unit = knob_unit(k);
  std::string s = sig(v);
  if (!unit.empty())
    s.append(" ").append(unit);
  return s;
}

std::string row_list(const std::vector<size_t>& rows, const RowSet& set) {
  std::string s;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0)
      s += ", ";
    if (i == 8 && rows.size() > 9) {
      s += "... (" + std::to_string(rows.size()) + " rows)";
      break;
    }
    s += "line " + std::to_string(set.rows[rows[i]].line);
  }
  return s;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// The distinct sources the rows cite, in first-seen order.
std::vector<std::string> cited(const std::vector<size_t>& rows, const RowSet& set) {
  std::vector<std::string> out;
  for (const size_t i : rows) {
    const std::string& s = set.rows[i].source;
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(s);
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i)
    s += (i > 0 ? sep : "") + parts[i];
  return s;
}

std::string knob_status(const KnobFit& k) {
  std::string s(to_string(k.status));
  if (!k.reason.empty())
    s += ": " + k.reason;
  return s;
}

}  // namespace

void print_fit(std::ostream& out, const Predictor& predictor, const FitResult& fit) {
  const RowSet& set = predictor.rows();
  out << "Fit of " << set.rows.size() << " measurements (" << set.file << ") on "
      << predictor.topology().source_file << ": " << fit.parameters << " parameters, rms residual "
      << percent(fit.rms_residual);
  if (fit.rms_leave_one_out)
    out << ", leave-one-out rms " << percent(*fit.rms_leave_one_out);
  out << "\n\n";
  report::Table knobs({"knob", "value", "uncertainty (1 sd)", "status", "rows"});
  for (const KnobFit& k : fit.knob_fits) {
    const bool valued =
        k.status == KnobFit::Status::kFitted || k.status == KnobFit::Status::kAtBound;
    knobs.add_row({std::string(knob_name(k.knob)), with_unit(k.knob, k.value),
                   valued && k.uncertainty ? with_unit(k.knob, *k.uncertainty)
                   : valued                ? "n/a (no rows to spare)"
                                           : "",
                   knob_status(k), std::to_string(k.rows.size())});
  }
  knobs.render_text(out);
  if (!fit.harnesses.empty()) {
    out << "\n";
    report::Table h({"harness", "offset (us)", "uncertainty (us)", "rows"});
    for (const HarnessFit& f : fit.harnesses) {
      h.add_row({f.harness, report::format_fixed(f.offset_us, 3),
                 f.uncertainty_us ? report::format_fixed(*f.uncertainty_us, 3) : "",
                 std::to_string(f.rows.size())});
    }
    h.render_text(out);
  }
  out << "\n";
  report::Table rows(
      {"line", "measurement", "measured (us)", "podsim (us)", "residual", "leave-one-out"});
  for (size_t i = 0; i < set.rows.size(); ++i) {
    const RowFit& r = fit.rows[i];
    std::string loo = r.leave_one_out_note;
    if (r.leave_one_out_us) {
      loo = report::format_fixed(*r.leave_one_out_us, 3) + " us (" +
            (*r.leave_one_out_us >= r.measured_us ? "+" : "") +
            percent((*r.leave_one_out_us - r.measured_us) / r.measured_us) + ")";
    }
    rows.add_row({std::to_string(set.rows[i].line), set.rows[i].describe(),
                  report::format_fixed(r.measured_us, 3), report::format_fixed(r.predicted_us, 3),
                  (r.residual >= 0 ? "+" : "") + percent(r.residual), loo});
  }
  rows.render_text(out);
}

std::string render_profile(const Predictor& predictor, const FitResult& fit,
                           const ProfileInfo& info) {
  const RowSet& set = predictor.rows();
  std::vector<size_t> all(set.rows.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  std::ostringstream o;
  o << "# proto-file: podsim/calibration.proto\n"
    << "# proto-message: podsim.CalibrationProfile\n#\n"
    << "# Written by `podsim calibrate` (podsim " << info.version << ") from " << set.file
    << "\n# (sha256 " << set.sha256 << "), " << set.rows.size() << " measurements, on the chip and"
    << " links of\n# " << predictor.topology().source_file << " (collectives on the "
    << info.network << " network model).\n"
    << "# rms residual " << percent(fit.rms_residual);
  if (fit.rms_leave_one_out)
    o << ", leave-one-out rms " << percent(*fit.rms_leave_one_out);
  o << ". Each row, measured -> podsim:\n";
  for (size_t i = 0; i < set.rows.size(); ++i) {
    o << "#   line " << set.rows[i].line << ": " << set.rows[i].describe() << ": "
      << report::format_fixed(fit.rows[i].measured_us, 3) << " -> "
      << report::format_fixed(fit.rows[i].predicted_us, 3) << " us\n";
  }
  for (const HarnessFit& h : fit.harnesses) {
    o << "# Harness '" << h.harness << "' adds " << report::format_fixed(h.offset_us, 3)
      << " us to its rows (fitted, not part of the profile).\n";
  }
  o << "\nname: " << quoted(info.name) << "\n"
    << "description: "
    << quoted(predictor.topology().chip.name + ": fitted by podsim calibrate to " +
              std::to_string(set.rows.size()) + " microbenchmark measurements")
    << "\nchip: " << quoted(predictor.topology().chip.name) << "\n\ncalibration {\n";
  std::ostringstream sources;
  for (const KnobFit& k : fit.knob_fits) {
    const std::string name(knob_name(k.knob));
    const double ideal = from_parameter(k.knob, parameter_floor(k.knob));
    const bool set_value = k.value != ideal;
    if (set_value)
      o << "  " << name << ": " << sig(k.value) << "\n";
    std::string source;
    if (k.status == KnobFit::Status::kFitted) {
      source = "fitted by podsim calibrate to " + row_list(k.rows, set) + " of " + set.file + ": " +
               with_unit(k.knob, k.value) +
               (k.uncertainty ? " +- " + with_unit(k.knob, *k.uncertainty) : "") +
               "; the rows cite: " + join(cited(k.rows, set), "; ");
    } else if (set_value) {
      source = "held at " + with_unit(k.knob, k.value) + " (" + knob_status(k) + ")";
    } else {
      source = "left ideal: " + knob_status(k);
    }
    sources << "  " << name << ": " << quoted(source) << "\n";
  }
  const std::vector<std::string> refs = cited(all, set);
  o << "  source: "
    << quoted("podsim calibrate, " + set.file + " (sha256 " + set.sha256.substr(0, 16) +
              "...): " + (refs.empty() ? std::string("no sources given") : join(refs, "; ")))
    << "\n}\n\nsources {\n"
    << sources.str() << "}\n";
  return o.str();
}

}  // namespace podsim::calibrate
