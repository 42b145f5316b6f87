#include "config/internal/serve_validator.h"

#include <cmath>

#include "config/diagnostics.h"
#include "config/internal/enum_values.h"
#include "config/internal/serve_policy_validator.h"
#include "config/internal/topology_validator.h"
#include "podsim/serve.pb.h"

namespace podsim::config::internal {
namespace {

std::filesystem::path serve_path(const std::filesystem::path& base_dir, const std::string& name) {
  const std::filesystem::path p(name);
  return p.is_absolute() ? p : base_dir / p;
}

class ServeValidator {
 public:
  ServeValidator(const ServeConfig& s, const std::filesystem::path& base_dir)
      : s_(s), base_dir_(base_dir) {}

  std::vector<FieldIssue> run() {
    if (s_.replicas_size() == 0)
      issues_.add(root_("replicas"), "at least one replica is needed");
    uint64_t copies = 0;
    for (int i = 0; i < s_.replicas_size(); ++i) {
      check_replica(i);
      copies += s_.replicas(i).count() == 0 ? 1 : s_.replicas(i).count();
    }
    if (copies > kMaxServeReplicas)
      issues_.add(root_("replicas"), "at most " + std::to_string(kMaxServeReplicas) +
                                         " replica copies in all, got " + std::to_string(copies));
    check_arrivals();
    known_value(*Router_descriptor(), s_.router(), root_("router"), issues_);
    issues_.non_negative(root_("slo")("ttft_ms"), s_.slo().ttft_ms());
    issues_.non_negative(root_("slo")("tpot_ms"), s_.slo().tpot_ms());
    issues_.non_negative(root_("slo")("tbt_ms"), s_.slo().tbt_ms());
    check_slo_classes(s_, root_, issues_);
    if (issues_.non_negative(root_("duration_s"), s_.duration_s()))
      issues_.at_most(root_("duration_s"), s_.duration_s(), kMaxServeDurationS, "s");
    issues_.at_most(root_("requests"), s_.requests(), kMaxServeRequests, "");
    if (!s_.arrivals().has_trace() && s_.duration_s() == 0 && s_.requests() == 0)
      issues_.add(root_("duration_s"),
                  "synthetic arrivals need an end: set duration_s or requests (or both)");
    check_expected_requests();
    check_roles();
    if (issues_.non_negative(root_("sample_interval_s"), s_.sample_interval_s()) &&
        s_.sample_interval_s() != 0 && s_.sample_interval_s() < 1e-6)
      issues_.add(root_("sample_interval_s"), "must be >= 1e-6 s (or 0 for 1 s)");
    // Past the longest run an interval would only overflow the clock (ps).
    issues_.at_most(root_("sample_interval_s"), s_.sample_interval_s(), kMaxServeDurationS, "s");
    if (!s_.network().empty() && s_.network() != "analytical" && s_.network() != "flow")
      issues_.add(root_("network"), "must be analytical or flow, got \"" + s_.network() + "\"");
    check_steps(root_("buckets")("batch_steps_per_octave"), s_.buckets().batch_steps_per_octave());
    check_steps(root_("buckets")("length_steps_per_octave"),
                s_.buckets().length_steps_per_octave());
    check_bucket_mode();
    return issues_.issues();
  }

 private:
  // An open process run for duration_s alone must not ask for more requests
  // than a run may hold.
  void check_expected_requests() {
    const Arrivals& a = s_.arrivals();
    if (s_.requests() != 0 || s_.duration_s() <= 0 || !std::isfinite(s_.duration_s()))
      return;
    // Conversations: at least one request each.
    const double rate = a.has_poisson()         ? a.poisson().rate_per_s()
                        : a.has_gamma()         ? a.gamma().rate_per_s()
                        : a.has_conversations() ? a.conversations().rate_per_s()
                                                : 0;
    if (std::isfinite(rate) && rate * s_.duration_s() > static_cast<double>(kMaxServeRequests))
      issues_.add(root_("duration_s"),
                  "rate x duration_s makes about " + format_number(rate * s_.duration_s()) +
                      " requests, more than " + std::to_string(kMaxServeRequests) +
                      "; shorten it or set requests");
  }

