#include "fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <variant>

#include "config/diagnostics.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "study/evaluate.h"
#include "topo/metrics.h"
#include "topo/routing.h"

namespace podsim::fuzz {

std::string source_path(const std::string& relative_path) {
  return std::string(PODSIM_SOURCE_DIR) + "/" + relative_path;
}

bool quick() {
  static const bool on = [] {
    const char* v = std::getenv("PODSIM_FUZZ_QUICK");
    return v != nullptr && std::string_view(v) == "1";
  }();
  return on;
}

std::string source_file(const std::string& relative_path) {
  const std::string path = std::string(PODSIM_SOURCE_DIR) + "/" + relative_path;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "fuzz harness: cannot read %s\n", path.c_str());
    std::abort();
  }
  return text.str();
}

namespace {

std::unique_ptr<topo::Pod> shrunk(const std::string& file, const config::Overrides& overrides) {
  return std::make_unique<topo::Pod>(
      config::parse_topology_text(source_file("topologies/" + file), file, overrides));
}

// Every dimension of size 2, a line (a wrap needs 3 chips).
config::Overrides dims_of_two(int count) {
  config::Overrides o;
  for (int i = 0; i < count; ++i) {
    const std::string dim = "topology.torus.dims[" + std::to_string(i) + "]";
    o.push_back({dim + ".size", "2"});
    o.push_back({dim + ".wraparound", "false"});
  }
  return o;
}

}  // namespace

const std::vector<std::unique_ptr<topo::Pod>>& small_pods() {
  static const auto* pods = [] {
    auto* p = new std::vector<std::unique_ptr<topo::Pod>>;
    p->push_back(shrunk("v5e-2x2.textproto", {}));
    p->push_back(shrunk("v4-4x4x4.textproto", dims_of_two(3)));
    p->push_back(shrunk("v5e-16x16-x2-dcn.textproto", dims_of_two(2)));
    return p;
  }();
  return *pods;
}

bool within_work_bound(const config::WorkloadSpec& workload) {
  if (workload.serving) {
    const config::ServingSpec& s = *workload.serving;
    const uint64_t layers = s.model.layers;
    const uint64_t micro = std::max<uint64_t>(s.scenario.micro_batches, 1);
    const uint64_t chunks = std::max<uint64_t>(s.scenario.prefill_chunks, 1);
    if (layers > 64 || micro > 64 || chunks > 64 || layers * micro * chunks > 1024) {
      return false;
    }
    // A generation simulates up to output_len steps (study/generation.h).
    if (s.scenario.output_len > 64) {
      return false;
    }
    if (s.model.moe && (s.model.moe->experts > 256 || s.model.moe->shared_experts > 64)) {
      return false;
    }
    return true;
  }
  if (workload.operations.size() > 256) {
    return false;
  }
  uint64_t work = 0;
  for (const config::OperationSpec& op : workload.operations) {
    uint64_t per = 1;
    if (const auto* c = std::get_if<config::CollectiveSpec>(&op.op)) {
      per += c->pairs.size();
    }
    work += per * op.repeat;
  }
  return work <= 4096;
}

void run_bounded(const topo::Pod& pod, const config::WorkloadSpec& workload) {
  if (!within_work_bound(workload)) {
    return;
  }
  study::RunOptions options;
  options.network.model = net::Model::kAnalytical;
  const study::Evaluation ev = study::evaluate_in_detail(pod, workload, options);
  if (ev.result.status() == podsim::Result::invalid && !ev.error) {
    std::fprintf(stderr, "fuzz harness: status invalid without diagnostics\n");
    std::abort();
  }
}

bool load_and_run_workload(std::string_view text, const config::Overrides& overrides) {
  for (const auto& pod : small_pods()) {
    std::optional<config::WorkloadSpec> workload;
    try {
      workload = config::parse_workload_text(text, "fuzz.textproto", pod->spec(), overrides);
    } catch (const config::InputError&) {
      continue;  // refused for this pod: another may have its dimensions
    }
    run_bounded(*pod, *workload);
    return true;
  }
  return false;
}

void exercise_pod(const topo::Pod& pod) {
  if (pod.chip_count() > 512) {
    return;
  }
  (void)topo::chip_ici_bandwidth(pod);
  (void)topo::axis_bandwidths(pod);
  (void)topo::bisection(pod);
  if (pod.chip_count() <= 64) {
    (void)topo::diameter_hops(pod);
  }
  // Routes from the first chip to a few others: a refused route (failed
  // links disconnecting the pod) is part of the contract, not a finding.
  const uint32_t n = pod.chip_count();
  for (topo::ChipId dst : {n - 1, n / 2, n / 3}) {
    try {
      (void)topo::route(pod, 0, dst);
    } catch (const topo::NoRoute&) {
    }
  }
}

}  // namespace podsim::fuzz
