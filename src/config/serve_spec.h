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

enum class SchedulerKind { kStatic, kContinuous, kChunkedPrefill };
enum class RouterKind { kRoundRobin, kLeastOutstandingTokens };
enum class ArrivalKind { kPoisson, kGamma, kClosedLoop, kTrace };
enum class LengthKind { kFixed, kUniform, kExponential };
enum class PreemptionKind { kRecompute, kSwap };
enum class RoleKind { kUnified, kPrefill, kDecode };

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
};

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::kPoisson;
  double rate_per_s = 0;            // poisson, gamma
  double cv = 1;                    // gamma
  uint32_t users = 0;               // closed loop
  double think_time_s = 0;          // closed loop, mean
  std::string trace_file;           // trace: as resolved
  std::vector<TraceRequest> trace;  // in arrival order (ties in file order)
  LengthSpec prompt;
  LengthSpec output;
};

struct SloSpec {
  double ttft_ms = 0;  // 0: none
  double tpot_ms = 0;  // 0: none
};

struct BucketSpec {
  uint32_t batch_steps_per_octave = 8;
  uint32_t length_steps_per_octave = 8;
  bool measure_error = true;
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
  std::vector<ServeReplicaSpec> replicas;
  ArrivalSpec arrivals;
  RouterKind router = RouterKind::kRoundRobin;
  SloSpec slo;
  uint64_t seed = 0;
  sim::Time duration = sim::Time::max();      // arrivals stop after
  uint64_t max_requests = kMaxServeRequests;  // the file's `requests`, else the limit
  BucketSpec buckets;
  std::string network = "analytical";
  sim::Time sample_interval = sim::Time::s(1);
  KvTransferSpec kv_transfer;
};

}  // namespace podsim::config