  // Refinement always simulates both corners of a bracket (measure_error
  // cannot be off), and max_error is its target alone.
  void check_bucket_mode() {
    const Buckets& b = s_.buckets();
    known_value(*BucketMode_descriptor(), b.mode(), root_("buckets")("mode"), issues_);
    const bool refine =
        b.mode() == BUCKETS_REFINE ||
        (b.mode() == BUCKETS_UNSPECIFIED && (!b.has_measure_error() || b.measure_error()));
    if (b.mode() == BUCKETS_REFINE && b.has_measure_error() && !b.measure_error())
      issues_.add(root_("buckets")("measure_error"),
                  "BUCKETS_REFINE always simulates both corners of a step's bracket; "
                  "measure_error: false needs mode: BUCKETS_ROUND_UP");
    const FieldPath max_error = root_("buckets")("max_error");
    if (b.max_error() == 0)
      return;
    if (!refine)
      issues_.add(max_error, "applies to mode BUCKETS_REFINE only (this file rounds up)");
    else if (!std::isfinite(b.max_error()) || b.max_error() < kMinBucketError ||
             b.max_error() > kMaxBucketError)
      issues_.add(max_error, "must be between " + format_number(kMinBucketError) + " and " +
                                 format_number(kMaxBucketError) + " (0 for 0.01), got " +
                                 format_number(b.max_error()));
  }

  // Prefill replicas need decode replicas and a way to reach them, and the
  // other way round; neither batches statically.
  void check_roles() {
    bool prefill = false;
    bool decode = false;
    for (int i = 0; i < s_.replicas_size(); ++i) {
      const ServeReplica& r = s_.replicas(i);
      known_value(*Role_descriptor(), r.role(), root_("replicas", i)("role"), issues_);
      const bool split = r.role() == ROLE_PREFILL || r.role() == ROLE_DECODE;
      prefill |= r.role() == ROLE_PREFILL;
      decode |= r.role() == ROLE_DECODE;
      if (r.role() == ROLE_DECODE && r.prefix_caching())
        issues_.add(root_("replicas", i)("prefix_caching"),
                    "a ROLE_DECODE replica receives whole KV caches from prefill replicas: "
                    "prefix caching is for ROLE_PREFILL and unified replicas");
      if (split && r.scheduler() == STATIC_BATCHING)
        issues_.add(
            root_("replicas", i)("scheduler"),
            "ROLE_PREFILL and ROLE_DECODE replicas batch continuously (CONTINUOUS_BATCHING or "
            "CHUNKED_PREFILL), not STATIC_BATCHING");
    }
    if (prefill != decode)
      issues_.add(root_("replicas"), prefill ? "ROLE_PREFILL replicas need a ROLE_DECODE replica"
                                             : "ROLE_DECODE replicas need a ROLE_PREFILL replica");
    const FieldPath kv = root_("kv_transfer");
    if (!s_.kv_transfer().ici_topology().empty()) {
      check_file(kv("ici_topology"), s_.kv_transfer().ici_topology(), "topology");
      if (s_.kv_transfer().bandwidth_gbps_per_chip() != 0)
        issues_.add(kv("bandwidth_gbps_per_chip"),
                    "over ICI the topology's links carry the caches; give no DCN bandwidth");
      if (s_.kv_transfer().latency_us() != 0)
        issues_.add(kv("latency_us"),
                    "over ICI the topology's hop latencies apply; give no DCN latency");
      const std::string& model = s_.kv_transfer().model();
      if (!model.empty() && model != "flow" && model != "analytical" && model != "packet")
        issues_.add(kv("model"), "must be flow, analytical or packet, got \"" + model + "\"");
      return;
    }
    bandwidth(kv("bandwidth_gbps_per_chip"), s_.kv_transfer().bandwidth_gbps_per_chip());
    if (issues_.non_negative(kv("latency_us"), s_.kv_transfer().latency_us()))
      issues_.at_most(kv("latency_us"), s_.kv_transfer().latency_us(), 1e9, "us");
    if (prefill && !(s_.kv_transfer().bandwidth_gbps_per_chip() > 0))
      issues_.add(kv("bandwidth_gbps_per_chip"),
                  "ROLE_PREFILL replicas hand their KV caches over DCN: give its bandwidth per "
                  "chip (> 0 GB/s)");
    const std::string& model = s_.kv_transfer().model();
    if (!model.empty() && model != "flow" && model != "analytical" && model != "packet")
      issues_.add(kv("model"), "must be flow, analytical or packet, got \"" + model + "\"");
  }

