// Workload loading, validation, lowering and a bounded run: the input is a
// podsim.Workload in text format, loaded against each small pod of
// fuzz_support.h until one accepts it (so workloads written for any shipped
// pod find their dimensions), then evaluated there on the analytical
// network when its work is small (fuzz::within_work_bound). The loader's
// InputError is the only refusal; evaluate() reports bad runs in the result.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "podsim/workload.pb.h"
#include "structured_mutator.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)podsim::fuzz::small_pods();  // built before the first input
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)podsim::fuzz::load_and_run_workload(podsim::fuzz::as_text(data, size), {});
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return podsim::fuzz::mutate_text_proto(podsim::Workload::default_instance(), data, size, max_size,
                                         seed);
}
