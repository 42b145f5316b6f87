#include "calibrate/rows.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "config/diagnostics.h"
#include "config/sha256.h"
#include "report/csv_reader.h"

namespace podsim::calibrate {
namespace {

using config::CollectiveKind;
using config::Diagnostic;
using config::DType;

// The largest measurements file read: a few thousand rows at most.
constexpr uint64_t kMaxRowsFileBytes = uint64_t{16} << 20;
// Sizes a row may name: a slice of up to 4096 chips per dimension product,
// matrices up to 2^20 per side, buffers up to 1 TiB.
constexpr uint64_t kMaxDim = uint64_t{1} << 20;
constexpr uint64_t kMaxBytes = uint64_t{1} << 40;
constexpr uint64_t kMaxSliceChips = 4096;
constexpr char kDimNames[] = {'x', 'y', 'z'};

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

// Collects one diagnostic per bad cell of the file.
class Cells {
 public:
  Cells(const report::CsvDocument& doc, std::vector<Diagnostic>& issues)
      : doc_(doc), issues_(issues) {}

  void at(const report::CsvRecord& record) { record_ = &record; }

  bool has(std::string_view column) const { return doc_.column(column) >= 0; }

  std::string text(std::string_view column) const {
    const int i = doc_.column(column);
    return i < 0 ? std::string() : record_->cells[static_cast<size_t>(i)];
  }

  void problem(std::string_view column, const std::string& message) {
    issues_.push_back(Diagnostic{doc_.source, std::string(column), record_->line, 0, message});
  }

  // A required cell: an error when the column or the value is missing.
  std::optional<std::string> required(std::string_view column, std::string_view why) {
    std::string t = text(column);
    if (t.empty()) {
      problem(column, "required " + std::string(why));
      return std::nullopt;
    }
    return t;
  }

  std::optional<uint64_t> count(std::string_view column, std::string_view why, uint64_t max) {
    const auto t = required(column, why);
    if (!t)
      return std::nullopt;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
    if (ec != std::errc() || end != t->data() + t->size()) {
      problem(column, "must be a whole number, got '" + *t + "'");
      return std::nullopt;
    }
    if (v < 1 || v > max) {
      problem(column, "must be in [1, " + std::to_string(max) + "], got " + *t);
      return std::nullopt;
    }
    return v;
  }

 private:
  const report::CsvDocument& doc_;
  std::vector<Diagnostic>& issues_;
  const report::CsvRecord* record_ = nullptr;
};

std::optional<RowKind> parse_kind(std::string_view s) {
  for (RowKind k : {RowKind::kMatmul, RowKind::kCollective, RowKind::kHbmCopy}) {
    if (s == to_string(k))
      return k;
  }
  return std::nullopt;
}

std::optional<CollectiveKind> parse_collective(std::string_view s) {
  for (CollectiveKind k : {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                           CollectiveKind::kAllReduce, CollectiveKind::kAllToAll}) {
    if (s == collective_name(k))
      return k;
  }
  return std::nullopt;
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : {DType::kBf16, DType::kInt8, DType::kFp8}) {
    if (s == dtype_name(t))
      return t;
  }
  return std::nullopt;
}

std::optional<uint32_t> dim_index(std::string_view name, size_t dims) {
  for (size_t i = 0; i < dims; ++i) {
    if (name.size() == 1 && name[0] == kDimNames[i])
      return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

void parse_slice(Cells& c, Row& row) {
  const auto text = c.required("slice", "for a collective: the slice's sizes, e.g. 8x4");
  if (!text)
    return;
  std::vector<uint32_t> sizes;
  uint64_t chips = 1;
  std::string_view rest = *text;
  while (true) {
    const size_t x = rest.find('x');
    const std::string_view part = rest.substr(0, x);
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v < 1) {
      c.problem("slice",
                "must be sizes joined by 'x', each >= 1 (e.g. 8x4 or 4x4x4), got '" + *text + "'");
      return;
    }
    sizes.push_back(v);
    chips *= v;
    if (x == std::string_view::npos)
      break;
    rest = rest.substr(x + 1);
  }
  if (sizes.size() > std::size(kDimNames)) {
    c.problem("slice", "at most 3 dimensions (x, y, z), got '" + *text + "'");
    return;
  }
  if (chips > kMaxSliceChips) {
    c.problem("slice",
              "at most " + std::to_string(kMaxSliceChips) + " chips, got " + std::to_string(chips));
    return;
  }
  row.slice = sizes;
  row.wraparound.assign(sizes.size(), false);
  for (const std::string& w : words(c.text("wraparound"))) {
    const auto d = dim_index(w, sizes.size());
    if (!d) {
      c.problem("wraparound", "'" + w + "' is not a dimension of the slice " + *text);
      continue;
    }
    if (sizes[*d] < 3) {
      c.problem("wraparound", "dimension " + w + " has " + std::to_string(sizes[*d]) +
                                  " chips; a wraparound needs at least 3");
      continue;
    }
    row.wraparound[*d] = true;
  }
}

void parse_collective_row(Cells& c, Row& row) {
  parse_slice(c, row);
  if (const auto t = c.required("collective", "for a collective")) {
    if (const auto k = parse_collective(*t))
      row.collective = *k;
    else
      c.problem("collective",
                "must be all_gather, reduce_scatter, all_reduce or all_to_all, got '" + *t + "'");
  }
  if (const auto b =
          c.count("bytes", "for a collective: its buffer, as workload.proto counts it", kMaxBytes))
    row.bytes = *b;
  const std::vector<std::string> axes = words(c.text("axes"));
  if (axes.empty()) {
    c.problem("axes", "required for a collective: the slice's dimensions it runs over (x, y, z)");
  }
  for (const std::string& a : axes) {
    const auto d = dim_index(a, row.slice.size());
    if (!d) {
      if (!row.slice.empty())
        c.problem("axes", "'" + a + "' is not a dimension of the slice " + c.text("slice"));
      continue;
    }
    for (const uint32_t seen : row.axes) {
      if (seen == *d)
        c.problem("axes", "names " + a + " twice");
    }
    row.axes.push_back(*d);
  }
}

void parse_matmul_row(Cells& c, Row& row) {
  if (const auto t = c.required("dtype", "for a matmul: bf16, int8 or fp8")) {
    if (const auto d = parse_dtype(*t)) {
      row.matmul.act = *d;
      row.matmul.weight = *d;
    } else {
      c.problem("dtype", "must be bf16, int8 or fp8, got '" + *t + "'");
    }
  }
  const char* why = "for a matmul";
  row.matmul.m = c.count("m", why, kMaxDim).value_or(0);
  row.matmul.k = c.count("k", why, kMaxDim).value_or(0);
  row.matmul.n = c.count("n", why, kMaxDim).value_or(0);
  row.matmul.batch = c.text("batch").empty() ? 1 : c.count("batch", why, kMaxDim).value_or(1);
}

void parse_measured(Cells& c, Row& row) {
  const auto t = c.required("measured_us", "for every row: the measured time in microseconds");
  if (!t)
    return;
  double v = 0;
  const auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
  if (ec != std::errc() || end != t->data() + t->size() || !std::isfinite(v) || !(v > 0) ||
      v > 1e9) {
    c.problem("measured_us", "must be a number of microseconds in (0, 1e9], got '" + *t + "'");
    return;
  }
  row.measured_us = v;
}

}  // namespace

std::string_view to_string(RowKind kind) {
  switch (kind) {
    case RowKind::kMatmul:
      return "matmul";
    case RowKind::kCollective:
      return "collective";
    case RowKind::kHbmCopy:
      return "hbm_copy";
  }
  return "?";
}

std::string_view collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    default:
      break;
  }
  return "?";
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBf16:
      return "bf16";
    case DType::kInt8:
      return "int8";
    case DType::kFp8:
      return "fp8";
    default:
      break;
  }
  return "?";
}