  // A rate in GB/s, 0 for none: at most 1e6 GB/s and, when set, at least the
  // slowest link or memory a topology may have (kMinBandwidthGbps, 1 MB/s),
  // so that bytes over it stay within the clock as they do in `podsim run`.
  void bandwidth(const FieldPath& at, double gbps) {
    if (issues_.non_negative(at, gbps) && issues_.at_most(at, gbps, 1e6, "GB/s") && gbps > 0 &&
        gbps < kMinBandwidthGbps)
      issues_.add(at, "must be >= 0.001 GB/s (1 MB/s) when set, got " + format_number(gbps) +
                          " GB/s: no link or memory is that slow");
  }

  void check_steps(const FieldPath& at, uint32_t v) {
    if (v != 0 && (v & (v - 1)) != 0)
      issues_.add(at, "must be a power of two (or 0 for 8), got " + std::to_string(v));
    issues_.at_most(at, v, 1u << 16, "");
  }

  void check_file(const FieldPath& at, const std::string& name, const char* what) {
    if (name.empty()) {
      issues_.add(at, std::string("must name a ") + what + " file");
      return;
    }
    if (const std::string why = input_file_problem(serve_path(base_dir_, name)); !why.empty())
      issues_.add(at, why);
  }

  void check_replica(int i) {
    const ServeReplica& r = s_.replicas(i);
    const FieldPath at = root_("replicas", i);
    check_file(at("topology"), r.topology(), "topology");
    check_file(at("workload"), r.workload(), "serving workload");
    issues_.at_most(at("count"), r.count(), kMaxServeReplicas, "");
    known_value(*Scheduler_descriptor(), r.scheduler(), at("scheduler"), issues_);
    known_value(*Preemption_descriptor(), r.preemption(), at("preemption"), issues_);
    bandwidth(at("host_bandwidth_gbps"), r.host_bandwidth_gbps());
    if (r.preemption() == SWAP && !(r.host_bandwidth_gbps() > 0))
      issues_.add(at("host_bandwidth_gbps"), "SWAP preemption needs the host bandwidth (> 0 GB/s)");
    if (issues_.at_least(at("max_batch"), r.max_batch(), 1))
      issues_.at_most(at("max_batch"), r.max_batch(), kMaxServeBatch, "");
    if (issues_.at_least(at("max_tokens_per_step"), r.max_tokens_per_step(), 1))
      issues_.at_most(at("max_tokens_per_step"), r.max_tokens_per_step(), kMaxStepTokens, "");
    if (r.max_tokens_per_step() != 0 && r.max_tokens_per_step() < r.max_batch())
      issues_.add(at("max_tokens_per_step"),
                  "must be >= max_batch (" + std::to_string(r.max_batch()) +
                      "): every running sequence decodes one token per step");
    issues_.at_most(at("kv_block_tokens"), r.kv_block_tokens(), 1u << 16, "");
    if (issues_.non_negative(at("kv_memory_fraction"), r.kv_memory_fraction()))
      issues_.at_most(at("kv_memory_fraction"), r.kv_memory_fraction(), 1.0, "");
    check_serving_policy(r, at, issues_,
                         [this](const FieldPath& f, const std::string& name, const char* what) {
                           check_file(f, name, what);
                         });
  }

