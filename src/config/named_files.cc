#include "config/named_files.h"

namespace podsim::config {
namespace {

// The embedded defaults have no file to clash with.
void add(std::vector<NamedInputFile>& out, std::string what, const std::string& path) {
  if (!path.empty() && !path.starts_with("<embedded"))
    out.push_back({std::move(what), path});
}

}  // namespace

std::vector<NamedInputFile> files_named_by(const SweepSpec& spec) {
  std::vector<NamedInputFile> out;
  add(out, "sweep file", spec.source_file);
  if (spec.topology_file)
    add(out, "sweep's topology", *spec.topology_file);
  if (spec.workload_file)
    add(out, "sweep's workload", *spec.workload_file);
  if (spec.serve_file)
    add(out, "sweep's serve file", *spec.serve_file);
  for (const SweepParameter& p : spec.parameters) {
    if (p.path != "topology" && p.path != "workload")
      continue;
    for (const std::string& v : p.values)
      add(out, "sweep parameter '" + p.path + "' value", v);
  }
  return out;
}

std::vector<NamedInputFile> files_named_by(const ServeSpec& spec) {
  std::vector<NamedInputFile> out;
  add(out, "serve file", spec.source_file);
  for (const ServeReplicaSpec& r : spec.replicas) {
    add(out, "replica '" + r.name + "' topology", r.pod.source_file);
    add(out, "replica '" + r.name + "' workload", r.workload.source_file);
  }
  if (spec.arrivals.kind == ArrivalKind::kTrace)
    add(out, "arrival trace", spec.arrivals.trace_file);
  add(out, "kv_transfer.ici_topology", spec.kv_transfer.ici_topology);
  return out;
}

}  // namespace podsim::config
