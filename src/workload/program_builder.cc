#include "workload/program_builder.h"

#include <algorithm>
#include <cassert>

namespace podsim::workload::internal {

void ProgramBuilder::set_context(int32_t layer, uint32_t micro_batch) {
  layer_ = layer;
  micro_batch_ = micro_batch;
}

void ProgramBuilder::expect_receive(uint32_t micro_batch, int32_t transfer_index) {
  pending_receive_[micro_batch] = transfer_index;
}

Ref ProgramBuilder::compute(std::string_view name, OpClass op_class, chip::Op op,
                            std::vector<Ref> deps) {
  if (!overlap_) {
    deps.insert(deps.end(), comm_since_compute_.begin(), comm_since_compute_.end());
    comm_since_compute_.clear();
  }
  return append(name, op_class, Body(std::move(op)), std::move(deps));
}

Ref ProgramBuilder::communicate(std::string_view name, OpClass op_class, Body body,
                                std::vector<Ref> deps) {
  assert(!std::holds_alternative<chip::Op>(body));
  const Ref r = append(name, op_class, std::move(body), std::move(deps));
  comm_since_compute_.push_back(r);
  return r;
}

Ref ProgramBuilder::append(std::string_view name, OpClass op_class, Body body,
                           std::vector<Ref> deps) {
  Instruction ins;
  if (layer_ >= 0) {
    ins.name = std::to_string(layer_);
    ins.name.insert(ins.name.begin(), 'L');
    ins.name.push_back('.');
  }
  ins.name.append(name);
  ins.layer = layer_;
  ins.op_class = op_class;
  ins.micro_batch = micro_batch_;
  ins.body = std::move(body);
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  for (const Ref d : deps) {
    if (d == kNoRef)
      continue;
    assert(d >= 0 && static_cast<size_t>(d) < program_.instructions.size());
    ins.deps.push_back(static_cast<uint32_t>(d));
  }
  if (const auto it = pending_receive_.find(micro_batch_); it != pending_receive_.end()) {
    ins.recv_from = it->second;
    pending_receive_.erase(it);
  }
  program_.instructions.push_back(std::move(ins));
  return static_cast<Ref>(program_.instructions.size() - 1);
}

}  // namespace podsim::workload::internal
