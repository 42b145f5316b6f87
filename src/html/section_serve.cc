#include <algorithm>
#include <filesystem>
#include <map>

#include "html/escape.h"
#include "html/line_chart.h"
#include "html/sections.h"
#include "html/table_view.h"
#include "html/ticks.h"

namespace podsim::html {

namespace {

struct Latency {
  const char* column;
  const char* name;
};
constexpr Latency kLatencies[] = {
    {"ttft_s", "TTFT"}, {"tpot_s", "TPOT"}, {"e2e_s", "end-to-end latency"}};
constexpr Latency kSeries[] = {{"waiting", "waiting requests"},
                               {"running", "running batch"},
                               {"kv_utilisation", "KV-cache occupancy"}};

std::string base_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// The SLO lines of one latency: each summary's objective in ms (0: none).
std::vector<RefLine> slo_lines(const std::vector<ServeSummary>& summaries,
                               std::string_view column) {
  std::vector<RefLine> out;
  for (const ServeSummary& s : summaries) {
    double ms = 0;
    if (column == "ttft_s") {
      ms = s.report.slo_ttft_ms();
    } else if (column == "tpot_s") {
      ms = s.report.slo_tpot_ms();
    } else if (column == "max_tbt_s") {
      ms = s.report.slo_tbt_ms();
    }
    if (ms <= 0) {
      continue;
    }
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const RefLine& r) { return r.value == ms; });
    if (!seen) {
      std::string label = "SLO ";
      label += figure(ms);
      label += " ms";
      if (summaries.size() > 1) {
        label += " (";
        label += s.report.name();
        label += ')';
      }
      out.push_back({std::move(label), ms, true});
    }
  }
  return out;
}

std::string summary_table(const std::vector<ServeSummary>& summaries) {
  const auto pct = [](const podsim::output::LatencyPercentiles& l) {
    std::string s = figure(l.p50() * 1e3);
    s += " / ";
    s += figure(l.p90() * 1e3);
    s += " / ";
    s += figure(l.p99() * 1e3);
    return s;
  };
  std::vector<std::string> header = {"figure"};
  std::vector<std::vector<std::string>> rows = {{"file"},
                                                {"requests (completed, rejected)"},
                                                {"duration (s)"},
                                                {"requests/s"},
                                                {"output tokens/s"},
                                                {"TTFT p50 / p90 / p99 (ms)"},
                                                {"TPOT p50 / p90 / p99 (ms)"},
                                                {"end-to-end p50 / p90 / p99 (ms)"},
                                                {"SLOs: TTFT, TPOT (ms)"},
                                                {"goodput (requests/s)"},
                                                {"SLO attainment"},
                                                {"chips"}};
  for (const ServeSummary& s : summaries) {
    const auto& r = s.report;
    header.push_back(r.name());
    size_t i = 0;
    rows[i++].push_back(s.source);
    rows[i++].push_back(std::to_string(r.requests()) + " (" + std::to_string(r.completed()) + ", " +
                        std::to_string(r.rejected()) + ")");
    rows[i++].push_back(figure(r.duration_s()));
    rows[i++].push_back(figure(r.requests_per_s()));
    rows[i++].push_back(figure(r.output_tokens_per_s()));
    rows[i++].push_back(pct(r.ttft_s()));
    rows[i++].push_back(pct(r.tpot_s()));
    rows[i++].push_back(pct(r.e2e_s()));
    std::string slo = r.slo_ttft_ms() > 0 ? figure(r.slo_ttft_ms()) : std::string("none");
    slo += ", ";
    slo += r.slo_tpot_ms() > 0 ? figure(r.slo_tpot_ms()) : std::string("none");
    rows[i++].push_back(std::move(slo));
    rows[i++].push_back(figure(r.goodput_requests_per_s()));
    rows[i++].push_back(figure(r.slo_attainment()));
    rows[i++].push_back(std::to_string(r.chips()));
  }
  return html_table(header, rows);
}

