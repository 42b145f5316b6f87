// The `hlo` layer: HLO text (as XLA's --xla_dump_to and HloModule::ToString()
// write it) read into a typed module, and pure analyses over it (FLOPs,
// bytes, collective groups, while trip counts, async pairs). It depends on
// the standard library only; turning a module into a podsim program is the
// caller's business. docs/hlo.md gives the grammar and what is skipped.
//
// Memory: a Module owns the file's text; every name and raw attribute is a
// string_view into it (stable: the text sits behind a unique_ptr, so moving
// the Module keeps the views valid). Common attributes are typed fields;
// only attributes the parser does not know are kept, as raw key/value text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hlo/opcode.h"
#include "hlo/replica_groups.h"
#include "hlo/shape.h"

namespace podsim::hlo {

// Index of an instruction within its computation / of a computation within
// its module. kNone: absent.
using InstructionId = int32_t;
using ComputationId = int32_t;
inline constexpr int32_t kNone = -1;

// 1-based line and column of a byte offset in the module's text.
struct SourcePosition {
  int line = 0;
  int column = 0;
};

// dot's dimension numbers.
struct DotDims {
  std::vector<int64_t> lhs_contracting;
  std::vector<int64_t> rhs_contracting;
  std::vector<int64_t> lhs_batch;
  std::vector<int64_t> rhs_batch;
};

// One spatial dimension of a convolution's or reduce-window's `window=`.
struct WindowDim {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t pad_low = 0;
  int64_t pad_high = 0;
  int64_t lhs_dilation = 1;
  int64_t rhs_dilation = 1;
  bool reversal = false;
};

// A convolution's `dim_labels=b01f_01io->b01f`: which dimension of the
// input (lhs), kernel (rhs) and output holds what. Spatial dimensions are
// listed in label order (label '0' first).
struct ConvDimLabels {
  int64_t input_batch = 0;
  int64_t input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0;
  int64_t kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0;
  int64_t output_feature = 0;
  std::vector<int64_t> output_spatial;
};

// One dimension of `slice={[start:limit:stride], ...}`.
struct SliceDim {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
};

// A constant's payload. `text` is the literal as written (`12`, `{1,2}`,
// `-inf`); a scalar payload also has its value.
struct Literal {
  std::string_view text;
  bool is_scalar = false;
  bool is_integer = false;  // scalar written as an integer or true/false
  int64_t integer = 0;      // when is_integer (true = 1, false = 0)
  double real = 0;          // every scalar, as a double
};

// An attribute the parser keeps as written: `key=value`.
struct RawAttribute {
  std::string_view key;
  std::string_view value;
};

// Attributes most instructions lack, held apart so an elementwise add stays
// small. Present (Instruction::extra non-null) only when one was written.
struct ExtraAttributes {
  std::optional<DotDims> dot;
  std::vector<WindowDim> window;  // `window={...}` (empty: none or `{}`)
  bool has_window = false;
  std::optional<ConvDimLabels> dim_labels;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::optional<ReplicaGroups> replica_groups;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  std::vector<SliceDim> slice;
  std::vector<int64_t> dynamic_slice_sizes;
  std::optional<Literal> literal;       // constant
  std::string_view custom_call_target;  // without quotes, escapes as written
  std::string_view api_version;         // API_VERSION_TYPED_FFI, ...
  std::string_view padding;             // pad's `padding=0_0x1_1`, raw
  std::vector<std::string_view> control_predecessor_names;
  std::vector<InstructionId> control_predecessors;  // resolved
  std::vector<RawAttribute> unknown;                // every attribute not typed here
};

struct Instruction {
  std::string_view name;         // without '%'
  std::string_view opcode_name;  // as written ("fusion", "my-new-op")
  Opcode opcode = Opcode::kOther;
  bool is_root = false;
  uint32_t offset = 0;  // byte offset of the name in the text (Module::position)
  Shape shape;
  std::vector<InstructionId> operands;  // resolved, in order
  std::vector<std::string_view> operand_names;
  int64_t parameter_number = -1;  // parameter(N)

  // Typed common attributes (absent: the defaults).
  std::vector<int64_t> dimensions;  // dimensions={...}
  int64_t index = -1;               // get-tuple-element's index=
  std::optional<int64_t> channel_id;
  std::optional<bool> use_global_device_ids;  // as written; see has_use_global_device_ids_field
  bool constrain_layout = false;
  std::string_view direction;       // compare: LT, GT, LE, GE, EQ, NE
  std::string_view fusion_kind;     // kLoop, kOutput, kInput, kCustom
  std::string_view op_name;         // metadata={op_name="..."}, escapes as written
  std::string_view backend_config;  // raw: a quoted string with its quotes, or {...}

  // Called computations (resolved; kNone when absent).
  ComputationId to_apply = kNone;
  ComputationId body = kNone;
  ComputationId condition = kNone;
  ComputationId true_computation = kNone;
  ComputationId false_computation = kNone;
  std::vector<ComputationId> calls;                // calls= (fusion, call, async-start)
  std::vector<ComputationId> branch_computations;  // conditional

  std::unique_ptr<ExtraAttributes> extra;
};

struct Computation {
  std::string_view name;
  bool is_entry = false;
  uint32_t offset = 0;
  std::vector<Instruction> instructions;  // in text order (a schedule when is_scheduled)
  InstructionId root = kNone;
  std::unordered_map<std::string_view, InstructionId> by_name;

  // The instruction named `name` (without '%'), or kNone.
  InstructionId find(std::string_view name) const;
  const Instruction& root_instruction() const { return instructions[static_cast<size_t>(root)]; }
  const Instruction& instruction(InstructionId id) const {
    return instructions[static_cast<size_t>(id)];
  }
  // The i-th operand of `instr`, an instruction of this computation
  // (i < instr.operands.size()).
  const Instruction& operand(const Instruction& instr, size_t i) const {
    return instruction(instr.operands[i]);
  }
  // parameter(N)'s instruction, or kNone.
  InstructionId parameter(int64_t number) const;
};

// `entry_computation_layout={(p0, p1)->result}`.
struct ProgramShape {
  std::vector<Shape> parameters;
  Shape result;
};

class Module {
 public:
  Module(std::unique_ptr<const std::string> text, std::string file);
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;

  std::string_view text() const { return *text_; }
  const std::string& file() const { return file_; }

  std::string_view name;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  bool is_scheduled = false;
  std::optional<ProgramShape> entry_computation_layout;
  std::string_view entry_computation_layout_text;  // raw, with braces
  std::vector<RawAttribute> header_attributes;     // every other header attribute
  std::vector<Computation> computations;           // in text order (callees usually first)
  ComputationId entry = kNone;
  std::unordered_map<std::string_view, ComputationId> by_name;

  const Computation& entry_computation() const { return computations[static_cast<size_t>(entry)]; }
  const Computation& computation(ComputationId id) const {
    return computations[static_cast<size_t>(id)];
  }
  // The computation named `name` (without '%'), or kNone.
  ComputationId find(std::string_view name) const;
  // Line and column of a byte offset (Instruction::offset). O(log lines).
  SourcePosition position(uint32_t offset) const;

 private:
  std::unique_ptr<const std::string> text_;
  std::string file_;
  std::vector<uint32_t> line_starts_;
};

// Every computation `instr` calls, in the order: to_apply, condition, body,
// true_computation, false_computation, calls..., branch_computations...
// The parser guarantees the call graph has no cycle, so a walk down it ends.
std::vector<ComputationId> called_computations(const Instruction& instr);

}  // namespace podsim::hlo
