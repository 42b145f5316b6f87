// `--set PATH=VALUE` overrides: the input is one `--set` argument per line.
// Each is parsed (config::parse_override), the roots checked, and the
// overrides applied while loading a small serving step on a v5e 2x2 and
// the shipped collectives tour on a v5e 4x4 (topology, then workload), which must
// either be refused with an InputError or load, build a pod and run
// (bounded, as workload_fuzzer runs).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/overrides.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "fuzz_support.h"
#include "topo/pod.h"

namespace {

using namespace podsim;

// A small serving step valid on the 2x2 (4 layers keep the run short) and
// a shipped operation list.
constexpr const char* kServing = R"pb(
  name: "tiny-serving"
  mesh {
    axes { name: "x" dims: "x" }
    axes { name: "y" dims: "y" }
  }
  model {
    name: "tiny"
    layers: 4
    d_model: 4096
    heads: 32
    kv_heads: 8
    head_dim: 128
    ffn_dim: 14336
    vocab: 128256
  }
  scenario { phase: DECODE batch: 8 context_len: 2048 }
  sharding { tensor_axes: [ "x", "y" ] }
)pb";

void load_and_run(const std::string& topology, const std::string& workload,
                  const config::Overrides& overrides) {
  std::optional<config::PodSpec> spec;
  std::optional<config::WorkloadSpec> w;
  try {
    spec = config::parse_topology_text(topology, "topology.textproto", overrides);
    w = config::parse_workload_text(workload, "workload.textproto", *spec, overrides);
  } catch (const config::InputError&) {
    return;
  }
  if (spec->chip_count() > 256) {
    return;  // a valid but large pod: building it is topology_fuzzer's part
  }
  const topo::Pod pod(std::move(*spec));
  fuzz::run_bounded(pod, *w);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string pod2x2 = fuzz::source_file("topologies/v5e-2x2.textproto");
  static const std::string pod4x4 = fuzz::source_file("topologies/v5e-4x4.textproto");
  static const std::string ops = fuzz::source_file("workloads/collectives-tour-v5e-4x4.textproto");
  const std::string_view input = fuzz::as_text(data, size);
  config::Overrides overrides;
  size_t start = 0;
  while (start <= input.size() && overrides.size() < 64) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) {
      end = input.size();
    }
    const std::string_view line = input.substr(start, end - start);
    start = end + 1;
    if (line.empty()) {
      continue;
    }
    try {
      overrides.push_back(config::parse_override(line));
    } catch (const config::InputError&) {
    }
  }
  try {
    config::check_override_roots(overrides);
  } catch (const config::InputError&) {
    return 0;
  }
  load_and_run(pod2x2, kServing, overrides);
  load_and_run(pod4x4, ops, overrides);
  return 0;
}
