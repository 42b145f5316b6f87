// Topology loading, validation and pod construction: the input is a
// podsim.Topology in text format (and, read a second way, the same bytes in
// the binary wire format). A topology the loader accepts must build a pod
// (topo::Pod throws std::invalid_argument only for a spec the loader should
// have refused: a finding), and a small pod's metrics and routes must work.
#include <google/protobuf/message.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "config/diagnostics.h"
#include "config/topology_loader.h"
#include "fuzz_support.h"
#include "podsim/topology.pb.h"
#include "structured_mutator.h"
#include "topo/pod.h"

namespace {

// Large pods are valid (up to 2^20 chips) but take seconds to build under
// AddressSanitizer; the loader's rules are still fuzzed for them.
constexpr uint64_t kMaxPodChips = 4096;

void build(const podsim::config::PodSpec& spec) {
  if (spec.chip_count() > kMaxPodChips) {
    return;
  }
  const podsim::topo::Pod pod(spec);
  podsim::fuzz::exercise_pod(pod);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podsim;
  const std::string_view input = fuzz::as_text(data, size);
  try {
    build(config::parse_topology_text(input, "fuzz.textproto"));
  } catch (const config::InputError&) {
  }
  try {
    build(config::parse_topology_binary(input, "fuzz.binpb"));
  } catch (const config::InputError&) {
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return podsim::fuzz::mutate_text_proto(podsim::Topology::default_instance(), data, size, max_size,
                                         seed);
}
