#include "config/trace_loader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "config/sha256.h"
#include "config/trace_prefix.h"

namespace podsim::config {
namespace {

constexpr std::string_view kAzureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens";
constexpr std::string_view kPlainHeader = "arrival_s,prompt_tokens,output_tokens";
// Optional columns after the three required ones, in any order.
enum class Extra { kPrefix, kSloClass };
constexpr std::string_view kExtraNames[] = {"prefix", "slo_class"};
constexpr int64_t kPsPerS = 1'000'000'000'000;
constexpr size_t kMaxErrors = 20;  // a wholly wrong file is not worth a million lines

enum class Format { kAzure, kPlain };

// A row's time: whole seconds (since 1970 for Azure timestamps, since the
// trace's zero for plain ones) and picoseconds within the second.
struct Stamp {
  int64_t seconds = 0;
  int64_t frac_ps = 0;
  auto operator<=>(const Stamp&) const = default;
};

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (the
// era-based civil-date arithmetic: 400-year eras of 146097 days).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Exactly `n` decimal digits at s[pos...]; advances pos.
std::optional<int64_t> digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size())
    return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c)
    return false;
  ++pos;
  return true;
}

// "YYYY-MM-DD HH:MM:SS[.f{1,7}]": seconds since 1970-01-01 and picoseconds.
std::optional<Stamp> azure_time(std::string_view s) {
  size_t pos = 0;
  const auto y = digits(s, pos, 4);
  if (!y || !expect(s, pos, '-'))
    return std::nullopt;
  const auto mo = digits(s, pos, 2);
  if (!mo || !expect(s, pos, '-'))
    return std::nullopt;
  const auto d = digits(s, pos, 2);
  if (!d || !expect(s, pos, ' '))
    return std::nullopt;
  const auto h = digits(s, pos, 2);
  if (!h || !expect(s, pos, ':'))
    return std::nullopt;
  const auto mi = digits(s, pos, 2);
  if (!mi || !expect(s, pos, ':'))
    return std::nullopt;
  const auto sec = digits(s, pos, 2);
  if (!sec)
    return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > days_in_month(*y, static_cast<unsigned>(*mo)) ||
      *h > 23 || *mi > 59 || *sec > 59)
    return std::nullopt;
  int64_t frac_ps = 0;
  if (pos < s.size()) {
    if (!expect(s, pos, '.'))
      return std::nullopt;
    const size_t n = s.size() - pos;
    if (n < 1 || n > 7)
      return std::nullopt;
    auto f = digits(s, pos, n);
    if (!f)
      return std::nullopt;
    int64_t scale = kPsPerS;
    for (size_t i = 0; i < n; ++i)
      scale /= 10;
    frac_ps = *f * scale;
  }
  const int64_t days = days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
  return Stamp{days * 86400 + *h * 3600 + *mi * 60 + *sec, frac_ps};
}

// "12" or "12.5" (up to 12 fraction digits), seconds >= 0, as whole seconds
// and picoseconds;
// at most kMaxServeDurationS.
std::optional<Stamp> plain_time(std::string_view s) {
  size_t pos = 0;
  int64_t whole = 0;
  size_t n = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    whole = whole * 10 + (s[pos++] - '0');
    if (++n > 10)
      return std::nullopt;
  }
  if (n == 0)
    return std::nullopt;
  int64_t frac_ps = 0;
  if (pos < s.size()) {
    if (!expect(s, pos, '.'))
      return std::nullopt;
    const size_t m = s.size() - pos;
    if (m < 1 || m > 12)
      return std::nullopt;
    auto f = digits(s, pos, m);
    if (!f)
      return std::nullopt;
    int64_t scale = kPsPerS;
    for (size_t i = 0; i < m; ++i)
      scale /= 10;
    frac_ps = *f * scale;
  }
  if (static_cast<double>(whole) > kMaxServeDurationS)
    return std::nullopt;
  return Stamp{whole, frac_ps};
}

std::optional<uint32_t> tokens(std::string_view s) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > kMaxRequestTokens)
    return std::nullopt;
  return v;
}

std::string_view strip_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  return line;
}

struct Row {
  Stamp time;
  uint32_t prompt = 0;
  uint32_t output = 0;
  std::string prefix;
  std::string slo_class;
};

