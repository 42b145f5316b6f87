// Monotone physics (issue 28): more work, or slower hardware, never makes a
// step faster. Every shipped serving workload (PaLM 62B among them: a
// parallel block with multi-query attention in a 2D weight-stationary
// layout) is swept over its context, batch and layers (up) and its chips'
// link bandwidth, HBM bandwidth and peak (down) and hop latency (up), on the
// flow and analytical models, and each step time must be at least the one
// before, to within 0.01%.
//
// One exception remains, a named mechanism with its own test below: on the
// flow model, collectives in flight together share each link fairly
// (max-min), so delaying one that is not on the critical path gives the one
// that is more of the link, and more work elsewhere can end the step
// sooner (a Graham scheduling anomaly). PaLM 62B's parallel block runs its
// attention branch's collectives beside its FFN branch's over the same x
// links: 16 more tokens of context lengthen attention by 0.22 us a layer,
// which starts attention's all-to-all later, and the FFN's reduce-scatter,
// on the critical path, ends 0.22 us sooner; the step is 0.08% faster. In
// these sweeps the analytical model, which books links first come, first
// served, shows no such drop (the same sweep must be monotone there to
// 0.01%), though the mechanism is not the flow model's alone (the op list
// of FairSharing below shows it on both); on flow the drop is bounded by
// kSharingTolerance. Weight gathers, where it was largest (1.7% on the
// LLaMA-3-70B prefill as HBM slowed), now run one at a time, as XLA runs
// its all-gathers (workload/layer_emitter.cc).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/diagnostics.h"
#include "result_support.h"

