#include "html/report_inputs.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "podsim/result.pb.h"
#include "report/result_csv.h"
#include "report/result_print.h"

namespace podsim::html {

namespace {

bool has(const std::vector<std::string>& header, std::string_view name) {
  return std::find(header.begin(), header.end(), name) != header.end();
}

bool has_prefixed(const std::vector<std::string>& header, std::string_view prefix,
                  std::string_view suffix) {
  return std::any_of(header.begin(), header.end(), [&](const std::string& c) {
    return c.size() > prefix.size() + suffix.size() && c.starts_with(prefix) && c.ends_with(suffix);
  });
}

// Valid UTF-8 without NUL: text, not a binary Protobuf message.
bool is_text(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) {
      return false;
    }
    size_t n = 0;
    if (c < 0x80) {
      n = 0;
    } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      n = 1;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      n = 3;
    } else {
      return false;
    }
    if (i + n >= s.size()) {
      return false;  // a sequence cut short by the end
    }
    for (size_t k = 1; k <= n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
        return false;
      }
    }
    i += n + 1;
  }
  return true;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ReportInputError(path + ": a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ReportInputError(path + ": cannot read: no such file or not readable");
  }
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > report::kMaxCsvFileBytes) {
      throw ReportInputError(path + ": larger than 1 GiB, not a podsim output this reads");
    }
  }
  if (in.bad()) {
    throw ReportInputError(path + ": cannot read");
  }
  return text;
}

// Result rows as `run --format csv` writes them.
report::CsvDocument rows_of(const std::vector<podsim::Result>& results, const std::string& path) {
  report::CsvDocument doc;
  doc.source = path;
  const std::string_view kind = report::csv_kind(results.front());
  doc.header = report::csv_columns(kind);
  int n = 0;
  for (const podsim::Result& r : results) {
    ++n;
    if (report::csv_kind(r) != kind) {
      throw ReportInputError(path +
                             ": results of different kinds (serving and operation-list) "
                             "in one file");
    }
    for (auto& cells : report::csv_rows(r)) {
      doc.rows.push_back({std::move(cells), n});
    }
  }
  return doc;
}

void add_results(report::CsvDocument doc, ReportInputs& out) {
  for (report::CsvDocument& t : out.results) {
    if (t.header == doc.header) {
      t.source += ", " + doc.source;
      std::move(doc.rows.begin(), doc.rows.end(), std::back_inserter(t.rows));
      return;
    }
  }
  out.results.push_back(std::move(doc));
}

enum class JsonKind { kResult, kServeSummary, kOther };

JsonKind json_kind(const google::protobuf::Struct& s) {
  const auto& f = s.fields();
  if (f.contains("schema_version") && f.contains("inputs")) {
    return JsonKind::kResult;
  }
  if (f.contains("ttft_s") && f.contains("completed") && f.contains("requests")) {
    return JsonKind::kServeSummary;
  }
  return JsonKind::kOther;
}

// One JSON object: a Result or a serve summary. `where` names it.
void read_json_object(std::string_view json, const std::string& path, const std::string& where,
                      std::vector<podsim::Result>& results, ReportInputs& out) {
  google::protobuf::Struct probe;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &probe);
  if (!status.ok()) {
    throw ReportInputError(where + ": not valid JSON: " + status.ToString());
  }
  switch (json_kind(probe)) {
    case JsonKind::kResult:
      try {
        results.push_back(report::result_from_json(json));
      } catch (const std::invalid_argument& e) {
        throw ReportInputError(where + ": " + e.what());
      }
      return;
    case JsonKind::kServeSummary: {
      ServeSummary summary;
      summary.source = path;
      google::protobuf::util::JsonParseOptions options;
      // A summary from a newer podsim may carry fields this one lacks.
      options.ignore_unknown_fields = true;
      const auto parsed = google::protobuf::util::JsonStringToMessage(
          google::protobuf::StringPiece(json.data(), json.size()), &summary.report, options);
      if (!parsed.ok()) {
        throw ReportInputError(
            where + ": not a serve summary (podsim.output.ServeReport): " + parsed.ToString());
      }
      out.summaries.push_back(std::move(summary));
      return;
    }
    case JsonKind::kOther:
      break;
  }
  throw ReportInputError(where +
                         ": JSON that is neither a podsim.Result (no schema_version and inputs) "
                         "nor a serve summary (no requests, completed and ttft_s)");
}

