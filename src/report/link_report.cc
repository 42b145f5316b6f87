#include "report/link_report.h"

#include "report/json_writer.h"

namespace podsim::report {
namespace {

const char* kind_name(topo::LinkKind k) {
  switch (k) {
    case topo::LinkKind::kIci:
      return "ici";
    case topo::LinkKind::kDcnUp:
      return "dcn_up";
    case topo::LinkKind::kDcnDown:
      return "dcn_down";
  }
  return "ici";
}

}  // namespace

LinkReport make_link_report(const topo::Pod& pod, const net::LinkStats& stats,
                            std::span<const topo::ChipId> simulated, const net::Options& network,
                            sim::Time window) {
  LinkReport r;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    r.shape.push_back(pod.dim_size(d));
  }
  r.slices = pod.slice_count();
  r.chips = pod.chip_count();
  r.window = window;
  r.replicas_unfolded = !simulated.empty() && simulated.size() < pod.chip_count();
  r.links.assign(pod.links().begin(), pod.links().end());
  r.usage =
      engine::link_usage(pod, engine::unfold_replicas(pod, simulated, stats), network, window);
  return r;
}

void write_link_stats(JsonWriter& j, const LinkReport& r) {
  j.key("link_stats").begin_object();
  j.field("window_us", r.window.to_us());
  j.key("shape").begin_array();
  for (const uint32_t s : r.shape) {
    j.value(s);
  }
  j.end_array();
  j.field("slices", r.slices).field("chips", r.chips);
  j.field("replicas_unfolded", r.replicas_unfolded);
  j.key("links").begin_array();
  for (size_t i = 0; i < r.links.size(); ++i) {
    const topo::Link& l = r.links[i];
    const engine::LinkUsage& u = r.usage[i];
    j.begin_object();
    j.field("link", u.link).field("src", l.src).field("dst", l.dst);
    j.field("kind", kind_name(l.kind));
    if (l.kind == topo::LinkKind::kIci) {
      j.field("dim", l.dim).field("direction", static_cast<int>(l.direction));
    } else {
      j.key("dim").null().field("direction", 0);
    }
    j.field("wrap", l.wrap).field("bytes", u.bytes).field("busy_us", u.busy.to_us());
    j.field("utilisation", u.utilisation).field("busy_fraction", u.busy_fraction);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace podsim::report
