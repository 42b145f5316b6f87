#include "report/compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "report/compare_key.h"

namespace podsim::report {
namespace {

// Schema 3 (podsim.Result): every column under "inputs." is a key, and an
// operation row adds the operation's name.
constexpr std::string_view kInputsPrefix = "inputs.";
constexpr std::string_view kOperationKey = "op_list.operations.name";

// Schemas 1 and 2 (before podsim.Result): the input columns of serving rows
// and operation rows, so that files written then still compare.
constexpr const char* kLegacyKeyColumns[] = {"topology",     "workload",
                                             "model",        "network",
                                             "compute",      "chips",
                                             "mesh",         "phase",
                                             "batch",        "prompt_len",
                                             "context_len",  "micro_batches",
                                             "weight_dtype", "activation_dtype",
                                             "kv_dtype",     "name"};

// Key columns that make a short, readable label, in the order shown.
constexpr const char* kLabelColumns[] = {"inputs.workload.name",
                                         "inputs.topology.name",
                                         "inputs.run.network",
                                         "inputs.run.compute",
                                         "op_list.operations.name",
                                         "workload",
                                         "topology",
                                         "network",
                                         "compute",
                                         "name"};

constexpr const char* kSchemaColumn = "schema_version";
// Which podsim wrote the row: neither a key nor a value.
constexpr const char* kVersionColumn = "podsim_version";

// The schema version of a file: its first row's, or none.
std::optional<std::string> schema_of(const CsvDocument& doc) {
  const int c = doc.column(kSchemaColumn);
  for (const CsvRecord& r : doc.rows) {
    if (c >= 0 && r.cells != doc.header) {
      return r.cells[static_cast<size_t>(c)];
    }
  }
  return std::nullopt;
}

// Files of two schema versions have different columns: say so plainly,
// before the header check would name a column.
void check_schemas(const CsvDocument& base, const CsvDocument& cur) {
  const auto b = schema_of(base);
  const auto c = schema_of(cur);
  if (b && c && *b != *c) {
    throw CompareError(cur.source + ": schema_version " + *c + ", but " + base.source +
                       " has schema_version " + *b +
                       "; compare results written with the same schema (regenerate the "
                       "baseline with this podsim)");
  }
}

std::optional<double> parse_number(const std::string& cell) {
  double v = 0;
  const char* end = cell.data() + cell.size();
  const auto [ptr, ec] = std::from_chars(cell.data(), end, v);
  if (cell.empty() || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return v;
}

[[noreturn]] void fail(const CsvDocument& doc, int line, const std::string& why) {
  throw CompareError(doc.source + ":" + std::to_string(line) + ": " + why);
}

void check_headers(const CsvDocument& base, const CsvDocument& cur) {
  if (base.header == cur.header) {
    return;
  }
  std::string why = "header differs from " + base.source + ":1: ";
  const size_t common = std::min(base.header.size(), cur.header.size());
  size_t i = 0;
  while (i < common && base.header[i] == cur.header[i]) {
    ++i;
  }
  if (i < common) {
    why += "column " + std::to_string(i + 1) + " is '" + cur.header[i] + "' here and '" +
           base.header[i] + "' there";
  } else {
    why += std::to_string(cur.header.size()) + " columns here, " +
           std::to_string(base.header.size()) + " there";
  }
  fail(cur, 1, why + "; compare results written by the same kind of run and version");
}

// The roles of the columns of one header.
struct Layout {
  std::vector<size_t> key;
  std::vector<size_t> values;
  int schema = -1;
};

// `match_by` empty: the scenario key (see compare.h); else those columns.
Layout layout_of(const CsvDocument& doc, const std::vector<std::string>& match_by) {
  for (const std::string& name : match_by) {
    if (doc.column(name) < 0) {
      fail(doc, 1, "--match-by column \"" + name + "\" is not a column of this file");
    }
  }
  Layout l;
  for (size_t c = 0; c < doc.header.size(); ++c) {
    if (!match_by.empty()) {
      const bool key = std::find(match_by.begin(), match_by.end(), doc.header[c]) != match_by.end();
      if (key) {
        l.key.push_back(c);
        continue;
      }
    }
    if (doc.header[c] == kSchemaColumn) {
      l.schema = static_cast<int>(c);
    } else if (doc.header[c] == kVersionColumn) {
      continue;
    } else if (match_by.empty() && is_key_column(doc.header[c])) {
      l.key.push_back(c);
    } else {
      l.values.push_back(c);
    }
  }
  if (l.key.empty()) {
    fail(doc, 1, "no scenario key column (inputs.topology.name, ...): not a podsim result CSV");
  }
  return l;
}

// The key cells in their canonical form (compare_key.h) joined by a unit
// separator, which cannot occur in a name.
std::string row_key(const Layout& l, const CsvRecord& row) {
  std::string key;
  key.reserve(32 * l.key.size());
  for (const size_t c : l.key) {
    append_canonical_key_cell(row.cells[c], key);
    key += '\x1f';
  }
  return key;
}

Scenario scenario_of(const CsvDocument& doc, const Layout& l, const CsvRecord& row) {
  Scenario s;
  for (const size_t c : l.key) {
    s.key.emplace_back(doc.header[c], row.cells[c]);
  }
  for (const char* name : kLabelColumns) {
    const int c = doc.column(name);
    if (c >= 0) {
      s.label += (s.label.empty() ? "" : " / ") + row.cells[static_cast<size_t>(c)];
    }
  }
  if (s.label.empty()) {
    s.label = s.key_text();
  }
  return s;
}

// One file's rows by key, checking that keys are unique and that every row
// has the schema version of the baseline's first row.
std::unordered_map<std::string, size_t> index_rows(const CsvDocument& doc, const Layout& l,
                                                   const std::string* schema, bool match_by) {
  std::unordered_map<std::string, size_t> index;
  index.reserve(doc.rows.size());
  for (size_t r = 0; r < doc.rows.size(); ++r) {
    const CsvRecord& row = doc.rows[r];
    if (l.schema >= 0 && schema != nullptr && row.cells[static_cast<size_t>(l.schema)] != *schema) {
      fail(doc, row.line,
           "schema_version " + row.cells[static_cast<size_t>(l.schema)] + ", expected " + *schema +
               "; compare results of one schema version");
    }
    const auto [it, added] = index.emplace(row_key(l, row), r);
    if (!added && match_by) {
      fail(doc, row.line,
           "same --match-by key as line " + std::to_string(doc.rows[it->second].line) + " (" +
               scenario_of(doc, l, row).key_text() +
               "); every row needs a distinct key: add a column to --match-by");
    }
    if (!added) {
      fail(doc, row.line,
           "same scenario as line " + std::to_string(doc.rows[it->second].line) + " (" +
               scenario_of(doc, l, row).label + "); every row needs a distinct key");
    }
  }
  return index;
}

// Concatenating several runs' CSV output (`cat a.csv b.csv`) repeats the
// header before each run's rows: such lines are headers, not scenarios.
CsvDocument without_repeated_headers(const CsvDocument& doc) {
  CsvDocument rows;
  rows.source = doc.source;
  rows.header = doc.header;
  for (const CsvRecord& r : doc.rows) {
    if (r.cells != doc.header) {
      rows.rows.push_back(r);
    }
  }
  return rows;
}

// Whether `t`'s pattern names `column`: the column itself, or a prefix of it.
bool names(const ColumnTolerance& t, const std::string& column) {
  return t.pattern.ends_with('*')
             ? column.starts_with(std::string_view(t.pattern.data(), t.pattern.size() - 1))
             : t.pattern == column;
}

// Every per-column pattern must name an output column: a pattern that
// matches nothing (a typo) would silently leave the default in place.
void check_tolerance_patterns(const CsvDocument& doc, const Layout& l,
                              const CompareOptions& options) {
  for (const ColumnTolerance& t : options.columns) {
    const bool used = std::any_of(l.values.begin(), l.values.end(),
                                  [&](size_t col) { return names(t, doc.header[col]); });
    if (!used) {
      fail(doc, 1, "tolerance pattern \"" + t.pattern + "\" names no output column");
    }
  }
}

// Whether column `c` holds key cells that name different inputs among
// `rows`; O(rows), canonical forms computed only where texts differ.
bool key_differs(size_t c, const std::vector<const CsvRecord*>& rows) {
  for (size_t r = 1; r < rows.size(); ++r) {
    if (!same_key_cell(rows[0]->cells[c], rows[r]->cells[c])) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> differing_key_columns(const CsvDocument& doc, const Layout& l,
                                               const std::vector<const CsvRecord*>& rows) {
  std::vector<std::string> columns;
  for (const size_t c : l.key) {
    if (key_differs(c, rows)) {
      columns.push_back(doc.header[c]);
    }
  }
  return columns;
}

// Rows of one file only, with their labels.
struct Unmatched {
  std::vector<const CsvRecord*> rows;
  std::vector<const std::string*> labels;
};

// The canonical values of column `c` among `u`'s rows.
std::unordered_set<std::string> key_values(size_t c, const Unmatched& u) {
  std::unordered_set<std::string> values;
  for (const CsvRecord* row : u.rows) {
    values.insert(canonical_key_cell(row->cells[c]));
  }
  return values;
}

// Whether column `c` varies among rows of `u` that share a label: the label
// alone does not tell them apart.
bool varies_under_a_label(size_t c, const Unmatched& u) {
  std::unordered_map<std::string_view, const std::string*> first;
  for (size_t i = 0; i < u.rows.size(); ++i) {
    const std::string& cell = u.rows[i]->cells[c];
    const auto [it, added] = first.emplace(*u.labels[i], &cell);
    if (!added && !same_key_cell(*it->second, cell)) {
      return true;
    }
  }
  return false;
}

// The key columns the appeared and disappeared lists show beside each row's
// label (compare.h, shown_key): a column whose values differ between the two
// lists (what changed), or that varies among rows of one list with one
// label. Columns constant over all of them are skipped at the cost of one
// pass. O(rows x key columns), hashed.
std::vector<std::string> shown_key_columns(const CsvDocument& doc, const Layout& l,
                                           const Unmatched& gone, const Unmatched& added) {
  std::vector<const CsvRecord*> all = gone.rows;
  all.insert(all.end(), added.rows.begin(), added.rows.end());
  std::vector<std::string> columns;
  for (const size_t c : l.key) {
    if (!key_differs(c, all)) {
      continue;
    }
    const bool between =
        !gone.rows.empty() && !added.rows.empty() && key_values(c, gone) != key_values(c, added);
    if (between || varies_under_a_label(c, gone) || varies_under_a_label(c, added)) {
      columns.push_back(doc.header[c]);
    }
  }
  return columns;
}

void compare_row(const CsvDocument& base, const Layout& l, const CsvRecord& b, const CsvRecord& c,
                 const CompareOptions& options, Comparison& out) {
  for (const size_t col : l.values) {
    ++out.values_compared;
    const std::string& bv = b.cells[col];
    const std::string& cv = c.cells[col];
    if (bv == cv) {
      continue;
    }
    MovedValue m;
    const auto bn = parse_number(bv);
    const auto cn = parse_number(cv);
    if (bn && cn) {
      if (!value_moved(base.header[col], *bn, *cn, options)) {
        continue;
      }
      m.allowed = allowed_delta(base.header[col], *bn, options);
      m.delta = *cn - *bn;
      if (*bn != 0) {
        m.rel_delta = *m.delta / std::abs(*bn);
      }
    }
    m.scenario = scenario_of(base, l, b);
    m.column = base.header[col];
    m.baseline = bv;
    m.current = cv;
    out.moved.push_back(std::move(m));
  }
}

}  // namespace

std::string Scenario::key_text() const {
  std::string text;
  for (const auto& [column, cell] : key) {
    text += (text.empty() ? "" : "; ") + column + "=" + cell;
  }
  return text;
}

std::string Scenario::key_text(const std::vector<std::string>& columns) const {
  std::string text;
  for (const auto& [column, cell] : key) {
    if (std::find(columns.begin(), columns.end(), column) != columns.end()) {
      text += (text.empty() ? "" : "; ") + column + "=" + cell;
    }
  }
  return text.empty() ? key_text() : text;
}

std::vector<std::string> parse_match_by(std::string_view text) {
  std::vector<std::string> columns;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string name(
        text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (name.empty()) {
      throw std::invalid_argument("expected COLUMN[,COLUMN...], got \"" + std::string(text) +
                                  "\" (an empty column name)");
    }
    if (std::find(columns.begin(), columns.end(), name) != columns.end()) {
      throw std::invalid_argument("column \"" + name + "\" is named twice");
    }
    columns.push_back(name);
    if (comma == std::string_view::npos) {
      return columns;
    }
    start = comma + 1;
  }
}

bool is_key_column(const std::string& column) {
  if (column.starts_with(kInputsPrefix) || column == kOperationKey) {
    return true;
  }
  return std::find(std::begin(kLegacyKeyColumns), std::end(kLegacyKeyColumns), column) !=
         std::end(kLegacyKeyColumns);
}

ColumnTolerance parse_column_tolerance(std::string_view text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw std::invalid_argument("expected PATTERN=REL or PATTERN=REL,ABS, got \"" +
                                std::string(text) + "\"");
  }
  ColumnTolerance t;
  t.pattern = std::string(text.substr(0, eq));
  if (t.pattern.find('*') != std::string::npos &&
      (t.pattern.find('*') != t.pattern.size() - 1 || t.pattern.size() == 1)) {
    throw std::invalid_argument("pattern \"" + t.pattern +
                                "\": '*' may only end a prefix, as in serving.link_stats.*");
  }
  const std::string_view numbers = text.substr(eq + 1);
  const size_t comma = numbers.find(',');
  const auto number = [&](std::string_view cell, const char* what) {
    const auto v = parse_number(std::string(cell));
    if (!v || !std::isfinite(*v) || *v < 0) {
      throw std::invalid_argument("pattern \"" + t.pattern + "\": " + what +
                                  " tolerance must be a finite number >= 0, got \"" +
                                  std::string(cell) + "\"");
    }
    return *v;
  };
  t.rel_tol = number(numbers.substr(0, comma), "relative");
  if (comma != std::string_view::npos) {
    t.abs_tol = number(numbers.substr(comma + 1), "absolute");
  }
  return t;
}

const ColumnTolerance* tolerance_for(const std::string& column, const CompareOptions& options) {
  const ColumnTolerance* best = nullptr;
  size_t best_prefix = 0;
  for (const ColumnTolerance& t : options.columns) {
    if (!names(t, column)) {
      continue;
    }
    if (!t.pattern.ends_with('*')) {
      return &t;  // an exact name beats every prefix
    }
    if (best == nullptr || t.pattern.size() > best_prefix) {
      best = &t;
      best_prefix = t.pattern.size();
    }
  }
  return best;
}

double allowed_delta(const std::string& column, double baseline, const CompareOptions& options) {
  if (const ColumnTolerance* t = tolerance_for(column, options)) {
    return std::max(t->rel_tol * std::abs(baseline), t->abs_tol);
  }
  const bool microseconds = column.size() > 3 && column.ends_with("_us");
  return std::max(options.rel_tol * std::abs(baseline), microseconds ? options.abs_tol_us : 0.0);
}

bool value_moved(const std::string& column, double baseline, double current,
                 const CompareOptions& options) {
  // Written so that a NaN on either side counts as moved.
  return !(std::abs(current - baseline) <= allowed_delta(column, baseline, options));
}

Comparison compare_results(const CsvDocument& baseline_file, const CsvDocument& current_file,
                           const CompareOptions& options) {
  check_schemas(baseline_file, current_file);
  check_headers(baseline_file, current_file);
  const CsvDocument baseline = without_repeated_headers(baseline_file);
  const CsvDocument current = without_repeated_headers(current_file);
  const Layout l = layout_of(baseline, options.match_by);
  std::optional<std::string> schema;
  if (l.schema >= 0 && !baseline.rows.empty()) {
    schema = baseline.rows.front().cells[static_cast<size_t>(l.schema)];
  } else if (l.schema >= 0 && !current.rows.empty()) {
    schema = current.rows.front().cells[static_cast<size_t>(l.schema)];
  }
  check_tolerance_patterns(baseline, l, options);
  const bool match_by = !options.match_by.empty();
  const auto base_index = index_rows(baseline, l, schema ? &*schema : nullptr, match_by);
  const auto cur_index = index_rows(current, l, schema ? &*schema : nullptr, match_by);

  Comparison out;
  std::vector<uint8_t> matched(current.rows.size(), 0);
  Unmatched gone;
  Unmatched added;
  // In baseline order: its index, inverted.
  std::vector<const std::string*> base_keys(baseline.rows.size(), nullptr);
  for (const auto& [key, r] : base_index) {
    base_keys[r] = &key;
  }
  for (size_t r = 0; r < baseline.rows.size(); ++r) {
    const CsvRecord& b = baseline.rows[r];
    const auto it = cur_index.find(*base_keys[r]);
    if (it == cur_index.end()) {
      out.disappeared.push_back(scenario_of(baseline, l, b));
      gone.rows.push_back(&b);
      continue;
    }
    matched[it->second] = 1;
    ++out.scenarios_matched;
    out.matched.push_back(scenario_of(baseline, l, b));
    compare_row(baseline, l, b, current.rows[it->second], options, out);
  }
  for (size_t r = 0; r < current.rows.size(); ++r) {
    if (matched[r] == 0) {
      out.appeared.push_back(scenario_of(current, l, current.rows[r]));
      added.rows.push_back(&current.rows[r]);
    }
  }
  for (const Scenario& s : out.disappeared) {
    gone.labels.push_back(&s.label);
  }
  for (const Scenario& s : out.appeared) {
    added.labels.push_back(&s.label);
  }
  const bool unmatched = !gone.rows.empty() || !added.rows.empty();
  if (unmatched) {
    out.shown_key = shown_key_columns(baseline, l, gone, added);
  }
  if (unmatched && out.shown_key.empty()) {
    // One row alone: the columns that vary across both files.
    std::vector<const CsvRecord*> all;
    all.reserve(baseline.rows.size() + current.rows.size());
    for (const CsvDocument* doc : {&baseline, &current}) {
      for (const CsvRecord& row : doc->rows) {
        all.push_back(&row);
      }
    }
    out.shown_key = differing_key_columns(baseline, l, all);
  }
  return out;
}

}  // namespace podsim::report
