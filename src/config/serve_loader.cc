#include "config/serve_loader.h"

#include "config/internal/input_parser.h"
#include "config/internal/serve_validator.h"
#include "config/internal/topology_validator.h"
#include "config/topology_loader.h"
#include "config/trace_loader.h"
#include "config/workload_loader.h"
#include "podsim/serve.pb.h"

namespace podsim::config {
namespace {

// A replica's workload must be a serving step: the scheduler replaces its
// scenario, so an operation list has nothing to serve.
void check_serving(const WorkloadSpec& w, const internal::ParsedInput& parsed, int replica) {
  if (w.serving)
    return;
  internal::FieldPath at = internal::FieldPath()("replicas", replica)("workload");
  throw InputError(parsed.diagnostic(
      internal::FieldIssue{at, "'" + w.source_file +
                                   "' is an operation list; a replica needs a serving workload "
                                   "(model, sharding, scenario)"}));
}

// Disaggregation: the prefill and decode copies' slices joined over DCN into
// the pod their KV caches move over. Each must be one slice of the same torus.
void join_kv_slices(ServeSpec& spec, const internal::ParsedInput& parsed) {
  const ServeReplicaSpec* first = nullptr;
  uint32_t slices = 0;
  bool prefill = false;
  for (size_t i = 0; i < spec.replicas.size(); ++i) {
    const ServeReplicaSpec& r = spec.replicas[i];
    if (r.role == RoleKind::kUnified)
      continue;
    prefill |= r.role == RoleKind::kPrefill;
    const internal::FieldPath at =
        internal::FieldPath()("replicas", static_cast<int>(i))("topology");
    auto fail = [&](const std::string& why) {
      throw InputError(parsed.diagnostic(internal::FieldIssue{at, why}));
    };
    if (r.pod.slices != 1)
      fail("'" + r.pod.source_file + "' has " + std::to_string(r.pod.slices) +
           " slices; a ROLE_PREFILL or ROLE_DECODE replica is one slice (kv_transfer joins "
           "them over DCN)");
    if (first == nullptr)
      first = &r;
    else if (!(r.pod.torus == first->pod.torus))
      fail("'" + r.pod.source_file + "' is not the slice of '" + first->pod.source_file +
           "' (same dimensions, links and twists): KV caches move chip i to chip i between "
           "slices of one shape");
    slices += r.count;
  }
  if (!prefill)
    return;
  if (slices * first->pod.torus.chip_count() > internal::kMaxChips)
    throw InputError(parsed.diagnostic(
        internal::FieldIssue{internal::FieldPath()("replicas"),
                             "the ROLE_PREFILL and ROLE_DECODE copies make a pod of " +
                                 std::to_string(slices * first->pod.torus.chip_count()) +
                                 " chips joined over DCN for their KV transfers; at most " +
                                 std::to_string(internal::kMaxChips)}));
  PodSpec pod = first->pod.without_faults();
  pod.name = spec.name + "-kv-transfer";
  pod.description = "the prefill and decode slices of " + spec.source_file + " joined by DCN";
  pod.slices = slices;
  pod.dcn = spec.kv_transfer.dcn;
  spec.kv_transfer.pod = std::move(pod);
}

ServeSpec parse_serve(internal::InputFormat format, std::string_view contents,
                      std::string source_name, const std::filesystem::path& base_dir) {
  ServeConfig message;
  const internal::ParsedInput parsed =
      internal::ParsedInput::parse(format, contents, std::move(source_name), message);
  parsed.throw_if_invalid(internal::validate_serve(message, base_dir));
  internal::ServeFiles files = internal::to_serve_spec(message, base_dir, parsed.source());
  ServeSpec& spec = files.spec;
  for (size_t i = 0; i < spec.replicas.size(); ++i) {
    ServeReplicaSpec& r = spec.replicas[i];
    r.pod = load_topology_file(files.topology[i]);
    r.workload = load_workload_file(files.workload[i], r.pod);
    check_serving(r.workload, parsed, static_cast<int>(i));
  }
  join_kv_slices(spec, parsed);
  if (spec.arrivals.kind == ArrivalKind::kTrace)
    spec.arrivals.trace = load_trace_file(spec.arrivals.trace_file, files.trace_speedup);
  return spec;
}

}  // namespace

ServeSpec load_serve_file(const std::filesystem::path& path) {
  return parse_serve(internal::format_of(path), read_file_to_string(path), path.string(),
                     path.parent_path());
}

ServeSpec parse_serve_text(std::string_view text, std::string source_name,
                           const std::filesystem::path& base_dir) {
  return parse_serve(internal::InputFormat::kText, text, std::move(source_name), base_dir);
}

}  // namespace podsim::config
