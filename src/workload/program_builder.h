// Internal to the workload layer: appends instructions to one stage program
// and wires their dependencies.
//
// Callers pass the instructions whose outputs an instruction consumes (data
// dependencies). With overlap disabled the builder adds, to every compute
// instruction, the collectives and stage transfers issued since the previous
// compute instruction; compute runs in program order, so each compute
// instruction then transitively waits for every communication issued before
// it (O(1) extra edges per instruction instead of O(program)).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "workload/program.h"

namespace podsim::workload::internal {

// An instruction index in the stage program, or kNoRef (a value that needs no
// instruction: a received input, or a pass-through).
using Ref = int64_t;
inline constexpr Ref kNoRef = -1;

class ProgramBuilder {
 public:
  explicit ProgramBuilder(bool overlap) : overlap_(overlap) {}

  // Layer (-1: outside the stack) and micro-batch stamped on what follows.
  // Names get the prefix "L<layer>." inside the stack.
  void set_context(int32_t layer, uint32_t micro_batch);
  // The next instruction for `micro_batch` takes its input from the previous
  // stage's StageTransfer at `transfer_index`.
  void expect_receive(uint32_t micro_batch, int32_t transfer_index);

  Ref compute(std::string_view name, OpClass op_class, chip::Op op, std::vector<Ref> deps);
  Ref communicate(std::string_view name, OpClass op_class, Body body, std::vector<Ref> deps);

  size_t size() const { return program_.instructions.size(); }
  const StageProgram& program() const { return program_; }
  StageProgram take() { return std::move(program_); }

 private:
  Ref append(std::string_view name, OpClass op_class, Body body, std::vector<Ref> deps);

  bool overlap_;
  int32_t layer_ = -1;
  uint32_t micro_batch_ = 0;
  StageProgram program_;
  std::vector<Ref> comm_since_compute_;  // for overlap off
  std::map<uint32_t, int32_t> pending_receive_;
};

}  // namespace podsim::workload::internal
