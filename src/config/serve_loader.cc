#include "config/serve_loader.h"

#include <algorithm>
#include <map>

#include "config/internal/input_parser.h"
#include "config/internal/serve_validator.h"
#include "config/internal/topology_validator.h"
#include "config/sha256.h"
#include "config/serve_overrides.h"
#include "config/topology_loader.h"
#include "config/trace_loader.h"
#include "config/workload_loader.h"
#include "podsim/serve.pb.h"

namespace podsim::config {
namespace {

// A replica's workload must be a serving step: the scheduler replaces its
// scenario, so an operation list has nothing to serve.
void check_serving(const WorkloadSpec& w, const internal::ParsedInput& parsed,
                   internal::FieldPath at) {
  if (w.serving)
    return;
  throw InputError(parsed.diagnostic(
      internal::FieldIssue{at, "'" + w.source_file +
                                   "' is an operation list; a replica needs a serving workload "
                                   "(model, sharding, scenario)"}));
}

// Copies of different slices over DCN: a pod of one line per copy, as long
// as the largest copy, joined by the file's DCN (config::KvTransferSpec).
PodSpec kv_line_pod(const ServeSpec& spec, const ServeReplicaSpec& first, uint32_t copies,
                    uint32_t chips) {
  PodSpec pod = first.pod.without_faults();
  DimensionSpec line = first.pod.torus.dims.at(0);
  line.name = "chip";
  line.size = chips;
  line.wraparound = false;
  pod.torus.dims = {line};
  pod.torus.twists.clear();
  pod.name = spec.name + "-kv-transfer";
  pod.description = "the prefill and decode slices of " + spec.source_file +
                    " joined by DCN (each slice's chips by id)";
  pod.slices = copies;
  pod.dcn = spec.kv_transfer.dcn;
  return pod;
}

// Disaggregation: the pod the prefill and decode copies' KV caches move
// over (config::KvTransferSpec), and where each copy sits in it. Each copy
// must be one slice; copies of different slices go over DCN.
void place_kv_copies(ServeSpec& spec, const internal::ServeFiles& files,
                     const internal::ParsedInput& parsed) {
  auto fail = [&](internal::FieldPath at, const std::string& why) {
    throw InputError(parsed.diagnostic(internal::FieldIssue{std::move(at), why}));
  };
  const ServeReplicaSpec* first = nullptr;
  const ServeReplicaSpec* other = nullptr;  // the first copy of another slice
  uint64_t most_chips = 0;
  uint32_t copies = 0;
  bool prefill = false;
  for (size_t i = 0; i < spec.replicas.size(); ++i) {
    const ServeReplicaSpec& r = spec.replicas[i];
    if (r.role == RoleKind::kUnified)
      continue;
    prefill |= r.role == RoleKind::kPrefill;
    const internal::FieldPath at =
        internal::FieldPath()("replicas", static_cast<int>(i))("topology");
    if (r.pod.slices != 1)
      fail(at, "'" + r.pod.source_file + "' has " + std::to_string(r.pod.slices) +
                   " slices; a ROLE_PREFILL or ROLE_DECODE replica is one slice (its KV caches "
                   "move chip i to chip i between copies)");
    if (first == nullptr)
      first = &r;
    else if (!(r.pod.torus == first->pod.torus) && other == nullptr)
      other = &r;
    most_chips = std::max(most_chips, r.pod.torus.chip_count());
    copies += r.count;
  }
  if (!prefill)
    return;
  KvTransferSpec& kv = spec.kv_transfer;
  if (other != nullptr) {
    if (!kv.ici_topology.empty())
      fail(internal::FieldPath()("kv_transfer")("ici_topology"),
           "'" + other->pod.source_file + "' is not the slice of '" + first->pod.source_file +
               "' (same dimensions, links and twists): over ICI the copies tile one slice; "
               "copies of different slices move their caches over DCN (leave ici_topology out)");
    if (copies * most_chips > internal::kMaxChips)
      fail(internal::FieldPath()("replicas"),
           "the ROLE_PREFILL and ROLE_DECODE copies make a pod of " +
               std::to_string(copies * most_chips) +
               " chips joined over DCN for their KV transfers; at most " +
               std::to_string(internal::kMaxChips));
    kv.chips_by_id = true;
    kv.shape = {static_cast<uint32_t>(most_chips)};
    kv.pod = kv_line_pod(spec, *first, copies, static_cast<uint32_t>(most_chips));
    for (uint32_t k = 0; k < copies; ++k)
      kv.placement.push_back(KvPlacement{k, {0}});
    return;
  }
  for (const DimensionSpec& d : first->pod.torus.dims)
    kv.shape.push_back(d.size);
  if (kv.ici_topology.empty()) {
    if (copies * first->pod.torus.chip_count() > internal::kMaxChips)
      fail(internal::FieldPath()("replicas"),
           "the ROLE_PREFILL and ROLE_DECODE copies make a pod of " +
               std::to_string(copies * first->pod.torus.chip_count()) +
               " chips joined over DCN for their KV transfers; at most " +
               std::to_string(internal::kMaxChips));
    PodSpec pod = first->pod.without_faults();
    pod.name = spec.name + "-kv-transfer";
    pod.description = "the prefill and decode slices of " + spec.source_file + " joined by DCN";
    pod.slices = copies;
    pod.dcn = kv.dcn;
    kv.pod = std::move(pod);
    for (uint32_t k = 0; k < copies; ++k)
      kv.placement.push_back(KvPlacement{k, std::vector<uint32_t>(kv.shape.size(), 0)});
    return;
  }
  // Over ICI: the copies tile the one slice, row-major over the tiles.
  const internal::FieldPath at = internal::FieldPath()("kv_transfer")("ici_topology");
  PodSpec pod = load_topology_file(files.kv_ici_topology);
  if (pod.slices != 1)
    fail(at, "'" + pod.source_file + "' has " + std::to_string(pod.slices) +
                 " slices; over ICI the prefill and decode copies are parts of one slice");
  if (pod.torus.dims.size() != kv.shape.size())
    fail(at, "'" + pod.source_file + "' has " + std::to_string(pod.torus.dims.size()) +
                 " dimensions, the replicas' slices " + std::to_string(kv.shape.size()));
  uint64_t tiles = 1;
  std::vector<uint32_t> across;
  for (size_t d = 0; d < kv.shape.size(); ++d) {
    if (pod.torus.dims[d].size % kv.shape[d] != 0)
      fail(at, "'" + pod.source_file + "' dimension " + pod.torus.dims[d].name + " (" +
                   std::to_string(pod.torus.dims[d].size) +
                   ") is not a multiple of the replicas' (" + std::to_string(kv.shape[d]) +
                   "): the copies tile the slice");
    across.push_back(pod.torus.dims[d].size / kv.shape[d]);
    tiles *= across.back();
  }
  if (tiles < copies)
    fail(at, "'" + pod.source_file + "' holds " + std::to_string(tiles) +
                 " copies of the replicas' slice; the ROLE_PREFILL and ROLE_DECODE replicas "
                 "have " +
                 std::to_string(copies));
  for (uint32_t k = 0; k < copies; ++k) {
    KvPlacement p;
    uint32_t rest = k;
    for (size_t d = 0; d < kv.shape.size(); ++d) {
      p.origin.push_back(rest % across[d] * kv.shape[d]);
      rest /= across[d];
    }
    kv.placement.push_back(std::move(p));
  }
  kv.pod = std::move(pod);
}

// Speculative decoding's draft model: its own serving workload (on the
// replica's chips or a slice of its own), or the target cut to mtp_layers
// layers (multi-token prediction).
void load_draft(ServeReplicaSpec& r, const std::filesystem::path& workload,
                const std::filesystem::path& topology, const internal::ParsedInput& parsed,
                const internal::FieldPath& at) {
  SpeculativeSpec& sp = r.speculative;
  if (!sp.enabled())
    return;
  if (sp.mtp_layers > 0) {
    WorkloadSpec w = r.workload;
    w.serving->model.layers = sp.mtp_layers;
    w.serving->model.name += " (" + std::to_string(sp.mtp_layers) + "-layer MTP draft)";
    sp.draft_workload = std::move(w);
    return;
  }
  if (!topology.empty())
    sp.draft_pod = load_topology_file(topology);
  sp.draft_workload = load_workload_file(workload, sp.draft_pod ? *sp.draft_pod : r.pod);
  check_serving(*sp.draft_workload, parsed, at("draft_workload"));
}

// A trace's slo_class names a class of the serve file's slo_classes.
void resolve_slo_classes(ServeSpec& spec, const internal::ParsedInput& parsed) {
  std::map<std::string, uint32_t, std::less<>> index;
  for (size_t i = 0; i < spec.slo_classes.size(); ++i)
    index.emplace(spec.slo_classes[i].name, static_cast<uint32_t>(i + 1));
  for (TraceRequest& r : spec.arrivals.trace) {
    if (r.slo_class.empty())
      continue;
    const auto it = index.find(r.slo_class);
    if (it == index.end())
      throw InputError(parsed.diagnostic(internal::FieldIssue{
          internal::FieldPath()("arrivals")("trace")("file"),
          "'" + spec.arrivals.trace_file + "' names SLO class \"" + r.slo_class +
              "\", which is not one of the serve file's slo_classes"}));
    r.slo_class_index = it->second;
  }
}

ServeSpec parse_serve(internal::InputFormat format, std::string_view contents,
                      std::string source_name, const std::filesystem::path& base_dir,
                      const Overrides& overrides) {
  check_serve_override_roots(overrides);
  ServeConfig message;
  internal::ParsedInput parsed =
      internal::ParsedInput::parse(format, contents, std::move(source_name), message);
  parsed.apply_overrides(overrides, kServeRoot, message);
  parsed.throw_if_invalid(internal::validate_serve(message, base_dir));
  internal::ServeFiles files = internal::to_serve_spec(message, base_dir, parsed.source());
  ServeSpec& spec = files.spec;
  check_replica_indexes(overrides, spec.replicas.size(), parsed.source());
  for (const Override& o : overrides)
    spec.overrides.push_back(to_string(o));
  for (size_t i = 0; i < spec.replicas.size(); ++i) {
    ServeReplicaSpec& r = spec.replicas[i];
    r.pod = load_topology_file(files.topology[i], overrides, replica_roots("topology", i));
    r.workload =
        load_workload_file(files.workload[i], r.pod, overrides, replica_roots("workload", i));
    const internal::FieldPath at = internal::FieldPath()("replicas", static_cast<int>(i));
    check_serving(r.workload, parsed, at("workload"));
    load_draft(r, files.draft_workload[i], files.draft_topology[i], parsed, at("speculative"));
  }
  place_kv_copies(spec, files, parsed);
  spec.source_sha256 = sha256_hex(contents);
  if (spec.arrivals.kind == ArrivalKind::kTrace) {
    spec.arrivals.trace_speedup = files.trace_speedup;
    spec.arrivals.trace =
        load_trace_file(spec.arrivals.trace_file, files.trace_speedup, &spec.arrivals.trace_sha256);
  }
  resolve_slo_classes(spec, parsed);
  return spec;
}

}  // namespace

ServeSpec load_serve_file(const std::filesystem::path& path, const Overrides& overrides) {
  return parse_serve(internal::format_of(path), read_file_to_string(path), path.string(),
                     path.parent_path(), overrides);
}

ServeSpec parse_serve_text(std::string_view text, std::string source_name,
                           const std::filesystem::path& base_dir, const Overrides& overrides) {
  return parse_serve(internal::InputFormat::kText, text, std::move(source_name), base_dir,
                     overrides);
}

}  // namespace podsim::config
