#include "report/op_list_report.h"

#include "coll/plan.h"
#include "report/json_writer.h"
#include "report/table.h"

namespace podsim::report {
namespace {

std::string join_axes(const std::vector<std::string>& axes, char sep) {
  std::string s;
  for (const auto& a : axes) {
    if (!s.empty()) {
      s += sep;
    }
    s += a;
  }
  return s;
}

void render_json(const RunInputs& in, const engine::OpListResult& r, std::ostream& out) {
  JsonWriter j(out);
  j.begin_object();
  j.field("topology", in.topology).field("topology_file", in.topology_file);
  j.field("workload", in.workload).field("workload_file", in.workload_file);
  j.field("network", in.network).field("chips", in.chips);
  j.field("makespan_us", r.makespan.to_us()).field("events", r.events);
  j.key("collectives").begin_array();
  for (const auto& op : r.operations) {
    j.begin_object();
    j.field("name", op.name).field("kind", coll::to_string(op.kind)).field("bytes", op.bytes);
    j.key("axes").begin_array();
    for (const auto& a : op.axes) {
      j.value(a);
    }
    j.end_array();
    j.field("group_size", op.group_size).field("repeat", op.repeat);
    j.field("start_us", op.start.to_us()).field("end_us", op.end.to_us());
    j.field("time_us", op.per_run.to_us());
    j.field("algbw_gbps", op.algbw_gbps).field("busbw_gbps", op.busbw_gbps);
    j.field("link_util_mean", op.link_util_mean).field("link_util_max", op.link_util_max);
    j.field("links_used", op.links_used).field("transfers", op.transfers);
    j.end_object();
  }
  j.end_array();
  if (in.link_stats) {
    write_link_stats(j, *in.link_stats);
  }
  j.end_object();
  j.finish();
}

void render_csv(const RunInputs& in, const engine::OpListResult& r, std::ostream& out) {
  Table t({"topology", "workload", "network", "chips", "name", "kind", "bytes", "axes",
           "group_size", "repeat", "start_us", "end_us", "time_us", "algbw_gbps", "busbw_gbps",
           "link_util_mean", "link_util_max"});
  for (const auto& op : r.operations) {
    t.add_row({in.topology, in.workload, in.network, std::to_string(in.chips), op.name,
               coll::to_string(op.kind), std::to_string(op.bytes), join_axes(op.axes, ';'),
               std::to_string(op.group_size), std::to_string(op.repeat),
               format_double(op.start.to_us()), format_double(op.end.to_us()),
               format_double(op.per_run.to_us()), format_double(op.algbw_gbps),
               format_double(op.busbw_gbps), format_double(op.link_util_mean),
               format_double(op.link_util_max)});
  }
  t.render_csv(out);
}

std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return format_fixed(v, v == static_cast<double>(static_cast<uint64_t>(v)) ? 0 : 2) + " " +
         units[u];
}

void render_text(const RunInputs& in, const engine::OpListResult& r, std::ostream& out) {
  out << in.workload << " on " << in.topology << " (" << in.chips << " chips), " << in.network
      << " network\n\n";
  Table t({"operation", "kind", "bytes", "axes", "chips", "runs", "start us", "time us",
           "algbw GB/s", "busbw GB/s", "link util mean", "max"});
  for (const auto& op : r.operations) {
    t.add_row({op.name, coll::to_string(op.kind), human_bytes(op.bytes), join_axes(op.axes, ','),
               std::to_string(op.group_size), std::to_string(op.repeat),
               format_fixed(op.start.to_us(), 2), format_fixed(op.per_run.to_us(), 2),
               format_fixed(op.algbw_gbps, 2), format_fixed(op.busbw_gbps, 2),
               format_fixed(op.link_util_mean, 3), format_fixed(op.link_util_max, 3)});
  }
  t.render_text(out);
  out << "\nmakespan " << format_fixed(r.makespan.to_us(), 2) << " us, " << r.events << " events\n";
}

}  // namespace

void render_op_list(const RunInputs& in, const engine::OpListResult& r, Format format,
                    std::ostream& out) {
  switch (format) {
    case Format::kJson:
      render_json(in, r, out);
      return;
    case Format::kCsv:
      render_csv(in, r, out);
      return;
    case Format::kTable:
      render_text(in, r, out);
      return;
  }
}

}  // namespace podsim::report
