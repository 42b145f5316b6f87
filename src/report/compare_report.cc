#include "report/compare_report.h"

#include <algorithm>
#include <cstdio>

#include "podsim/comparison.pb.h"
#include "report/output_json.h"
#include "report/table.h"

namespace podsim::report {
namespace {

// How many of `size` rows a list of the table shows under `limit` (0: all).
size_t listed(size_t size, size_t limit) {
  return limit == 0 ? size : std::min(size, limit);
}

// Six significant digits: enough to read a change on the terminal.
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.6g", v);
  return buf;
}

std::string optional_number(const std::optional<double>& v) {
  return v ? format_double(*v) : std::string();
}

void set_key(const Scenario& s, std::string* label,
             google::protobuf::RepeatedPtrField<output::KeyCell>* key) {
  *label = s.label;
  for (const auto& [column, cell] : s.key) {
    output::KeyCell& k = *key->Add();
    k.set_column(column);
    k.set_value(cell);
  }
}

void render_json(const CompareInputs& in, const Comparison& c, std::ostream& out) {
  output::Comparison r;
  r.set_baseline(in.baseline_file);
  r.set_current(in.current_file);
  r.set_rel_tol(in.options.rel_tol);
  r.set_abs_tol_us(in.options.abs_tol_us);
  r.set_ok(c.clean());
  r.set_scenarios_matched(static_cast<uint32_t>(c.scenarios_matched));
  r.set_values_compared(static_cast<uint32_t>(c.values_compared));
  for (const MovedValue& m : c.moved) {
    output::MovedValue& o = *r.add_moved();
    set_key(m.scenario, o.mutable_scenario(), o.mutable_key());
    o.set_column(m.column);
    o.set_baseline(m.baseline);
    o.set_current(m.current);
    if (m.delta) {
      o.set_delta(*m.delta);
    }
    if (m.rel_delta) {
      o.set_rel_delta(*m.rel_delta);
    }
    if (m.allowed) {
      o.set_allowed(*m.allowed);
    }
  }
  for (const ColumnTolerance& t : in.options.columns) {
    output::ColumnTolerance& o = *r.add_column_tolerances();
    o.set_pattern(t.pattern);
    o.set_rel_tol(t.rel_tol);
    o.set_abs_tol(t.abs_tol);
  }
  for (const Scenario& s : c.matched) {
    output::ComparedScenario& o = *r.add_matched();
    set_key(s, o.mutable_scenario(), o.mutable_key());
  }
  for (const Scenario& s : c.appeared) {
    output::ComparedScenario& o = *r.add_appeared();
    set_key(s, o.mutable_scenario(), o.mutable_key());
  }
  for (const Scenario& s : c.disappeared) {
    output::ComparedScenario& o = *r.add_disappeared();
    set_key(s, o.mutable_scenario(), o.mutable_key());
  }
  for (const std::string& column : in.options.match_by) {
    r.add_match_by(column);
  }
  for (const std::string& column : c.shown_key) {
    r.add_shown_key(column);
  }
  out << to_json(r, JsonStyle{.indent = true, .all_fields = true});
}

void render_csv(const Comparison& c, std::ostream& out) {
  Table t({"change", "scenario", "key", "column", "baseline", "current", "delta", "rel_delta"});
  for (const MovedValue& m : c.moved) {
    t.add_row({"moved", m.scenario.label, m.scenario.key_text(), m.column, m.baseline, m.current,
               optional_number(m.delta), optional_number(m.rel_delta)});
  }
  for (const Scenario& s : c.disappeared) {
    t.add_row({"disappeared", s.label, s.key_text(), "", "", "", "", ""});
  }
  for (const Scenario& s : c.appeared) {
    t.add_row({"appeared", s.label, s.key_text(), "", "", "", "", ""});
  }
  t.render_csv(out);
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string text;
  for (const std::string& p : parts) {
    if (!text.empty()) {
      text += separator;
    }
    text += p;
  }
  return text;
}

// "1 scenario", "2 scenarios".
std::string count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string summary(const CompareInputs& in, const Comparison& c) {
  const std::string counted =
      count(c.scenarios_matched, "scenario") + " matched, " + count(c.values_compared, "value") +
      " compared, rel-tol " + format_double(in.options.rel_tol) + ", abs-tol-us " +
      format_double(in.options.abs_tol_us) +
      (in.options.match_by.empty() ? std::string()
                                   : ", matched by " + joined(in.options.match_by, ",")) +
      (in.options.columns.empty() ? std::string()
                                  : ", " + count(in.options.columns.size(), "column tolerance"));
  if (c.clean()) {
    return "OK: nothing moved (" + counted + ")";
  }
  std::vector<std::string> parts;
  if (!c.moved.empty()) {
    size_t moved_rows = 0;
    for (size_t i = 0; i < c.moved.size(); ++i) {
      if (i == 0 || c.moved[i].scenario.key != c.moved[i - 1].scenario.key) {
        ++moved_rows;
      }
    }
    parts.push_back(count(c.moved.size(), "value") + " moved in " + count(moved_rows, "scenario"));
  }
  if (!c.disappeared.empty()) {
    parts.push_back(count(c.disappeared.size(), "scenario") + " disappeared");
  }
  if (!c.appeared.empty()) {
    parts.push_back(count(c.appeared.size(), "scenario") + " appeared");
  }
  std::string text = "FAIL: ";
  for (size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : ", ") + parts[i];
  }
  return text + " (" + counted + ")";
}

