#include <algorithm>
#include <map>
#include <regex>

#include "html/escape.h"
#include "html/line_chart.h"
#include "html/sections.h"
#include "html/table_view.h"
#include "html/ticks.h"

namespace podsim::html {

std::string frontier_section(const std::vector<report::CsvDocument>& frontiers) {
  if (frontiers.empty()) {
    return {};
  }
  std::string out = "<section>\n<h2>Search frontier</h2>\n<div class=\"row\">\n";
  for (const report::CsvDocument& doc : frontiers) {
    const bool decode = doc.column("tpot_us") >= 0;
    const char* latency = decode ? "tpot_us" : "ttft_us";
    LineChart chart;
    chart.title = "Throughput against latency: " + doc.source;
    chart.x_label = decode ? "TPOT (ms)" : "TTFT (ms)";
    chart.y_label = "tokens/s per chip";
    chart.x_from_zero = true;
    std::map<std::string, size_t> index;  // topology -> series
    for (const report::CsvRecord& r : doc.rows) {
      const std::string& topology = cell(doc, r, "topology");
      auto [it, added] = index.emplace(topology, chart.series.size());
      if (added) {
        Series s;
        s.name = topology;
        s.markers = true;
        chart.series.push_back(std::move(s));
      }
      Series& s = chart.series[it->second];
      const double ms = number(doc, r, latency) * 1e-3;
      const double tps = number(doc, r, "tokens_per_s_per_chip");
      s.points.emplace_back(ms, tps);
      std::string tip = "batch ";
      tip += cell(doc, r, "batch");
      tip += ", mesh ";
      tip += cell(doc, r, "mesh");
      tip += ": ";
      tip += figure(tps);
      tip += " tokens/s per chip at ";
      tip += figure(ms);
      tip += " ms";
      s.point_labels.push_back(std::move(tip));
    }
    for (Series& s : chart.series) {
      sort_by_x(s);
    }
    out += render_line_chart(chart);
  }
  out += "</div>\n</section>\n";
  return out;
}

std::string capacity_section(const std::vector<report::CsvDocument>& capacity) {
  if (capacity.empty()) {
    return {};
  }
  std::string out = "<section>\n<h2>Capacity search</h2>\n<div class=\"row\">\n";
  static const std::regex kTtft("ttft_p([0-9]+)_s");
  for (const report::CsvDocument& doc : capacity) {
    // The CapacityReport CSV (runs.* columns, the percentile in a column of
    // its own) or the table's CSV of earlier versions (ttft_pNN_s).
    const bool report = doc.column("runs.rate_per_s") >= 0;
    std::string percentile;
    if (report && !doc.rows.empty()) {
      percentile = cell(doc, doc.rows.front(), "objectives.percentile");
    }
    for (const std::string& c : doc.header) {
      std::smatch m;
      if (std::regex_match(c, m, kTtft)) {
        percentile = m[1];
        break;
      }
    }
    const std::string rate_column = report ? "runs.rate_per_s" : "rate_per_s";
    const std::string met_column = report ? "runs.meets_slo" : "meets_slo";
    const std::string ttft = report ? "runs.ttft_s" : "ttft_p" + percentile + "_s";
    const std::string tpot = report ? "runs.tpot_s" : "tpot_p" + percentile + "_s";
    LineChart chart;
    chart.title = "Capacity search: " + doc.source;
    chart.x_label = "arrival rate (requests/s)";
    chart.y_label = "p" + percentile + " latency (ms)";
    chart.x_from_zero = true;
    const char* names[] = {"TTFT, met", "TTFT, missed", "TPOT, met", "TPOT, missed"};
    for (const char* n : names) {
      Series s;
      s.name = std::string("p") + percentile + ' ' + n;
      s.markers = true;
      s.line = false;
      chart.series.push_back(std::move(s));
    }
    double best = -1;
    for (const report::CsvRecord& r : doc.rows) {
      if (report && cell(doc, r, rate_column).empty()) {
        continue;  // no run: an unattainable target's one row
      }
      const double rate = number(doc, r, rate_column);
      const std::string& met_text = cell(doc, r, met_column);
      const bool met = met_text == "yes" || met_text == "true";
      if (met) {
        best = std::max(best, rate);
      }
      const size_t k = met ? 0 : 1;
      const double t = number(doc, r, ttft) * 1e3;
      chart.series[k].points.emplace_back(rate, t);
      chart.series[k].point_labels.push_back(figure(rate) + " requests/s: TTFT " + figure(t) +
                                             " ms");
      if (doc.column(tpot) >= 0) {
        const double p = number(doc, r, tpot) * 1e3;
        chart.series[k + 2].points.emplace_back(rate, p);
        chart.series[k + 2].point_labels.push_back(figure(rate) + " requests/s: TPOT " + figure(p) +
                                                   " ms");
      }
    }
    if (best >= 0) {
      chart.refs.push_back(
          {"highest rate that met the objectives: " + figure(best) + " /s", best, true});
    }
    out += render_line_chart(chart);
  }
  out += "</div>\n</section>\n";
  return out;
}

}  // namespace podsim::html