std::string Row::describe() const {
  std::ostringstream s;
  switch (kind) {
    case RowKind::kMatmul:
      s << "matmul ";
      if (matmul.batch > 1)
        s << matmul.batch << " x ";
      s << matmul.m << "x" << matmul.k << "x" << matmul.n << " " << dtype_name(matmul.act);
      break;
    case RowKind::kHbmCopy:
      s << "hbm_copy " << bytes << " B";
      break;
    case RowKind::kCollective: {
      s << collective_name(collective) << " " << bytes << " B over ";
      for (size_t i = 0; i < axes.size(); ++i)
        s << (i > 0 ? "," : "") << kDimNames[axes[i]];
      s << " of ";
      for (size_t i = 0; i < slice.size(); ++i)
        s << (i > 0 ? "x" : "") << slice[i];
      break;
    }
  }
  return s.str();
}

RowSet parse_rows(std::string_view text, const std::string& source) {
  report::CsvDocument doc;
  try {
    doc = report::parse_csv(text, source);
  } catch (const report::CsvError& e) {
    throw config::InputError(Diagnostic{source, "", 0, 0, e.what()});
  }
  std::vector<Diagnostic> issues;
  const std::vector<std::string> known = [] {
    std::vector<std::string> out;
    std::istringstream in{std::string(kColumns)};
    for (std::string c; std::getline(in, c, ',');)
      out.push_back(c);
    return out;
  }();
  for (const std::string& h : doc.header) {
    if (std::find(known.begin(), known.end(), h) == known.end())
      issues.push_back(
          Diagnostic{source, h, 1, 0, "unknown column; the columns are " + std::string(kColumns)});
  }
  for (const char* needed : {"kind", "chip", "measured_us"}) {
    if (doc.column(needed) < 0)
      issues.push_back(Diagnostic{source, needed, 1, 0, "required column is missing"});
  }
  if (!issues.empty())
    throw config::InputError(issues);
  if (doc.rows.empty())
    throw config::InputError(Diagnostic{source, "", 0, 0, "has a header but no measurements"});

  RowSet set;
  set.file = source;
  set.sha256 = config::sha256_hex(text);
  Cells cells(doc, issues);
  for (const report::CsvRecord& record : doc.rows) {
    cells.at(record);
    Row row;
    row.line = record.line;
    row.chip = cells.text("chip");
    if (row.chip.empty())
      cells.problem("chip", "required: the chip as topologies name it (e.g. TPU v5e)");
    row.harness = cells.text("harness");
    row.source = cells.text("source");
    parse_measured(cells, row);
    const auto kind = cells.required("kind", "for every row: matmul, collective or hbm_copy");
    if (!kind)
      continue;
    const auto k = parse_kind(*kind);
    if (!k) {
      cells.problem("kind", "must be matmul, collective or hbm_copy, got '" + *kind + "'");
      continue;
    }
    row.kind = *k;
    switch (row.kind) {
      case RowKind::kMatmul:
        parse_matmul_row(cells, row);
        break;
      case RowKind::kCollective:
        parse_collective_row(cells, row);
        break;
      case RowKind::kHbmCopy:
        row.bytes =
            cells.count("bytes", "for an HBM copy: the bytes copied", kMaxBytes).value_or(0);
        break;
    }
    set.rows.push_back(std::move(row));
  }
  if (!issues.empty())
    throw config::InputError(issues);
  return set;
}

RowSet load_rows(const std::filesystem::path& path) {
  const std::string text =
      config::read_file_to_string(path, kMaxRowsFileBytes, config::FileContents::kText);
  return parse_rows(text, path.string());
}

}  // namespace podsim::calibrate
