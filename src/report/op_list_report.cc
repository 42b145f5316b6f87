#include "report/op_list_report.h"

#include <algorithm>

#include "coll/plan.h"
#include "report/json_writer.h"
#include "report/table.h"

namespace podsim::report {
namespace {

// The kind column: the compute op ("matmul") or the collective ("all-reduce").
std::string kind_of(const engine::OperationResult& op) {
  return op.compute ? std::string(config::kind_name(op.compute->op)) : coll::to_string(op.kind);
}

// "compute", "memory", "overhead"; collectives are bound by the network.
std::string bound_of(const engine::OperationResult& op) {
  return op.compute ? std::string(chip::to_string(op.compute->timing.bound)) : "network";
}

// The bytes an operation moves: HBM bytes per chip for compute, V for a
// collective.
uint64_t bytes_of(const engine::OperationResult& op) {
  return op.compute ? op.compute->timing.bytes : op.bytes;
}

double flops_of(const engine::OperationResult& op) {
  return op.compute ? op.compute->timing.flops : 0.0;
}

double achieved_flops_per_s(const engine::OperationResult& op) {
  return op.compute ? op.compute->timing.achieved_flops_per_s : 0.0;
}

// Every operation, in file order, in one shape for both kinds.
void write_operations(JsonWriter& j, const engine::OpListResult& r) {
  j.key("operations").begin_array();
  for (const auto& op : r.operations) {
    j.begin_object();
    j.field("name", op.name).field("kind", kind_of(op)).field("time_us", op.per_run.to_us());
    j.field("flops", flops_of(op)).field("bytes", bytes_of(op)).field("bound", bound_of(op));
    j.field("achieved_flops_per_s", achieved_flops_per_s(op)).field("repeat", op.repeat);
    j.field("start_us", op.start.to_us()).field("end_us", op.end.to_us());
    j.end_object();
  }
  j.end_array();
}

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
  j.field("network", in.network).field("compute", in.compute).field("chips", in.chips);
  j.field("makespan_us", r.makespan.to_us()).field("events", r.events);
  write_operations(j, r);
  j.key("collectives").begin_array();
  for (const auto& op : r.operations) {
    if (op.is_compute()) {
      continue;
    }
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
    j.field("schedule", op.schedule);
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
  // schema_version: bump when a column changes meaning or is removed.
  Table t(
      {"schema_version", "topology", "workload",  "network",    "compute",         "chips",
       "name",           "kind",     "bytes",     "axes",       "group_size",      "repeat",
       "start_us",       "end_us",   "time_us",   "algbw_gbps", "busbw_gbps",      "link_util_mean",
       "link_util_max",  "flops",    "hbm_bytes", "bound",      "achieved_tflops", "schedule"});
  for (const auto& op : r.operations) {
    const uint64_t hbm_bytes = op.compute ? op.compute->timing.bytes : 0;
    t.add_row({"2",
               in.topology,
               in.workload,
               in.network,
               in.compute,
               std::to_string(in.chips),
               op.name,
               kind_of(op),
               std::to_string(bytes_of(op)),
               join_axes(op.axes, ';'),
               std::to_string(op.group_size),
               std::to_string(op.repeat),
               format_double(op.start.to_us()),
               format_double(op.end.to_us()),
               format_double(op.per_run.to_us()),
               format_double(op.algbw_gbps),
               format_double(op.busbw_gbps),
               format_double(op.link_util_mean),
               format_double(op.link_util_max),
               format_double(flops_of(op)),
               std::to_string(hbm_bytes),
               bound_of(op),
               format_double(achieved_flops_per_s(op) * 1e-12),
               op.schedule});
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

// Compute operations: per-chip work and what bounds it, per run.
void render_compute_table(const engine::OpListResult& r, std::ostream& out) {
  Table t({"operation", "kind", "runs", "start us", "time us", "GFLOP", "HBM bytes", "bound",
           "TFLOP/s"});
  for (const auto& op : r.operations) {
    if (!op.compute) {
      continue;
    }
    const chip::OpTiming& timing = op.compute->timing;
    t.add_row({op.name, kind_of(op), std::to_string(op.repeat), format_fixed(op.start.to_us(), 2),
               format_fixed(op.per_run.to_us(), 2), format_fixed(timing.flops * 1e-9, 2),
               human_bytes(timing.bytes), bound_of(op),
               format_fixed(timing.achieved_flops_per_s * 1e-12, 2)});
  }
  t.render_text(out);
}

void render_text(const RunInputs& in, const engine::OpListResult& r, std::ostream& out) {
  out << in.workload << " on " << in.topology << " (" << in.chips << " chips), " << in.network
      << " network\n\n";
  const auto computes = std::count_if(r.operations.begin(), r.operations.end(),
                                      [](const auto& op) { return op.is_compute(); });
  if (computes > 0) {
    out << "compute (every chip):\n";
    render_compute_table(r, out);
    if (static_cast<size_t>(computes) == r.operations.size()) {
      out << "\nmakespan " << format_fixed(r.makespan.to_us(), 2) << " us, " << r.events
          << " events\n";
      return;
    }
    out << "\ncollectives:\n";
  }
  Table t({"operation", "kind", "bytes", "axes", "chips", "runs", "start us", "time us",
           "algbw GB/s", "busbw GB/s", "link util mean", "max", "schedule"});
  for (const auto& op : r.operations) {
    if (op.is_compute()) {
      continue;
    }
    t.add_row({op.name, coll::to_string(op.kind), human_bytes(op.bytes), join_axes(op.axes, ','),
               std::to_string(op.group_size), std::to_string(op.repeat),
               format_fixed(op.start.to_us(), 2), format_fixed(op.per_run.to_us(), 2),
               format_fixed(op.algbw_gbps, 2), format_fixed(op.busbw_gbps, 2),
               format_fixed(op.link_util_mean, 3), format_fixed(op.link_util_max, 3), op.schedule});
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
