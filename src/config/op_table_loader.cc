#include "config/op_table_loader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/internal/issue_list.h"

namespace podsim::config {
namespace {

using internal::quoted;

constexpr std::array<std::string_view, 4> kColumns = {"kind", "shape", "dtype", "time_us"};
enum Column { kKindColumn, kShapeColumn, kDtypeColumn, kTimeColumn };

constexpr std::array<DType, 5> kDtypes = {DType::kBf16, DType::kFp32, DType::kFp8, DType::kInt8,
                                          DType::kInt4};

// "bf16", "fp32", "fp8", "int8", "int4": as tables spell them.
constexpr std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBf16:
      return "bf16";
    case DType::kFp32:
      return "fp32";
    case DType::kFp8:
      return "fp8";
    case DType::kInt8:
      return "int8";
    case DType::kInt4:
      return "int4";
  }
  return "?";
}

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// A piece of a line without its surrounding blanks, and the 1-based column
// where it starts (where it would start, if empty).
struct Token {
  std::string_view text;
  int column = 1;
};

Token trim(std::string_view text, int column) {
  size_t begin = 0;
  while (begin < text.size() && is_space(text[begin]))
    ++begin;
  size_t end = text.size();
  while (end > begin && is_space(text[end - 1]))
    --end;
  return {text.substr(begin, end - begin), column + static_cast<int>(begin)};
}

// Splits on `sep`, trimming each piece.
std::vector<Token> split(Token whole, char sep) {
  std::vector<Token> out;
  size_t start = 0;
  while (true) {
    const size_t end = whole.text.find(sep, start);
    const size_t stop = end == std::string_view::npos ? whole.text.size() : end;
    out.push_back(
        trim(whole.text.substr(start, stop - start), whole.column + static_cast<int>(start)));
    if (end == std::string_view::npos)
      return out;
    start = end + 1;
  }
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    return lower(x) == lower(y);
  });
}

std::optional<uint64_t> parse_unsigned(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    return std::nullopt;
  return value;
}

std::string dim_names(std::span<const OpTableDim> dims) {
  std::string out;
  for (const OpTableDim& d : dims) {
    if (!out.empty())
      out += ", ";
    out += d.name;
  }
  return out;
}

using EntryKey = std::tuple<OpTableKind, std::array<uint64_t, kMaxOpTableDims>, DType, DType>;

EntryKey key_of(const OpTableEntry& e) {
  return {e.kind, e.dims, e.dtype, e.second_dtype};
}

class TableParser {
 public:
  TableParser(std::string_view text, std::string source) : text_(text) {
    spec_.source_file = std::move(source);
  }

  OpTableSpec run() {
    bool have_header = false;
    int line_no = 0;
    size_t pos = 0;
    while (pos <= text_.size()) {
      const size_t newline = text_.find('\n', pos);
      const size_t stop = newline == std::string_view::npos ? text_.size() : newline;
      std::string_view line = text_.substr(pos, stop - pos);
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      ++line_no;
      const Token content = trim(line, 1);
      if (!content.text.empty() && content.text.front() != '#') {
        if (have_header) {
          parse_row(line, line_no);
        } else if (!parse_header(line, line_no)) {
          break;  // without the header the columns cannot be trusted
        } else {
          have_header = true;
        }
      }
      if (newline == std::string_view::npos)
        break;
      pos = newline + 1;
    }
    if (problems_.empty() && spec_.entries.empty()) {
      problem(0, 0, "",
              have_header ? "no rows: the table times no operation"
                          : "empty: expected the header line kind,shape,dtype,time_us");
    }
    if (problems_.empty())
      check_duplicates();
    if (!problems_.empty())
      throw InputError(std::move(problems_));
    return std::move(spec_);
  }

 private:
  void problem(int line, int column, std::string_view field, std::string message) {
    Diagnostic d;
    d.file = spec_.source_file;
    d.line = line;
    d.column = column;
    d.field = std::string(field);
    d.message = std::move(message);
    problems_.push_back(std::move(d));
  }

