// Rendering of TopologySummary; the figures themselves come from summarize().
#include <sstream>

#include "report/json_writer.h"
#include "report/table.h"
#include "report/topology_report.h"

namespace podsim::report {
namespace {

std::string shape_of(const TopologySummary& s) {
  std::string shape;
  for (const auto& d : s.dims) {
    if (!shape.empty()) {
      shape += 'x';
    }
    shape += std::to_string(d.size);
  }
  return shape;
}

std::string wrap_of(const TopologySummary& s) {
  std::string w;
  for (const auto& d : s.dims) {
    w += d.wraparound ? 'T' : 'F';
  }
  return w;
}

// Empty in CSV, "disconnected" on the terminal, when failed links split a slice.
std::string diameter_text(const TopologySummary& s, const char* unit) {
  if (s.diameter_hops) {
    return std::to_string(*s.diameter_hops) + unit;
  }
  return *unit == '\0' ? "" : "disconnected";
}

void render_json(const TopologySummary& s, std::ostream& out) {
  JsonWriter j(out);
  j.begin_object();
  j.field("name", s.name).field("description", s.description).field("source", s.source);
  j.field("chip", s.chip).field("chips", s.chips).field("slices", s.slices);
  j.field("shape", shape_of(s));
  j.key("dims").begin_array();
  for (const auto& d : s.dims) {
    j.begin_object()
        .field("name", d.name)
        .field("size", d.size)
        .field("wraparound", d.wraparound)
        .field("link_bandwidth_gbps", d.link_bandwidth_gbps)
        .field("axis_bandwidth_gbps", d.axis_bandwidth_gbps)
        .field("hop_latency_ns", d.hop_latency_ns)
        .end_object();
  }
  j.end_array();
  j.field("twists", s.twists).field("failed_links", s.failed_links);
  j.field("links", s.ici_links).field("dcn_links", s.dcn_links);
  j.key("diameter_hops");
  if (s.diameter_hops) {
    j.value(*s.diameter_hops);
  } else {
    j.null();
  }
  j.field("chip_ici_bandwidth_gbps", s.chip_ici_bandwidth_gbps);
  j.field("bisection_links", s.bisection_links);
  j.field("bisection_bandwidth_gbps", s.bisection_bandwidth_gbps);
  j.field("bisection_cut", s.bisection_cut);
  j.field("dcn_bandwidth_gbps_per_chip", s.dcn_bandwidth_gbps_per_chip);
  j.field("peak_bf16_tflops_per_chip", s.peak_bf16_tflops_per_chip);
  j.field("peak_bf16_pflops_total", s.peak_bf16_pflops_total);
  j.field("hbm_gib_per_chip", s.hbm_gib_per_chip);
  j.field("hbm_bandwidth_gbps_per_chip", s.hbm_bandwidth_gbps_per_chip);
  j.end_object();
  j.finish();
}

// One row a pod, the inputs echoed, so rows from many pods paste into one sheet.
void render_csv(const TopologySummary& s, std::ostream& out) {
  Table t({"name", "chip", "shape", "wraparound", "slices", "chips", "links", "dcn_links",
           "diameter_hops", "chip_ici_bandwidth_gbps", "bisection_links",
           "bisection_bandwidth_gbps", "dcn_bandwidth_gbps_per_chip", "peak_bf16_pflops_total",
           "source"});
  t.add_row({s.name, s.chip, shape_of(s), wrap_of(s), std::to_string(s.slices),
             std::to_string(s.chips), std::to_string(s.ici_links), std::to_string(s.dcn_links),
             diameter_text(s, ""), format_double(s.chip_ici_bandwidth_gbps),
             std::to_string(s.bisection_links), format_double(s.bisection_bandwidth_gbps),
             format_double(s.dcn_bandwidth_gbps_per_chip), format_double(s.peak_bf16_pflops_total),
             s.source});
  t.render_csv(out);
}

void render_text(const TopologySummary& s, std::ostream& out) {
  out << s.name;
  if (!s.description.empty()) {
    out << " - " << s.description;
  }
  out << "\n\n";
  std::vector<std::pair<std::string, std::string>> kv = {
      {"source", s.source},
      {"chip", s.chip},
      {"shape", shape_of(s) + (s.slices > 1 ? " x " + std::to_string(s.slices) + " slices" : "")},
      {"chips", std::to_string(s.chips)},
      {"ICI links (directed)", std::to_string(s.ici_links)},
      {"diameter", diameter_text(s, " hops")},
      {"ICI per chip", format_fixed(s.chip_ici_bandwidth_gbps, 1) + " GB/s (all ports, both ways)"},
      {"bisection", format_fixed(s.bisection_bandwidth_gbps, 1) + " GB/s (" +
                        std::to_string(s.bisection_links) + " links cut, one way, across " +
                        s.bisection_cut + ")"},
      {"peak bf16", format_fixed(s.peak_bf16_tflops_per_chip, 1) + " TFLOP/s per chip, " +
                        format_fixed(s.peak_bf16_pflops_total, 2) + " PFLOP/s in all"},
      {"HBM", format_fixed(s.hbm_gib_per_chip, 2) + " GiB at " +
                  format_fixed(s.hbm_bandwidth_gbps_per_chip, 1) + " GB/s per chip"},
  };
  if (s.slices > 1) {
    kv.push_back({"DCN", format_fixed(s.dcn_bandwidth_gbps_per_chip, 3) + " GB/s per chip, " +
                             std::to_string(s.dcn_links) + " directed links"});
  }
  if (s.twists > 0) {
    kv.push_back({"twists", std::to_string(s.twists)});
  }
  if (s.failed_links > 0) {
    kv.push_back({"failed links", std::to_string(s.failed_links)});
  }
  render_key_values(out, kv);
  out << '\n';
  Table t({"dim", "size", "wrap", "link GB/s (one way)", "axis GB/s (both ways)", "hop ns"});
  for (const auto& d : s.dims) {
    t.add_row({d.name, std::to_string(d.size), d.wraparound ? "yes" : "no",
               format_fixed(d.link_bandwidth_gbps, 1), format_fixed(d.axis_bandwidth_gbps, 1),
               format_fixed(d.hop_latency_ns, 1)});
  }
  t.render_text(out);
}

}  // namespace

void render_topology(const TopologySummary& s, Format format, std::ostream& out) {
  switch (format) {
    case Format::kJson:
      render_json(s, out);
      return;
    case Format::kCsv:
      render_csv(s, out);
      return;
    case Format::kTable:
      render_text(s, out);
      return;
  }
}

}  // namespace podsim::report