// The CDF of one latency over the completed requests of each file, in ms.
std::string cdf_chart(const std::vector<report::CsvDocument>& requests,
                      const std::vector<ServeSummary>& summaries, const Latency& latency) {
  LineChart chart;
  chart.title = std::string(latency.name) + ": distribution over requests";
  chart.x_label = std::string(latency.name) + " (ms)";
  chart.y_label = "fraction of requests";
  chart.x_from_zero = true;
  for (const report::CsvDocument& doc : requests) {
    std::vector<double> ms;
    for (const report::CsvRecord& r : doc.rows) {
      if (cell(doc, r, "status") != "ok" || cell(doc, r, latency.column).empty()) {
        continue;  // not completed; TPOT is empty for one output token
      }
      const double v = number(doc, r, latency.column);
      if (v < 0) {
        throw ReportInputError(where(doc, r) + ": column '" + latency.column + "' is negative");
      }
      ms.push_back(v * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    Series s;
    s.name = base_name(doc.source);
    s.name += " (";
    s.name += std::to_string(ms.size());
    s.name += " requests)";
    s.step = true;
    if (!ms.empty()) {
      s.points.emplace_back(ms.front(), 0.0);
    }
    for (size_t i = 0; i < ms.size(); ++i) {
      s.points.emplace_back(ms[i], static_cast<double>(i + 1) / static_cast<double>(ms.size()));
    }
    chart.series.push_back(std::move(s));
  }
  chart.refs = slo_lines(summaries, latency.column);
  return render_line_chart(chart, 400, 260);
}

// One time series over every file's replicas, a line each.
std::string series_chart(const std::vector<report::CsvDocument>& timeseries,
                         const Latency& column) {
  LineChart chart;
  chart.title = column.name;
  chart.x_label = "time (s)";
  chart.y_label = column.name;
  chart.x_from_zero = true;
  for (const report::CsvDocument& doc : timeseries) {
    std::map<std::string, size_t> index;  // replica -> series
    for (const report::CsvRecord& r : doc.rows) {
      const std::string& replica = cell(doc, r, "replica");
      auto [it, added] = index.emplace(replica, chart.series.size());
      if (added) {
        Series s;
        s.name = timeseries.size() > 1 ? base_name(doc.source) + ": " + replica : replica;
        s.step = true;
        chart.series.push_back(std::move(s));
      }
      chart.series[it->second].points.emplace_back(number(doc, r, "time_s"),
                                                   number(doc, r, column.column));
    }
  }
  return render_line_chart(chart, 400, 220);
}

}  // namespace

std::string serve_section(const ReportInputs& in) {
  if (in.summaries.empty() && in.requests.empty() && in.timeseries.empty()) {
    return {};
  }
  std::string out = "<section>\n<h2>Serving</h2>\n";
  if (!in.summaries.empty()) {
    out += summary_table(in.summaries);
  }
  if (!in.requests.empty()) {
    out += "<h3>Latency distributions</h3>\n<div class=\"row\">\n";
    for (const Latency& l : kLatencies) {
      out += cdf_chart(in.requests, in.summaries, l);
    }
    // Each request's longest gap between tokens, where the CSV has it
    // (docs/serving.md, "Time between tokens").
    const bool tbt =
        std::all_of(in.requests.begin(), in.requests.end(),
                    [](const report::CsvDocument& d) { return d.column("max_tbt_s") >= 0; });
    if (tbt) {
      out +=
          cdf_chart(in.requests, in.summaries, Latency{"max_tbt_s", "longest gap between tokens"});
    }
    out += "</div>\n";
  }
  if (!in.timeseries.empty()) {
    out += "<h3>Over time</h3>\n<div class=\"row\">\n";
    for (const Latency& c : kSeries) {
      out += series_chart(in.timeseries, c);
    }
    out += "</div>\n";
  }
  out += "</section>\n";
  return out;
}

}  // namespace podsim::html