  bool parse_header(std::string_view line, int line_no) {
    const std::vector<Token> cells = split({line, 1}, ',');
    bool ok = cells.size() == kColumns.size();
    for (size_t i = 0; ok && i < cells.size(); ++i)
      ok = cells[i].text == kColumns[i];
    if (!ok) {
      problem(
          line_no, 1, "",
          "expected the header line kind,shape,dtype,time_us, got " + quoted(trim(line, 1).text));
    }
    return ok;
  }

  void parse_row(std::string_view line, int line_no) {
    const std::vector<Token> cells = split({line, 1}, ',');
    if (cells.size() != kColumns.size()) {
      problem(line_no, 1, "",
              "expected 4 cells (kind,shape,dtype,time_us), got " + std::to_string(cells.size()));
      return;
    }
    OpTableEntry entry;
    entry.line = line_no;
    const std::optional<OpTableKind> kind = parse_kind(cells[kKindColumn], line_no);
    bool ok = kind.has_value();
    if (ok) {
      entry.kind = *kind;
      ok = parse_shape(cells[kShapeColumn], line_no, entry);
      ok = parse_dtypes(cells[kDtypeColumn], line_no, entry) && ok;
    }
    ok = parse_time(cells[kTimeColumn], line_no, entry) && ok;
    if (ok)
      spec_.entries.push_back(entry);
  }

  std::optional<OpTableKind> parse_kind(const Token& cell, int line_no) {
    for (size_t i = 0; i < kOpTableKindCount; ++i) {
      const auto kind = static_cast<OpTableKind>(i);
      if (cell.text == to_string(kind))
        return kind;
    }
    std::string known;
    for (size_t i = 0; i < kOpTableKindCount; ++i)
      known += (i ? ", " : "") + std::string(to_string(static_cast<OpTableKind>(i)));
    problem(line_no, cell.column, kColumns[kKindColumn],
            "unknown kind " + quoted(cell.text) + "; expected one of " + known);
    return std::nullopt;
  }

