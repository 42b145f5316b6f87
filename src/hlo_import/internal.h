// Declarations shared by the files of src/hlo_import/ (not for other layers).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/compute_ops.h"
#include "config/workload_spec.h"
#include "hlo/module.h"
#include "hlo_import/import.h"
#include "topo/pod.h"

namespace podsim::hlo_import::internal {

// "%fusion.3 (line 12, column 3)".
std::string describe(const hlo::Module& module, const hlo::Instruction& instruction);
// Throws config::InputError{file, line, column, "%name: message"}.
[[noreturn]] void fail(const hlo::Module& module, const hlo::Instruction& instruction,
                       const std::string& message);

// Warnings, each text once (an unknown custom-call target warns once however
// many calls name it).
class Warnings {
 public:
  void add(const std::string& text) { add(text, text); }
  // Once per `key`.
  void add(const std::string& key, const std::string& text);
  std::vector<std::string> take() { return std::move(list_); }

 private:
  std::set<std::string> seen_;
  std::vector<std::string> list_;
};

// ---- devices.cc -------------------------------------------------------------

// Devices (replica x partitions + partition, XLA's flattened id) onto chips.
class DeviceMap {
 public:
  // Throws config::InputError when replica_count x num_partitions is not the
  // pod's chip count, or the assignment is not a permutation of the chips.
  DeviceMap(const hlo::Module& module, const topo::Pod& pod,
            const std::vector<uint32_t>& assignment);

  topo::ChipId chip(int64_t device) const { return chips_[static_cast<size_t>(device)]; }
  int64_t replicas() const { return replicas_; }
  int64_t partitions() const { return partitions_; }

 private:
  int64_t replicas_ = 1;
  int64_t partitions_ = 1;
  std::vector<topo::ChipId> chips_;
};

// ---- collectives.cc ---------------------------------------------------------

// The dtype podsim moves and reduces for an HLO element type: 2-byte types
// as bf16, 4- and 8-byte types as fp32, 1-byte as int8 (fp8 for the f8
// types), sub-byte as int4.
config::DType dtype_of(hlo::PrimitiveType type);

// The groups of global device ids a collective runs over (its opcode's group
// mode); throws naming `at` when the mode or an id is invalid.
std::vector<std::vector<int64_t>> collective_device_groups(const hlo::Module& module,
                                                           const hlo::Instruction& collective,
                                                           const hlo::Instruction& at);

// V as workload.proto defines it, from the shapes: all-reduce and
// reduce-scatter each chip's input (operands summed), all-gather the
// gathered result (its shape; an all-gather-start's results), all-to-all
// the whole array (each chip's input x group size), a permute what each
// chip sends. nullopt for an unbounded dynamic shape.
std::optional<uint64_t> collective_bytes(const hlo::Computation& computation,
                                         const hlo::Instruction& collective, uint64_t group_size);

// The collective as podsim runs it on the pod: groups onto torus dimensions
// (irregular groups refused, naming `at`), V padded to whole elements per
// chip. nullopt: nothing moves (groups of one chip, no pairs between
// different chips, or zero bytes).
std::optional<config::CollectiveSpec> collective_spec(const hlo::Module& module,
                                                      const hlo::Computation& computation,
                                                      const hlo::Instruction& collective,
                                                      const hlo::Instruction& at,
                                                      const DeviceMap& devices,
                                                      const topo::Pod& pod);

// The mesh: one axis per torus dimension named as the topology names it,
// and "slice" when the pod has several slices.
std::vector<config::MeshAxisDecl> pod_mesh(const topo::Pod& pod);

// ---- compute.cc -------------------------------------------------------------

struct CostedOp {
  std::string suffix;  // appended to the instruction's name ("" for the first)
  config::ComputeOp op;
};

// The compute operations of `instruction` (empty: it costs nothing). Dot and
// convolution are matmuls, fusions their dot's matmul (and an epilogue for
// their other bytes) or elementwise work, custom-calls by their target.
std::vector<CostedOp> compute_ops(const hlo::Module& module, const hlo::Computation& computation,
                                  const hlo::Instruction& instruction, Warnings& warnings);

// The workload loader's limits (docs/inputs.md, "Limits"): no operand of
// one operation above 2^48 elements, no byte count above 2^56.
inline constexpr uint64_t kMaxOperandElements = uint64_t{1} << 48;
inline constexpr uint64_t kMaxOperationBytes = uint64_t{1} << 56;

// Refuses (naming `at`) an operation beyond those limits, which the compute
// model's arithmetic would not survive.
void check_limits(const hlo::Module& module, const hlo::Instruction& at,
                  const std::variant<config::CollectiveSpec, config::ComputeOp>& op);

// True for the instructions that cost nothing and pass their operands'
// dependencies through.
bool is_free(const hlo::Instruction& instruction);

// ---- schedule.cc ------------------------------------------------------------

// The order a TPU runs a computation's instructions: the text order of a
// scheduled module; otherwise a topological order over operands and control
// predecessors, earliest text position first.
std::vector<hlo::InstructionId> schedule_order(const hlo::Module& module,
                                               const hlo::Computation& computation);

using Deps = std::vector<size_t>;  // operation indices, sorted, unique
void merge(Deps& into, const Deps& from);

// Builds the operation list: names, `after` (data dependencies plus the
// previous blocking operation) and loops.
class OpListBuilder {
 public:
  // Adds an operation waiting for `data` and for the blocking operations
  // before it; a blocking one becomes what the next waits for. Returns its
  // index.
  size_t add(std::string name, std::variant<config::CollectiveSpec, config::ComputeOp> op,
             const Deps& data, bool blocks, std::string_view op_name = {});
  // An async collective's done: what follows also waits for `op`.
  void wait_for(size_t op);
  const Deps& blocking() const { return blocking_; }
  void set_blocking(Deps deps) { blocking_ = std::move(deps); }
  size_t size() const { return ops_.size(); }
  void add_loop(std::string name, size_t first, uint32_t iterations);

  std::vector<config::OperationSpec> take_operations() { return std::move(ops_); }
  std::vector<config::LoopSpec> take_loops() { return std::move(loops_); }

 private:
  std::vector<config::OperationSpec> ops_;
  std::vector<config::LoopSpec> loops_;
  Deps blocking_;
  std::set<std::string, std::less<>> names_;
};

// ---- loops.cc ---------------------------------------------------------------

// The trip count of `instruction` (a while): --hlo-trip-count NAME=N first,
// then hlo::while_trip_count; unknown: an InputError suggesting the option.
uint32_t trip_count(const hlo::Module& module, const hlo::Computation& computation,
                    const hlo::Instruction& instruction, const ImportOptions& options);

// The branch a conditional takes: --hlo-branch NAME=I, else 0 with a warning.
// Throws when I is not a branch.
size_t branch_index(const hlo::Module& module, const hlo::Instruction& instruction,
                    const ImportOptions& options, Warnings& warnings);

// The computations of a conditional, branch 0 first (true_computation is
// branch 0, as XLA's predicated form is).
std::vector<hlo::ComputationId> branches(const hlo::Instruction& instruction);

}  // namespace podsim::hlo_import::internal