// Splits `line` at commas into `cells`, with each cell's 1-based column.
void split_cells(std::string_view line, std::vector<std::string_view>& cells,
                 std::vector<int>& columns) {
  cells.clear();
  columns.clear();
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    columns.push_back(static_cast<int>(start) + 1);
    if (comma == std::string_view::npos) {
      cells.push_back(line.substr(start));
      return;
    }
    cells.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

std::vector<TraceRequest> parse_trace_csv(std::string_view text, const std::string& source_name,
                                          double speedup) {
  std::vector<Diagnostic> errors;
  auto fail = [&](int line, int column, std::string message) {
    if (errors.size() < kMaxErrors)
      errors.push_back(Diagnostic{source_name, "", line, column, std::move(message)});
  };
  size_t pos = 0;
  auto next_line = [&](std::string_view& out) {
    if (pos >= text.size())
      return false;
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    out = strip_cr(text.substr(pos, end - pos));
    pos = end + 1;
    return true;
  };
  std::string_view header;
  if (!next_line(header))
    throw InputError(Diagnostic{source_name, "", 0, 0, "empty trace: expected a header line"});
  if (header.starts_with("\xEF\xBB\xBF"))
    header.remove_prefix(3);
  Format format = Format::kPlain;
  std::vector<std::string_view> cells;
  std::vector<int> columns;
  split_cells(header, cells, columns);
  const auto first_three = [&](std::string_view h) {
    return cells.size() >= 3 &&
           header.substr(0, static_cast<size_t>(columns[2] - 1) + cells[2].size()) == h;
  };
  if (first_three(kAzureHeader)) {
    format = Format::kAzure;
  } else if (!first_three(kPlainHeader)) {
    throw InputError(Diagnostic{source_name, "", 1, 1,
                                "unknown trace header; expected \"" + std::string(kAzureHeader) +
                                    "\" (Azure) or \"" + std::string(kPlainHeader) +
                                    "\", optionally followed by prefix and slo_class columns"});
  }
  // The optional columns, by position after the third.
  std::vector<Extra> extras;
  for (size_t c = 3; c < cells.size(); ++c) {
    bool known = false;
    for (size_t e = 0; e < std::size(kExtraNames); ++e) {
      if (cells[c] != kExtraNames[e])
        continue;
      known = true;
      for (const Extra seen : extras)
        if (seen == static_cast<Extra>(e))
          fail(1, columns[c], "column \"" + std::string(cells[c]) + "\" given twice");
      extras.push_back(static_cast<Extra>(e));
    }
    if (!known) {
      fail(1, columns[c],
           "unknown column \"" + std::string(cells[c]) +
               "\"; the optional columns are prefix "
               "and slo_class");
      extras.push_back(Extra::kPrefix);  // keeps the rows' cells aligned for their checks
    }
  }
  if (!errors.empty())
    throw InputError(std::move(errors));
  const size_t width = 3 + extras.size();
  std::vector<PrefixSegment> segments;
  std::vector<Row> rows;
  std::string_view line;
  int line_no = 1;
  while (next_line(line)) {
    ++line_no;
    if (line.empty())
      continue;
    if (rows.size() >= kMaxTraceRows) {
      fail(line_no, 1, "more than " + std::to_string(kMaxTraceRows) + " rows");
      break;
    }
    split_cells(line, cells, columns);
    if (cells.size() != width) {
      fail(line_no, 1,
           "expected " + std::to_string(width) + " comma-separated cells, got " +
               std::to_string(cells.size()));
      continue;
    }
    Row row;
    bool extras_ok = true;
    for (size_t e = 0; e < extras.size(); ++e) {
      const std::string_view cell = cells[3 + e];
      const int column = columns[3 + e];
      if (extras[e] == Extra::kPrefix) {
        if (const std::string why = parse_prefix(cell, segments); !why.empty()) {
          fail(line_no, column, "prefix: " + why);
          extras_ok = false;
        }
        row.prefix = cell;
      } else {
        if (!cell.empty() && !valid_slo_class(cell)) {
          fail(line_no, column,
               "slo_class: expected a name of 1 to 64 letters, digits, '_' or '-', got \"" +
                   std::string(cell) + "\"");
          extras_ok = false;
        }
        row.slo_class = cell;
      }
    }
    const auto t = format == Format::kAzure ? azure_time(cells[0]) : plain_time(cells[0]);
    if (!t) {
      fail(line_no, columns[0],
           format == Format::kAzure
               ? "TIMESTAMP: expected YYYY-MM-DD HH:MM:SS.fffffff, got \"" + std::string(cells[0]) +
                     "\""
               : "arrival_s: expected seconds >= 0 (at most 12 decimals, at most " +
                     std::to_string(static_cast<int64_t>(kMaxServeDurationS)) + "), got \"" +
                     std::string(cells[0]) + "\"");
    }
    const auto p = tokens(cells[1]);
    const auto o = tokens(cells[2]);
    const char* names[2][2] = {{"prompt_tokens", "output_tokens"},
                               {"ContextTokens", "GeneratedTokens"}};
    const int f = format == Format::kAzure ? 1 : 0;
    if (!p)
      fail(line_no, columns[1],
           std::string(names[f][0]) + ": expected an integer in [1, " +
               std::to_string(kMaxRequestTokens) + "], got \"" + std::string(cells[1]) + "\"");
    if (!o)
      fail(line_no, columns[2],
           std::string(names[f][1]) + ": expected an integer in [1, " +
               std::to_string(kMaxRequestTokens) + "], got \"" + std::string(cells[2]) + "\"");
    if (t && p && o && extras_ok) {
      row.time = *t;
      row.prompt = *p;
      row.output = *o;
      rows.push_back(std::move(row));
    }
  }
  if (errors.empty() && rows.empty())
    fail(line_no, 0, "the trace has no requests");
  if (!errors.empty())
    throw InputError(std::move(errors));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.time < b.time; });
  // Relative to the earliest row, in whole seconds first: an Azure
  // timestamp is about 1.7e9 s after 1970, 1.7e21 ps, past int64.
  const Stamp t0 = rows.front().time;
  const auto span_s = [&t0, speedup](const Stamp& t) {
    return (static_cast<double>(t.seconds - t0.seconds) +
            static_cast<double>(t.frac_ps - t0.frac_ps) / kPsPerS) /
           speedup;
  };
  if (span_s(rows.back().time) > kMaxServeDurationS)
    throw InputError(Diagnostic{source_name, "", 0, 0,
                                "the trace spans more than " +
                                    std::to_string(static_cast<int64_t>(kMaxServeDurationS)) +
                                    " s" + (speedup != 1 ? " after its speed-up" : "")});
  std::vector<TraceRequest> out;
  out.reserve(rows.size());
  // Spans of up to this many whole seconds are exact in int64 picoseconds.
  constexpr int64_t kExactSpanS = std::numeric_limits<int64_t>::max() / kPsPerS - 1;
  for (Row& r : rows) {
    // At most 30 days after the speed-up: within int64. Before it, a trace
    // sped up more than 3.5 times may span more (an Azure trace, years:
    // signed overflow, found by serve_trace_fuzzer), so such a span is
    // scaled in double instead.
    const int64_t ds = r.time.seconds - t0.seconds;
    const int64_t dfrac = r.time.frac_ps - t0.frac_ps;
    int64_t rel = 0;
    if (ds <= kExactSpanS) {
      rel = ds * kPsPerS + dfrac;
      if (speedup != 1)
        rel = static_cast<int64_t>(std::llround(static_cast<double>(rel) / speedup));
    } else {
      rel = static_cast<int64_t>(
          std::llround((static_cast<double>(ds) * kPsPerS + static_cast<double>(dfrac)) / speedup));
    }
    out.push_back(TraceRequest{sim::Time::ps(rel), r.prompt, r.output, std::move(r.prefix),
                               std::move(r.slo_class)});
  }
  return out;
}

std::vector<TraceRequest> load_trace_file(const std::filesystem::path& path, double speedup,
                                          std::string* sha256) {
  const std::string text = read_file_to_string(path, kMaxTableFileBytes, FileContents::kText);
  if (sha256 != nullptr)
    *sha256 = sha256_hex(text);
  return parse_trace_csv(text, path.string(), speedup);
}

}  // namespace podsim::config
