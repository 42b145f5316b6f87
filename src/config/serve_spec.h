// Validated, typed description of a `podsim serve` run
// (proto/podsim/serve.proto): replicas (each a loaded pod and serving
// workload with its scheduler), the arrival process, the router, the SLOs and
// the step-time buckets. Produced by load_serve_file().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "sim/time.h"

namespace podsim::config {

// Limits (docs/inputs.md): a typo cannot ask for a run that never ends.
// Requests of one run (each keeps a record of about 100 bytes: 2 GB at the
// limit); a run with no `requests` stops issuing here too.
inline constexpr uint64_t kMaxServeRequests = 20'000'000;
inline constexpr uint32_t kMaxServeReplicas = 4096;  // copies over all replicas
inline constexpr uint32_t kMaxServeUsers = 10'000'000;
inline constexpr uint32_t kMaxRequestTokens = 1u << 20;  // prompt or output of one request
inline constexpr uint32_t kMaxServeBatch = 1u << 16;
inline constexpr uint32_t kMaxStepTokens = 1u << 24;
inline constexpr double kMaxServeDurationS = 30.0 * 86400;  // 30 days
inline constexpr double kMaxArrivalRatePerS = 1e9;
// buckets.max_error: below 1e-4 a step would be simulated nearly exactly
// (refinement ends at the step itself anyway); above 0.5 it bounds nothing.
inline constexpr double kMinBucketError = 1e-4;
inline constexpr double kMaxBucketError = 0.5;

enum class SchedulerKind { kStatic, kContinuous, kChunkedPrefill, kDeadline };
enum class RouterKind { kRoundRobin, kLeastOutstandingTokens };
enum class ArrivalKind { kPoisson, kGamma, kClosedLoop, kTrace, kConversations };
enum class LengthKind { kFixed, kUniform, kExponential };
enum class PreemptionKind { kRecompute, kSwap };
enum class RoleKind { kUnified, kPrefill, kDecode };
// DEADLINE scheduler: a waiting request predicted to miss its TTFT deadline
// is admitted anyway, shed (rejected), or deferred behind the others.
enum class AdmissionKind { kAdmitAll, kRejectLate, kDeferLate };

inline constexpr uint32_t kMaxDraftTokens = 32;

// Speculative decoding of one replica (docs/serving.md). Off when
// draft_tokens is 0.
struct SpeculativeSpec {
  uint32_t draft_tokens = 0;  // k
  // Conditional acceptance of draft position i (0-based) given positions
  // before it were accepted: draft_tokens entries.
  std::vector<double> acceptance;
  // The draft model: its serving workload (loaded against draft_pod, or the
  // replica's pod when it shares the chips); for multi-token prediction, the
  // target's workload cut to mtp_layers layers.
  std::optional<WorkloadSpec> draft_workload;
  std::optional<PodSpec> draft_pod;  // set: the draft runs on chips of its own
  uint32_t mtp_layers = 0;

  bool enabled() const { return draft_tokens > 0; }
};

struct ServeReplicaSpec {
  std::string name;
  PodSpec pod;
  WorkloadSpec workload;  // serving form
  uint32_t count = 1;
  SchedulerKind scheduler = SchedulerKind::kContinuous;
  uint32_t max_batch = 1;
  uint32_t max_tokens_per_step = 1;
  uint32_t kv_block_tokens = 16;
  double kv_memory_fraction = 0.9;
  PreemptionKind preemption = PreemptionKind::kRecompute;
  double host_bandwidth_gbps = 0;  // swap: per chip, HBM <-> host
  RoleKind role = RoleKind::kUnified;
  SpeculativeSpec speculative;
  AdmissionKind admission = AdmissionKind::kAdmitAll;
  bool prefix_caching = false;  // docs/serving.md, "Prefix caching"
};

// Request lengths of synthetic arrivals, in tokens (>= 1).
struct LengthSpec {
  LengthKind kind = LengthKind::kFixed;
  uint32_t min = 1;  // fixed: the value; uniform: the lower end
  uint32_t max = 1;  // fixed: the value; uniform, exponential: the cap
  double mean = 1;   // exponential
};

// One request of a trace file.
struct TraceRequest {
  sim::Time arrival;  // relative to the trace's first row, divided by the speedup
  uint32_t prompt_tokens = 1;
  uint32_t output_tokens = 1;
  // The optional columns (docs/serving.md, "Trace files"): what its leading
  // tokens are (config/trace_prefix.h; well formed, empty: nothing named),
  // and its SLO class (letters, digits, '_', '-'; empty: none).
  std::string prefix = {};
  std::string slo_class = {};
  // The class it names, as the serve loader resolves it against the serve
  // file's slo_classes: 0 none, i slo_classes[i - 1].
  uint32_t slo_class_index = 0;
};

// Multi-turn conversations (docs/serving.md, "Prefix caching"): new ones
// arrive as a Poisson process, each on one of `system_prompts` shared system
// prompts (lengths drawn once per run), with a number of turns; each turn is
// a request whose prompt is the system prompt, the conversation so far and
// a new user message.
struct ConversationSpec {
  double rate_per_s = 0;  // new conversations
  uint32_t system_prompts = 1;
  LengthSpec system_prompt_tokens;
  LengthSpec turns;
  LengthSpec user_tokens;
  LengthSpec output_tokens;
  double think_time_s = 0;  // mean gap between a turn's arrival and the next's
};

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::kPoisson;
  double rate_per_s = 0;            // poisson, gamma
  double cv = 1;                    // gamma
  uint32_t users = 0;               // closed loop
  double think_time_s = 0;          // closed loop, mean
  std::string trace_file;           // trace: as resolved
  std::string trace_sha256;         // trace: hex SHA-256 of its bytes
  double trace_speedup = 1;         // trace: its arrival times divided by this
  std::vector<TraceRequest> trace;  // in arrival order (ties in file order)
  LengthSpec prompt;
  LengthSpec output;
  ConversationSpec conversations;  // conversations
};

