#include "config/serve_loader.h"

#include "config/internal/input_parser.h"
#include "config/internal/serve_validator.h"
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