void render_text(const CompareInputs& in, const Comparison& c, const TableLimits& limits,
                 std::ostream& out) {
  out << "baseline " << in.baseline_file << "\ncurrent  " << in.current_file << "\n\n";
  if (!c.moved.empty()) {
    Table t({"scenario", "column", "baseline", "current", "delta", "rel delta"});
    const size_t shown = listed(c.moved.size(), limits.moved);
    for (size_t i = 0; i < shown; ++i) {
      const MovedValue& m = c.moved[i];
      t.add_row({m.scenario.label, m.column, m.baseline, m.current,
                 m.delta ? short_number(*m.delta) : "-",
                 m.rel_delta ? short_number(100.0 * *m.rel_delta) + "%" : "-"});
    }
    t.render_text(out);
    if (shown < c.moved.size()) {
      out << "... and " << c.moved.size() - shown
          << " more moved values (every one: --format json or --max-listed 0)\n";
    }
    out << '\n';
  }
  if (!c.appeared.empty() || !c.disappeared.empty()) {
    out << "rows in one file only, by label and the key columns that changed (whole keys: "
           "--format json):\n\n";
  }
  for (const auto& [title, list] :
       {std::pair{"disappeared (in the baseline only):", &c.disappeared},
        std::pair{"appeared (in the current file only):", &c.appeared}}) {
    if (list->empty()) {
      continue;
    }
    out << title << '\n';
    const size_t shown = listed(list->size(), limits.unmatched);
    for (size_t i = 0; i < shown; ++i) {
      const Scenario& s = (*list)[i];
      out << "  " << s.label << "\n    " << s.key_text(c.shown_key) << '\n';
    }
    if (shown < list->size()) {
      out << "  ... and " << list->size() - shown
          << " more (every row, with its whole key: --format json)\n";
    }
    out << '\n';
  }
  out << summary(in, c) << '\n';
}

}  // namespace

void render_comparison(const CompareInputs& in, const Comparison& c, Format format,
                       std::ostream& out, const TableLimits& limits) {
  switch (format) {
    case Format::kJson:
      render_json(in, c, out);
      return;
    case Format::kCsv:
      render_csv(c, out);
      return;
    case Format::kTable:
      render_text(in, c, limits, out);
      return;
  }
}

}  // namespace podsim::report