  void check_lengths(const FieldPath& at, const Lengths& l) {
    switch (l.distribution_case()) {
      case Lengths::kFixed:
        if (issues_.at_least(at("fixed"), l.fixed(), 1))
          issues_.at_most(at("fixed"), l.fixed(), kMaxRequestTokens, "");
        break;
      case Lengths::kUniform:
        if (issues_.at_least(at("uniform")("min"), l.uniform().min(), 1) &&
            issues_.at_most(at("uniform")("max"), l.uniform().max(), kMaxRequestTokens, "") &&
            l.uniform().max() < l.uniform().min())
          issues_.add(at("uniform")("max"),
                      "must be >= min (" + std::to_string(l.uniform().min()) + ")");
        break;
      case Lengths::kExponential:
        if (issues_.at_least(at("exponential")("max"), l.exponential().max(), 1) &&
            issues_.at_most(at("exponential")("max"), l.exponential().max(), kMaxRequestTokens,
                            "") &&
            issues_.finite(at("exponential")("mean"), l.exponential().mean()) &&
            !(l.exponential().mean() >= 1 && l.exponential().mean() <= l.exponential().max()))
          issues_.add(at("exponential")("mean"), "must be in [1, max]");
        break;
      default:
        issues_.add(at, "synthetic arrivals need a length: fixed, uniform or exponential");
    }
  }

  void check_conversations(const FieldPath& at, const Conversations& c) {
    rate(at("rate_per_s"), c.rate_per_s());
    if (issues_.at_least(at("system_prompts"), c.system_prompts(), 1))
      issues_.at_most(at("system_prompts"), c.system_prompts(), 1u << 20, "");
    check_lengths(at("system_prompt_tokens"), c.system_prompt_tokens());
    check_lengths(at("turns"), c.turns());
    check_lengths(at("user_tokens"), c.user_tokens());
    check_lengths(at("output_tokens"), c.output_tokens());
    if (issues_.non_negative(at("think_time_s"), c.think_time_s()))
      issues_.at_most(at("think_time_s"), c.think_time_s(), 86400.0, "s");
  }

  void rate(const FieldPath& at, double r) {
    if (issues_.positive(at, r))
      issues_.at_most(at, r, kMaxArrivalRatePerS, "per s");
  }

  void check_arrivals() {
    const Arrivals& a = s_.arrivals();
    const FieldPath at = root_("arrivals");
    switch (a.process_case()) {
      case Arrivals::kPoisson:
        rate(at("poisson")("rate_per_s"), a.poisson().rate_per_s());
        break;
      case Arrivals::kGamma:
        rate(at("gamma")("rate_per_s"), a.gamma().rate_per_s());
        if (issues_.positive(at("gamma")("cv"), a.gamma().cv()))
          issues_.at_most(at("gamma")("cv"), a.gamma().cv(), 100.0, "");
        break;
      case Arrivals::kClosedLoop:
        if (issues_.at_least(at("closed_loop")("users"), a.closed_loop().users(), 1))
          issues_.at_most(at("closed_loop")("users"), a.closed_loop().users(), kMaxServeUsers, "");
        if (issues_.non_negative(at("closed_loop")("think_time_s"), a.closed_loop().think_time_s()))
          issues_.at_most(at("closed_loop")("think_time_s"), a.closed_loop().think_time_s(),
                          86400.0, "s");
        break;
      case Arrivals::kConversations:
        check_conversations(at("conversations"), a.conversations());
        if (a.has_prompt_tokens() || a.has_output_tokens())
          issues_.add(at("prompt_tokens"),
                      "conversations give their own lengths (user_tokens, output_tokens): remove "
                      "these");
        return;
      case Arrivals::kTrace:
        check_file(at("trace")("file"), a.trace().file(), "trace CSV");
        if (issues_.non_negative(at("trace")("speedup"), a.trace().speedup()))
          issues_.at_most(at("trace")("speedup"), a.trace().speedup(), 1e6, "");
        if (a.has_prompt_tokens() || a.has_output_tokens())
          issues_.add(at("prompt_tokens"), "a trace gives its own lengths: remove these");
        return;
      default:
        issues_.add(at,
                    "must give one arrival process: poisson, gamma, closed_loop, trace or "
                    "conversations");
        return;
    }
    check_lengths(at("prompt_tokens"), a.prompt_tokens());
    check_lengths(at("output_tokens"), a.output_tokens());
  }

