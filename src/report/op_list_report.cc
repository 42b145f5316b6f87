#include "report/op_list_report.h"

#include <algorithm>

#include "coll/plan.h"
#include "report/format.h"  // format_fixed
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
  if (r.symmetric) {
    out << "played " << r.played_chips << (r.played_chips == 1 ? " chip" : " chips")
        << ", one per class of a symmetry (" << r.simulation << "); the results are every chip's\n";
  }
}

}  // namespace

void render_op_list(const RunInputs& in, const engine::OpListResult& r, std::ostream& out) {
  render_text(in, r, out);
}

}  // namespace podsim::report