namespace podsim::study {
namespace {

using testing::root;

constexpr double kTolerance = 1e-4;         // 0.01%
constexpr double kSharingTolerance = 2e-3;  // 0.2%: the fair-sharing anomaly, flow only

// (workload, knob) sweeps where the flow model shows the anomaly.
constexpr std::pair<const char*, const char*> kFairSharing[] = {
    {"palm-62b-decode-v4", "scenario.context_len"},
};

bool fair_sharing_exception(const char* workload, const std::string& knob, net::Model model) {
  if (model != net::Model::kFlow)
    return false;
  for (const auto& [w, k] : kFairSharing)
    if (std::string(w) == workload && knob.rfind(k, 0) == 0)
      return true;
  return false;
}

struct Shipped {
  const char* topology;
  const char* workload;
};

// Every serving workload whose step runs in a fraction of a second.
constexpr Shipped kShipped[] = {
    {"v5e-4x4", "llama3-8b-decode-v5e"},      {"v5e-4x4", "llama3-8b-prefill-v5e"},
    {"v5e-4x4", "mixtral-8x7b-decode-v5e"},   {"v5e-4x4", "mixtral-8x7b-prefill-v5e"},
    {"v5e-16x16", "llama3-70b-decode-v5e"},   {"v5e-16x16", "llama3-70b-prefill-v5e"},
    {"v6e-16x16", "llama3-8b-decode-v6e"},    {"tpu7x-4x4x4", "llama3-70b-decode-tpu7x"},
    {"v5p-4x4x4", "deepseek-v3-prefill-v5p"}, {"v4-4x4x4", "palm-62b-decode-v4"},
};

using PodEdit = std::function<void(config::PodSpec&)>;

// The step time of `s` with the pod edited and the workload overridden;
// nullopt when the overrides give a shape the layout cannot run (a batch
// the sharding does not split, say): that point is skipped.
std::optional<double> step_us(const Shipped& s, net::Model model, const PodEdit& edit,
                              const std::vector<config::Override>& overrides) {
  config::PodSpec spec =
      config::load_topology_file(root() / "topologies" / (std::string(s.topology) + ".textproto"));
  if (edit)
    edit(spec);
  config::WorkloadSpec w;
  try {
    w = config::load_workload_file(root() / "workloads" / (std::string(s.workload) + ".textproto"),
                                   spec, overrides);
  } catch (const config::InputError&) {
    return std::nullopt;
  }
  const topo::Pod pod(std::move(spec));
  RunOptions o;
  o.network.model = model;
  o.allow_oom = true;  // more work may not fit; its time still counts
  const podsim::Result r = evaluate(pod, w, o);
  if (r.status() == podsim::Result::invalid)
    return std::nullopt;
  EXPECT_EQ(r.status(), podsim::Result::ok) << s.workload << ": " << r.reason();
  return r.serving().step_time_us();
}

// Checks that the points, in order, never get faster; `what` names each.
void expect_monotone(const Shipped& s, net::Model model, const std::string& knob,
                     const std::vector<std::optional<double>>& times,
                     const std::vector<std::string>& labels) {
  const double tolerance =
      fair_sharing_exception(s.workload, knob, model) ? kSharingTolerance : kTolerance;
  std::optional<double> last;
  std::string last_label;
  size_t ran = 0;
  for (size_t i = 0; i < times.size(); ++i) {
    if (!times[i])
      continue;
    ++ran;
    if (last) {
      EXPECT_GE(*times[i], *last * (1 - tolerance))
          << s.workload << " on " << net::to_string(model) << ": " << knob << " " << labels[i]
          << " took " << *times[i] << " us, " << last_label << " " << *last << " us";
    }
    last = times[i];
    last_label = labels[i];
  }
  EXPECT_GE(ran, 2u) << s.workload << ": fewer than two points of " << knob << " ran";
}

const config::WorkloadSpec& shipped_spec(const Shipped& s, config::WorkloadSpec& keep) {
  const config::PodSpec spec =
      config::load_topology_file(root() / "topologies" / (std::string(s.topology) + ".textproto"));
  keep = config::load_workload_file(root() / "workloads" / (std::string(s.workload) + ".textproto"),
                                    spec);
  return keep;
}

// A workload field swept upwards from its value, as overrides.
void sweep_field(const Shipped& s, net::Model model, const std::string& field, uint64_t base,
                 const std::vector<uint64_t>& values) {
  std::vector<std::optional<double>> times;
  std::vector<std::string> labels;
  for (const uint64_t v : values) {
    times.push_back(step_us(s, model, {}, {{"workload." + field, std::to_string(v)}}));
    labels.push_back(std::to_string(v));
  }
  expect_monotone(s, model, field + " from " + std::to_string(base), times, labels);
}

// A hardware figure scaled by each factor in turn, from 1.
void sweep_pod(const Shipped& s, net::Model model, const std::string& knob,
               const std::vector<double>& factors,
               const std::function<void(config::PodSpec&, double)>& scale) {
  std::vector<std::optional<double>> times;
  std::vector<std::string> labels;
  for (const double f : factors) {
    times.push_back(step_us(s, model, [&](config::PodSpec& p) { scale(p, f); }, {}));
    labels.push_back("x" + std::to_string(f));
  }
  expect_monotone(s, model, knob, times, labels);
}

constexpr net::Model kModels[] = {net::Model::kFlow, net::Model::kAnalytical};

sim::Bandwidth scaled(sim::Bandwidth b, double f) {
  return sim::Bandwidth::bytes_per_s(
      static_cast<uint64_t>(std::llround(static_cast<double>(b.bytes_per_s()) * f)));
}

class MonotonePhysics : public ::testing::TestWithParam<Shipped> {};

TEST_P(MonotonePhysics, MoreWorkIsNeverFaster) {
  const Shipped& s = GetParam();
  config::WorkloadSpec keep;
  const config::ScenarioSpec sc = shipped_spec(s, keep).serving->scenario;
  const config::ModelSpec model = keep.serving->model;
  // Context: every 16 tokens over 256, where attention's tiles step.
  std::vector<uint64_t> contexts;
  for (uint64_t c = sc.context_len; c <= sc.context_len + 256; c += 16)
    contexts.push_back(c);
  for (const net::Model m : kModels)
    sweep_field(s, m, "scenario.context_len", sc.context_len, contexts);
  // Batch and layers: up to twice, in quarters (shapes the layout cannot
  // split are skipped).
  std::vector<uint64_t> batches;
  std::vector<uint64_t> layers;
  for (const uint64_t q : {4, 5, 6, 7, 8}) {
    batches.push_back(sc.batch * q / 4);
    layers.push_back(model.layers * q / 4);
  }
  for (const net::Model m : kModels) {
    sweep_field(s, m, "scenario.batch", sc.batch, batches);
    sweep_field(s, m, "model.layers", model.layers, layers);
  }
}

TEST_P(MonotonePhysics, SlowerHardwareIsNeverFaster) {
  const Shipped& s = GetParam();
  const std::vector<double> down{1.0, 0.9, 0.75, 0.5};
  const std::vector<double> up{1.0, 1.5, 2.0, 4.0};
  for (const net::Model m : kModels) {
    sweep_pod(s, m, "link bandwidth", down, [](config::PodSpec& p, double f) {
      for (config::DimensionSpec& d : p.torus.dims)
        d.link_bandwidth = scaled(d.link_bandwidth, f);
    });
    sweep_pod(s, m, "hop latency", up, [](config::PodSpec& p, double f) {
      for (config::DimensionSpec& d : p.torus.dims)
        d.hop_latency =
            sim::Time::ps(std::llround(static_cast<double>(d.hop_latency.count_ps()) * f));
    });
    sweep_pod(s, m, "HBM bandwidth", down, [](config::PodSpec& p, double f) {
      p.chip.hbm_bandwidth = scaled(p.chip.hbm_bandwidth, f);
    });
    // A slower clock: the matrix units' rate and every peak with it.
    sweep_pod(s, m, "peak", down, [](config::PodSpec& p, double f) {
      p.chip.mxu_clock_hz *= f;
      p.chip.peak_bf16_flops *= f;
      p.chip.peak_int8_ops *= f;
      p.chip.peak_fp8_flops *= f;
    });
  }
}

std::string shipped_name(const ::testing::TestParamInfo<Shipped>& info) {
  std::string n = info.param.workload;
  for (char& c : n)
    c = c == '-' ? '_' : c;
  return n;
}

INSTANTIATE_TEST_SUITE_P(Shipped, MonotonePhysics, ::testing::ValuesIn(kShipped), shipped_name);

// The mechanism alone: a 64 MiB all-gather over v4's 4-ring x, and an 8 MiB
// one over the same links issued after a matmul; a long matmul waits for
// the first. The longer the first matmul, the later the small gather starts
// and the less of the big one's time it shares the links for, so the big
// gather, on the critical path, ends sooner; without the small gather, more
// work is never faster.
TEST(FairSharing, DelayingAConcurrentCollectiveCanEndTheStepSooner) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("podsim-fair-sharing-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const config::PodSpec spec = config::load_topology_file(root() / "topologies/v4-4x4x4.textproto");
  const topo::Pod pod(spec);
  const auto makespan = [&](uint64_t work_n, bool small, net::Model model) {
    const std::filesystem::path file = dir / "w.textproto";
    std::ofstream(file) << "name: \"fair-sharing\"\n"
                           "mesh { axes { name: \"x\" dims: \"x\" } }\n"
                           "operations { name: \"big\" collective { kind: ALL_GATHER bytes: "
                           "67108864 axes: \"x\" } }\n"
                           "operations { name: \"work\" compute { matmul { m: 2048 k: 4096 n: "
                        << work_n << " } } }\n"
                        << (small ? "operations { name: \"small\" after: \"work\" collective "
                                    "{ kind: ALL_GATHER bytes: 8388608 axes: \"x\" } }\n"
                                  : "")
                        << "operations { name: \"tail\" after: \"big\" compute { matmul { m: "
                           "8192 k: 8192 n: 4096 } } }\n";
    const config::WorkloadSpec w = config::load_workload_file(file, spec);
    RunOptions o;
    o.network.model = model;
    const podsim::Result r = evaluate(pod, w, o);
    EXPECT_EQ(r.status(), podsim::Result::ok) << r.reason();
    return r.op_list().makespan_us();
  };
  for (const net::Model model : kModels) {
    const std::string what(net::to_string(model));
    // The first matmul from 2048 x 4096 x 6000 (367 us on v4) to x 9000
    // (554 us): the small gather starts inside the big one's 630 us, then
    // near its end.
    EXPECT_LT(makespan(9000, true, model), makespan(6000, true, model)) << what;
    EXPECT_GE(makespan(9000, false, model), makespan(6000, false, model)) << what;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace podsim::study
