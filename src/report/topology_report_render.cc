// Rendering of TopologySummary; the figures themselves come from summarize().
#include <sstream>

#include "podsim/topology_report.pb.h"
#include "report/output_json.h"
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

// Empty in CSV (the disconnected column names the parts), "disconnected: "
// and the parts on the terminal, when a slice's live chips are cut apart.
std::string diameter_text(const TopologySummary& s, const char* unit) {
  if (s.diameter_hops) {
    return std::to_string(*s.diameter_hops) + unit;
  }
  return *unit == '\0' ? "" : "disconnected: " + s.disconnected;
}

void render_json(const TopologySummary& s, std::ostream& out) {
  output::TopologyReport r;
  r.set_name(s.name);
  r.set_description(s.description);
  r.set_source(s.source);
  r.set_chip(s.chip);
  r.set_chips(static_cast<uint32_t>(s.chips));
  r.set_slices(s.slices);
  r.set_shape(shape_of(s));
  for (const auto& d : s.dims) {
    output::TopologyDimension& dim = *r.add_dims();
    dim.set_name(d.name);
    dim.set_size(d.size);
    dim.set_wraparound(d.wraparound);
    dim.set_link_bandwidth_gbps(d.link_bandwidth_gbps);
    dim.set_axis_bandwidth_gbps(d.axis_bandwidth_gbps);
    dim.set_hop_latency_ns(d.hop_latency_ns);
  }
  r.set_twists(s.twists);
  r.set_failed_links(static_cast<uint32_t>(s.failed_links));
  r.set_dead_chips(static_cast<uint32_t>(s.dead_chips));
  r.set_degraded_links(static_cast<uint32_t>(s.degraded_links));
  r.set_stragglers(static_cast<uint32_t>(s.stragglers));
  r.set_links(static_cast<uint32_t>(s.ici_links));
  r.set_dcn_links(static_cast<uint32_t>(s.dcn_links));
  if (s.diameter_hops) {
    r.set_diameter_hops(*s.diameter_hops);
  } else {
    r.set_disconnected(s.disconnected);
  }
  r.set_chip_ici_bandwidth_gbps(s.chip_ici_bandwidth_gbps);
  r.set_bisection_links(static_cast<uint32_t>(s.bisection_links));
  r.set_bisection_bandwidth_gbps(s.bisection_bandwidth_gbps);
  r.set_bisection_cut(s.bisection_cut);
  r.set_dcn_bandwidth_gbps_per_chip(s.dcn_bandwidth_gbps_per_chip);
  r.set_peak_bf16_tflops_per_chip(s.peak_bf16_tflops_per_chip);
  r.set_peak_bf16_pflops_total(s.peak_bf16_pflops_total);
  r.set_hbm_gib_per_chip(s.hbm_gib_per_chip);
  r.set_hbm_bandwidth_gbps_per_chip(s.hbm_bandwidth_gbps_per_chip);
  out << to_json(r, JsonStyle{.indent = true});
}

// One row a pod, the inputs echoed, so rows from many pods paste into one sheet.
void render_csv(const TopologySummary& s, std::ostream& out) {
  Table t({"name", "chip", "shape", "wraparound", "slices", "chips", "links", "dcn_links",
           "diameter_hops", "chip_ici_bandwidth_gbps", "bisection_links",
           "bisection_bandwidth_gbps", "dcn_bandwidth_gbps_per_chip", "peak_bf16_pflops_total",
           "source", "disconnected"});
  t.add_row({s.name, s.chip, shape_of(s), wrap_of(s), std::to_string(s.slices),
             std::to_string(s.chips), std::to_string(s.ici_links), std::to_string(s.dcn_links),
             diameter_text(s, ""), format_double(s.chip_ici_bandwidth_gbps),
             std::to_string(s.bisection_links), format_double(s.bisection_bandwidth_gbps),
             format_double(s.dcn_bandwidth_gbps_per_chip), format_double(s.peak_bf16_pflops_total),
             s.source, s.disconnected});
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
  for (const auto& [label, n] :
       {std::pair{"dead chips", s.dead_chips}, std::pair{"degraded links", s.degraded_links},
        std::pair{"stragglers", s.stragglers}}) {
    if (n > 0)
      kv.push_back({label, std::to_string(n)});
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