  const ServeConfig& s_;
  const std::filesystem::path& base_dir_;
  const FieldPath root_;
  IssueList issues_;
};

LengthSpec length_spec(const Lengths& l) {
  LengthSpec out;
  switch (l.distribution_case()) {
    case Lengths::kUniform:
      out.kind = LengthKind::kUniform;
      out.min = l.uniform().min();
      out.max = l.uniform().max();
      break;
    case Lengths::kExponential:
      out.kind = LengthKind::kExponential;
      out.min = 1;
      out.max = l.exponential().max();
      out.mean = l.exponential().mean();
      break;
    default:
      out.kind = LengthKind::kFixed;
      out.min = out.max = l.fixed();
      out.mean = l.fixed();
      break;
  }
  return out;
}

SchedulerKind scheduler_of(Scheduler s) {
  switch (s) {
    case STATIC_BATCHING:
      return SchedulerKind::kStatic;
    case CHUNKED_PREFILL:
      return SchedulerKind::kChunkedPrefill;
    case DEADLINE:
      return SchedulerKind::kDeadline;
    default:
      return SchedulerKind::kContinuous;
  }
}

sim::Time seconds(double s) {
  return sim::Time::ps(static_cast<int64_t>(std::llround(s * 1e12)));
}

}  // namespace

std::vector<FieldIssue> validate_serve(const ServeConfig& serve,
                                       const std::filesystem::path& base_dir) {
  return ServeValidator(serve, base_dir).run();
}

ServeFiles to_serve_spec(const ServeConfig& s, const std::filesystem::path& base_dir,
                         std::string source_file) {
  ServeFiles files;
  ServeSpec& spec = files.spec;
  spec.name = s.name();
  spec.description = s.description();
  spec.source_file = std::move(source_file);
  for (int i = 0; i < s.replicas_size(); ++i) {
    const ServeReplica& r = s.replicas(i);
    ServeReplicaSpec rs;
    rs.name = r.name().empty() ? "replica" + std::to_string(i) : r.name();
    rs.count = r.count() == 0 ? 1 : r.count();
    rs.scheduler = scheduler_of(r.scheduler());
    rs.max_batch = r.max_batch();
    rs.max_tokens_per_step = r.max_tokens_per_step();
    rs.kv_block_tokens = r.kv_block_tokens() == 0 ? 16 : r.kv_block_tokens();
    rs.kv_memory_fraction = r.kv_memory_fraction() == 0 ? 0.9 : r.kv_memory_fraction();
    rs.preemption = r.preemption() == SWAP ? PreemptionKind::kSwap : PreemptionKind::kRecompute;
    rs.host_bandwidth_gbps = r.host_bandwidth_gbps();
    rs.role = r.role() == ROLE_PREFILL  ? RoleKind::kPrefill
              : r.role() == ROLE_DECODE ? RoleKind::kDecode
                                        : RoleKind::kUnified;
    rs.speculative = speculative_spec(r.speculative());
    rs.admission = admission_of(r.admission());
    rs.prefix_caching = r.prefix_caching();
    spec.replicas.push_back(std::move(rs));
    files.topology.push_back(serve_path(base_dir, r.topology()).lexically_normal());
    files.workload.push_back(serve_path(base_dir, r.workload()).lexically_normal());
    const Speculative& sp = r.speculative();
    files.draft_workload.push_back(
        sp.draft_workload().empty() ? std::filesystem::path()
                                    : serve_path(base_dir, sp.draft_workload()).lexically_normal());
    files.draft_topology.push_back(
        sp.draft_topology().empty() ? std::filesystem::path()
                                    : serve_path(base_dir, sp.draft_topology()).lexically_normal());
  }
  const Arrivals& a = s.arrivals();
  ArrivalSpec& as = spec.arrivals;
  switch (a.process_case()) {
    case Arrivals::kGamma:
      as.kind = ArrivalKind::kGamma;
      as.rate_per_s = a.gamma().rate_per_s();
      as.cv = a.gamma().cv();
      break;
    case Arrivals::kClosedLoop:
      as.kind = ArrivalKind::kClosedLoop;
      as.users = a.closed_loop().users();
      as.think_time_s = a.closed_loop().think_time_s();
      break;
    case Arrivals::kConversations: {
      as.kind = ArrivalKind::kConversations;
      const Conversations& c = a.conversations();
      ConversationSpec& cs = as.conversations;
      cs.rate_per_s = c.rate_per_s();
      cs.system_prompts = c.system_prompts();
      cs.system_prompt_tokens = length_spec(c.system_prompt_tokens());
      cs.turns = length_spec(c.turns());
      cs.user_tokens = length_spec(c.user_tokens());
      cs.output_tokens = length_spec(c.output_tokens());
      cs.think_time_s = c.think_time_s();
      break;
    }
    case Arrivals::kTrace:
      as.kind = ArrivalKind::kTrace;
      as.trace_file = serve_path(base_dir, a.trace().file()).lexically_normal().string();
      files.trace_speedup = a.trace().speedup() == 0 ? 1 : a.trace().speedup();
      break;
    default:
      as.kind = ArrivalKind::kPoisson;
      as.rate_per_s = a.poisson().rate_per_s();
      break;
  }
  if (as.kind != ArrivalKind::kTrace && as.kind != ArrivalKind::kConversations) {
    as.prompt = length_spec(a.prompt_tokens());
    as.output = length_spec(a.output_tokens());
  }
  spec.router = s.router() == LEAST_OUTSTANDING_TOKENS ? RouterKind::kLeastOutstandingTokens
                                                       : RouterKind::kRoundRobin;
  spec.slo = SloSpec{s.slo().ttft_ms(), s.slo().tpot_ms(), s.slo().tbt_ms()};
  spec.slo_classes = slo_class_specs(s);
  spec.seed = s.seed();
  spec.duration = s.duration_s() == 0 ? sim::Time::max() : seconds(s.duration_s());
  spec.max_requests = s.requests() == 0 ? kMaxServeRequests : s.requests();
  spec.buckets.batch_steps_per_octave =
      s.buckets().batch_steps_per_octave() == 0 ? 8 : s.buckets().batch_steps_per_octave();
  spec.buckets.length_steps_per_octave =
      s.buckets().length_steps_per_octave() == 0 ? 8 : s.buckets().length_steps_per_octave();
  spec.buckets.measure_error = !s.buckets().has_measure_error() || s.buckets().measure_error();
  spec.buckets.mode = s.buckets().mode() == BUCKETS_ROUND_UP || !spec.buckets.measure_error
                          ? BucketMode::kRoundUp
                          : BucketMode::kRefine;
  if (s.buckets().max_error() != 0)
    spec.buckets.max_error = s.buckets().max_error();
  if (!s.network().empty())
    spec.network = s.network();
  if (s.sample_interval_s() != 0)
    spec.sample_interval = seconds(s.sample_interval_s());
  spec.kv_transfer.dcn.bandwidth_per_chip =
      sim::Bandwidth::from_gbps(s.kv_transfer().bandwidth_gbps_per_chip());
  spec.kv_transfer.dcn.latency = seconds(s.kv_transfer().latency_us() * 1e-6);
  if (!s.kv_transfer().model().empty())
    spec.kv_transfer.model = s.kv_transfer().model();
  spec.kv_transfer.reshard = s.kv_transfer().reshard();
  if (!s.kv_transfer().ici_topology().empty()) {
    files.kv_ici_topology = serve_path(base_dir, s.kv_transfer().ici_topology()).lexically_normal();
    spec.kv_transfer.ici_topology = files.kv_ici_topology.string();
  }
  return files;
}

}  // namespace podsim::config::internal