  // Fills entry.dims from "name=value;name=value"; every name once, every
  // dimension without a default present, values within the schema's range.
  bool parse_shape(const Token& cell, int line_no, OpTableEntry& entry) {
    const std::span<const OpTableDim> dims = op_table_dims(entry.kind);
    const std::string_view field = kColumns[kShapeColumn];
    std::array<bool, kMaxOpTableDims> seen{};
    bool ok = true;
    for (const Token& pair : split(cell, ';')) {
      const size_t eq = pair.text.find('=');
      if (eq == std::string_view::npos) {
        problem(line_no, pair.column, field,
                "expected name=value, got " + quoted(pair.text) + " (names for " +
                    std::string(to_string(entry.kind)) + ": " + dim_names(dims) + ")");
        ok = false;
        continue;
      }
      const Token name = trim(pair.text.substr(0, eq), pair.column);
      const Token value = trim(pair.text.substr(eq + 1), pair.column + static_cast<int>(eq) + 1);
      const auto it = std::find_if(dims.begin(), dims.end(),
                                   [&](const OpTableDim& d) { return d.name == name.text; });
      if (it == dims.end()) {
        problem(line_no, name.column, field,
                "unknown dimension " + quoted(name.text) + " for " +
                    std::string(to_string(entry.kind)) + "; expected " + dim_names(dims));
        ok = false;
        continue;
      }
      const auto index = static_cast<size_t>(it - dims.begin());
      if (seen[index]) {
        problem(line_no, name.column, field, std::string(name.text) + " given twice");
        ok = false;
        continue;
      }
      seen[index] = true;
      const std::optional<uint64_t> v = parse_unsigned(value.text);
      if (!v || *v < it->min_value || *v > it->max_value) {
        std::string range = "an integer >= " + std::to_string(it->min_value);
        if (it->max_value != std::numeric_limits<uint64_t>::max())
          range = it->min_value == 0 && it->max_value == 1
                      ? "0 or 1"
                      : range + " and <= " + std::to_string(it->max_value);
        problem(line_no, value.column, field,
                std::string(name.text) + " must be " + range + ", got " + quoted(value.text));
        ok = false;
        continue;
      }
      entry.dims[index] = *v;
    }
    // After a malformed or unknown entry, "missing" would mostly repeat it.
    const bool report_missing = ok;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (seen[i])
        continue;
      if (dims[i].default_value) {
        entry.dims[i] = *dims[i].default_value;
        continue;
      }
      ok = false;
      if (report_missing) {
        problem(line_no, cell.column, field,
                "missing " + std::string(dims[i].name) + " (" + std::string(to_string(entry.kind)) +
                    " needs " + dim_names(dims) + ")");
      }
    }
    return ok && check_product(cell, line_no, entry) && check_attention(cell, line_no, entry);
  }

  // Every cost formula (chip/ops.cc) multiplies some of a row's sizes by
  // small constants; bounding the product of them all bounds every such
  // product, so no row can overflow the model that reads it (found by
  // op_table_fuzzer: kv_len = 2^64 - 2 was loaded, then overflowed).
  bool check_product(const Token& cell, int line_no, const OpTableEntry& entry) {
    constexpr uint64_t kMaxProduct = uint64_t{1} << 56;
    const std::span<const OpTableDim> dims = op_table_dims(entry.kind);
    uint64_t product = 1;
    bool overflow = false;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i].max_value == 1)
        continue;  // a flag (causal), not a size
      overflow = overflow || __builtin_mul_overflow(product, entry.dims[i], &product) ||
                 product > kMaxProduct;
    }
    if (!overflow)
      return true;
    problem(line_no, cell.column, kColumns[kShapeColumn],
            "the sizes multiply to more than 2^56 (" + dim_names(dims) +
                "): no chip runs an operation that large, and its costs would overflow");
    return false;
  }

  // Rules across an attention row's dimensions (dims in schema order).
  bool check_attention(const Token& cell, int line_no, const OpTableEntry& entry) {
    if (entry.kind != OpTableKind::kAttentionPrefill && entry.kind != OpTableKind::kAttentionDecode)
      return true;
    const uint64_t q_len = entry.dims[1], kv_len = entry.dims[2], heads = entry.dims[3],
                   kv_heads = entry.dims[4], causal = entry.dims[6];
    bool ok = true;
    if (heads % kv_heads != 0) {
      problem(line_no, cell.column, kColumns[kShapeColumn],
              "heads (" + std::to_string(heads) + ") must be a multiple of kv_heads (" +
                  std::to_string(kv_heads) + ")");
      ok = false;
    }
    if (causal == 1 && q_len > kv_len) {
      problem(line_no, cell.column, kColumns[kShapeColumn],
              "causal attention needs q_len <= kv_len (the queries are the last q_len of the "
              "kv_len positions), got " +
                  std::to_string(q_len) + " > " + std::to_string(kv_len));
      ok = false;
    }
    return ok;
  }

  bool parse_dtypes(const Token& cell, int line_no, OpTableEntry& entry) {
    const std::string_view field = kColumns[kDtypeColumn];
    if (!op_table_kind_has_dtype(entry.kind)) {
      if (cell.text.empty())
        return true;
      problem(line_no, cell.column, field,
              std::string(to_string(entry.kind)) +
                  " has no dtype (its sizes are bytes); leave "
                  "the cell empty, got " +
                  quoted(cell.text));
      return false;
    }
    const std::vector<Token> names = split(cell, '/');
    const bool two_allowed = op_table_kind_has_two_dtypes(entry.kind);
    if (names.size() > (two_allowed ? 2u : 1u)) {
      problem(line_no, cell.column, field,
              two_allowed ? "expected DTYPE or ACTIVATIONS/OTHER, got " + quoted(cell.text)
                          : std::string(to_string(entry.kind)) + " takes one dtype, got " +
                                quoted(cell.text));
      return false;
    }
    std::array<DType, 2> parsed{};
    bool ok = true;
    for (size_t i = 0; i < names.size(); ++i) {
      const auto it = std::find_if(kDtypes.begin(), kDtypes.end(), [&](DType t) {
        return equals_ignoring_case(names[i].text, dtype_name(t));
      });
      if (it == kDtypes.end()) {
        const std::string what =
            names[i].text.empty() ? "missing dtype" : "unknown dtype " + quoted(names[i].text);
        problem(line_no, names[i].column, field, what + "; expected bf16, fp32, fp8, int8 or int4");
        ok = false;
      } else {
        parsed[i] = *it;
      }
    }
    entry.dtype = parsed[0];
    entry.second_dtype = names.size() == 2 ? parsed[1] : parsed[0];
    return ok;
  }

  bool parse_time(const Token& cell, int line_no, OpTableEntry& entry) {
    double us = 0;
    const char* end = cell.text.data() + cell.text.size();
    const auto [ptr, ec] = std::from_chars(cell.text.data(), end, us);
    // from_chars reports out of range for 1e-400 and 1e400 alike; both are
    // refused below, each with its own reason.
    const bool number = !cell.text.empty() && ptr == end &&
                        (ec == std::errc() || ec == std::errc::result_out_of_range);
    const auto refuse = [&](const std::string& reason) {
      problem(line_no, cell.column, kColumns[kTimeColumn], reason + ", got " + quoted(cell.text));
      return false;
    };
    if (!number || std::isnan(us)) {
      return refuse("must be a time in microseconds, > 0 and at least 1 ps");
    }
    if (ec == std::errc::result_out_of_range) {
      // from_chars leaves the value alone; strtod gives +-HUGE_VAL for
      // 1e400 and a value next to 0 for 1e-400, refused below.
      us = std::strtod(std::string(cell.text).c_str(), nullptr);
    }
    // The longest time the simulator's clock holds (2^63 - 1 ps), in us.
    const double max_us = static_cast<double>(sim::Time::max().count_ps()) / 1e6;
    if (us >= max_us) {
      return refuse("is too long: at most 9.2e12 us (2^63 - 1 ps, the simulated clock's range)");
    }
    std::optional<sim::Time> time;
    if (us > 0) {
      try {
        time = sim::Time::from_ns_rounded(us * 1e3);
      } catch (const sim::TimeOverflow&) {
        return refuse("is too long: at most 9.2e12 us (2^63 - 1 ps, the simulated clock's range)");
      }
    }
    if (!time || *time <= sim::Time::zero()) {
      return refuse("must be a time in microseconds, > 0 and at least 1 ps");
    }
    entry.time = *time;
    return true;
  }

  // O(rows log rows). Reports each repeat at its own line, naming the first.
  void check_duplicates() {
    std::vector<size_t> order(spec_.entries.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return key_of(spec_.entries[a]) < key_of(spec_.entries[b]);
    });
    std::vector<std::pair<int, int>> repeats;  // (line, first line)
    size_t group = 0;  // index in `order` of the first row with the current key
    for (size_t i = 1; i < order.size(); ++i) {
      const OpTableEntry& row = spec_.entries[order[i]];
      const OpTableEntry& first = spec_.entries[order[group]];
      if (key_of(row) != key_of(first)) {
        group = i;
        continue;
      }
      repeats.emplace_back(row.line, first.line);
    }
    std::sort(repeats.begin(), repeats.end());
    for (const auto& [line, first_line] : repeats) {
      problem(line, 1, kColumns[kShapeColumn],
              "same kind, shape and dtype as line " + std::to_string(first_line));
    }
  }

  std::string_view text_;
  OpTableSpec spec_;
  std::vector<Diagnostic> problems_;
};

}  // namespace

OpTableSpec parse_op_table(std::string_view text, std::string source_name) {
  return TableParser(text, std::move(source_name)).run();
}

OpTableSpec load_op_table_file(const std::filesystem::path& path) {
  return parse_op_table(read_file_to_string(path, kMaxTableFileBytes, FileContents::kText),
                        path.string());
}

}  // namespace podsim::config