void read_json(const std::string& text, const std::string& path, ReportInputs& out) {
  std::vector<podsim::Result> results;
  google::protobuf::Struct probe;
  const bool whole = google::protobuf::util::JsonStringToMessage(text, &probe).ok();
  if (whole) {
    read_json_object(text, path, path, results, out);
  } else {
    // JSON Lines: a Result a line (sweep --format jsonl).
    std::istringstream lines(text);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        continue;
      }
      read_json_object(line, path, path + ":" + std::to_string(n), results, out);
    }
  }
  if (!results.empty()) {
    add_results(rows_of(results, path), out);
  }
}

void read_binpb(const std::string& bytes, const std::string& path, ReportInputs& out) {
  podsim::Result r;
  if (!r.ParseFromString(bytes) || r.schema_version() == 0 || !r.has_inputs()) {
    throw ReportInputError(path +
                           ": binary, but not a podsim.Result (podsim run --format binpb); "
                           "none of the outputs podsim report reads");
  }
  add_results(rows_of({r}, path), out);
}

}  // namespace

InputKind csv_kind_of(const std::vector<std::string>& header, const std::string& source) {
  if (has(header, "schema_version") && has(header, "status")) {
    return InputKind::kResults;
  }
  if (has(header, "request") && has(header, "arrival_s") && has(header, "ttft_s") &&
      has(header, "e2e_s") && has(header, "status")) {
    return InputKind::kRequests;
  }
  if (has(header, "time_s") && has(header, "replica") && has(header, "waiting") &&
      has(header, "running") && has(header, "kv_utilisation")) {
    return InputKind::kTimeseries;
  }
  // podsim.output.CapacityReport's CSV (`capacity --format csv`): a row per
  // serve run, the answer in each; a rate search's runs are drawn.
  if (has(header, "mode") && has(header, "runs.rate_per_s") && has(header, "runs.meets_slo") &&
      has(header, "runs.ttft_s")) {
    return InputKind::kCapacity;
  }
  if (has(header, "rate_per_s") && (has(header, "config") || has(header, "copies"))) {
    throw ReportInputError(source +
                           ": a `podsim capacity --target-rate` table (a row per configuration "
                           "or copy count), not a capacity search (a row per rate), which is "
                           "what podsim report draws");
  }
  if (has(header, "rate_per_s") && has(header, "meets_slo") &&
      has_prefixed(header, "ttft_p", "_s")) {
    return InputKind::kCapacity;
  }
  if (has(header, "topology") && has(header, "tokens_per_s_per_chip") && has(header, "batch") &&
      (has(header, "tpot_us") || has(header, "ttft_us"))) {
    return InputKind::kFrontier;
  }
  if (has(header, "ttft_s.p99")) {
    throw ReportInputError(source +
                           ": a serve summary CSV; give the summary as JSON (podsim serve "
                           "--summary-json FILE), which carries the replicas and SLO classes");
  }
  std::string first = header.empty() ? std::string() : header.front();
  throw ReportInputError(source + ": a CSV whose header (starting '" + first +
                         "') is none of the outputs podsim report reads: a result, sweep or "
                         "search CSV, serve --requests or --timeseries, or capacity --format csv");
}

ReportInputs load_report_inputs(const std::vector<std::string>& paths) {
  if (paths.empty()) {
    throw ReportInputError("no input files: give podsim's outputs (podsim report --help)");
  }
  ReportInputs out;
  for (const std::string& path : paths) {
    out.files.push_back(path);
    const std::string text = read_file(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      throw ReportInputError(path + ": empty");
    }
    if (!is_text(text)) {
      read_binpb(text, path, out);
      continue;
    }
    const char first = text[text.find_first_not_of(" \t\r\n")];
    if (first == '{') {
      read_json(text, path, out);
      continue;
    }
    report::CsvDocument doc;
    try {
      doc = report::parse_csv(text, path);
    } catch (const report::CsvError& e) {
      throw ReportInputError(e.what());
    }
    switch (csv_kind_of(doc.header, path)) {
      case InputKind::kResults:
        add_results(std::move(doc), out);
        break;
      case InputKind::kRequests:
        out.requests.push_back(std::move(doc));
        break;
      case InputKind::kTimeseries:
        out.timeseries.push_back(std::move(doc));
        break;
      case InputKind::kCapacity:
        out.capacity.push_back(std::move(doc));
        break;
      case InputKind::kFrontier:
        out.frontiers.push_back(std::move(doc));
        break;
      case InputKind::kServeSummary:
        break;  // not a CSV kind
    }
  }
  return out;
}

}  // namespace podsim::html