struct SloSpec {
  double ttft_ms = 0;  // 0: none
  double tpot_ms = 0;  // 0: none
  // 0: none; else a request's longest gap between consecutive tokens must
  // be within it (docs/serving.md, "Time between tokens").
  double tbt_ms = 0;
};

// A class of requests with its own objectives (serve.proto SloClass).
struct SloClassSpec {
  std::string name;
  SloSpec slo;
  double share = 0;  // synthetic arrivals: the share of requests drawn into it
};

enum class BucketMode { kRefine, kRoundUp };

struct BucketSpec {
  uint32_t batch_steps_per_octave = 8;
  uint32_t length_steps_per_octave = 8;
  // With kRoundUp: simulate the lower edges. false also means kRoundUp.
  bool measure_error = true;
  BucketMode mode = BucketMode::kRefine;
  double max_error = 0.01;  // kRefine's target relative error

  bool refine() const { return mode == BucketMode::kRefine && measure_error; }
};

// Disaggregation: the pod the KV caches move over, and where each
// ROLE_PREFILL and ROLE_DECODE copy (in spec order, copies of a replica one
// after another) sits in it. Over DCN, `pod` is their common slice (torus and
// chip of their topology files, faults left out) times the copies, joined by
// the file's DCN, copy k on slice k. Over ICI, `pod` is the ici_topology
// file's slice, tiled by the copies' common shape in row-major order of the
// tiles (the first dimension fastest), copy k on tile k.
struct KvPlacement {
  uint32_t slice = 0;
  std::vector<uint32_t> origin;  // coordinates of the copy's chip 0 in the pod
};

// Heterogeneous copies (different slice shapes, links or twists) over DCN:
// `pod`'s slice is then a line of as many chips as the largest copy has, chip
// k of a slice standing for chip k of its copy's own slice (its chip id).
// A cache crossing slices takes each chip's DCN up link and the other's DCN
// down link and no ICI link (topo/routing.h), so the line's ICI is never
// used; topo/ holds slices of one shape only.
struct KvTransferSpec {
  DcnSpec dcn;
  std::string model = "flow";          // net model of the transfers
  std::string ici_topology;            // as resolved; empty: over DCN
  std::optional<PodSpec> pod;          // set when there are prefill replicas
  std::vector<uint32_t> shape;         // a copy's dimension sizes
  std::vector<KvPlacement> placement;  // per prefill or decode copy
  bool chips_by_id = false;            // the heterogeneous line pod above
  bool reshard = false;                // the file's kv_transfer.reshard
};

struct ServeSpec {
  std::string name;
  std::string description;
  std::string source_file;
  std::string source_sha256;  // hex SHA-256 of the serve file's bytes (or the text given)
  std::vector<ServeReplicaSpec> replicas;
  ArrivalSpec arrivals;
  RouterKind router = RouterKind::kRoundRobin;
  SloSpec slo;
  std::vector<SloClassSpec> slo_classes;
  uint64_t seed = 0;
  sim::Time duration = sim::Time::max();      // arrivals stop after
  uint64_t max_requests = kMaxServeRequests;  // the file's `requests`, else the limit
  BucketSpec buckets;
  std::string network = "analytical";
  sim::Time sample_interval = sim::Time::s(1);
  KvTransferSpec kv_transfer;
  // The --set overrides it was loaded with ("path=value", every root, in
  // command-line order; config/serve_overrides.h).
  std::vector<std::string> overrides;
};

}  // namespace podsim::config
