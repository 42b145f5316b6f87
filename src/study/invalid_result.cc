// invalid_result(): the row of a run whose inputs could not be loaded.
#include "report/result_inputs.h"
#include "study/evaluate.h"

namespace podsim::study {

podsim::Result invalid_result(const config::InputError& error, const KnownInputs& known) {
  podsim::Result r = report::new_result();
  r.set_status(podsim::Result::invalid);
  r.set_reason(error.what());
  podsim::Inputs& in = *r.mutable_inputs();
  in.mutable_topology()->set_file(known.topology_file);
  in.mutable_workload()->set_file(known.workload_file);
  if (known.pod != nullptr) {
    report::fill_topology_inputs(*known.pod, *in.mutable_topology());
    if (known.workload != nullptr) {
      report::fill_workload_inputs(*known.workload, *known.pod, in);
    }
  }
  // The overrides of an input that did not load (a loaded one has its own).
  for (const std::string& o : known.overrides) {
    if (o.starts_with("topology.") && known.pod == nullptr)
      in.mutable_topology()->add_overrides(o);
    if (o.starts_with("workload.") && known.workload == nullptr)
      in.mutable_workload()->add_overrides(o);
  }
  if (known.options != nullptr) {
    fill_run_options(*known.options, *in.mutable_run());
  }
  const bool op_list = in.workload().form() == "op_list";
  if (op_list) {
    r.mutable_op_list();
  } else {
    podsim::ServingResult& s = *r.mutable_serving();
    s.mutable_memory();
    s.mutable_spread();
    if (!in.has_serving()) {
      podsim::ServingInputs& si = *in.mutable_serving();
      si.mutable_model()->mutable_moe();
      si.mutable_scenario();
      si.mutable_sharding();
    }
  }
  return r;
}

}  // namespace podsim::study
