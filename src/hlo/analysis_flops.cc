#include <limits>

#include "hlo/analysis.h"

namespace podsim::hlo {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// a * b, or nullopt when it overflows (a, b >= 0).
std::optional<int64_t> mul(int64_t a, int64_t b) {
  if (a != 0 && b > kInt64Max / a) {
    return std::nullopt;
  }
  return a * b;
}

const Shape* operand_shape(const Computation& computation, const Instruction& instr, size_t i) {
  if (i >= instr.operands.size()) {
    return nullptr;
  }
  const Shape& s = computation.instructions[static_cast<size_t>(instr.operands[i])].shape;
  return s.is_array() && !s.has_unbounded_dims() ? &s : nullptr;
}

// 2 x elements(result) x reduction, all checked.
std::optional<int64_t> two_mac(const Shape& result, int64_t reduction) {
  const std::optional<int64_t> out = element_count(result);
  if (!out) {
    return std::nullopt;
  }
  const std::optional<int64_t> macs = mul(*out, reduction);
  return macs ? mul(*macs, 2) : std::nullopt;
}

}  // namespace

std::optional<int64_t> dot_flops(const Computation& computation, const Instruction& dot) {
  if (dot.opcode != Opcode::kDot) {
    return std::nullopt;
  }
  const Shape* lhs = operand_shape(computation, dot, 0);
  if (lhs == nullptr || !operand_shape(computation, dot, 1)) {
    return std::nullopt;
  }
  int64_t contracted = 1;
  if (dot.extra && dot.extra->dot) {
    for (const int64_t d : dot.extra->dot->lhs_contracting) {
      if (d < 0 || d >= lhs->rank()) {
        return std::nullopt;
      }
      const std::optional<int64_t> next = mul(contracted, lhs->dims[static_cast<size_t>(d)]);
      if (!next) {
        return std::nullopt;
      }
      contracted = *next;
    }
  }
  return two_mac(dot.shape, contracted);
}

std::optional<int64_t> convolution_flops(const Computation& computation,
                                         const Instruction& convolution) {
  if (convolution.opcode != Opcode::kConvolution || !convolution.extra ||
      !convolution.extra->dim_labels || !operand_shape(computation, convolution, 0)) {
    return std::nullopt;
  }
  const Shape* kernel = operand_shape(computation, convolution, 1);
  if (kernel == nullptr) {
    return std::nullopt;
  }
  const ConvDimLabels& labels = *convolution.extra->dim_labels;
  // The kernel's input-feature dimension and spatial dimensions.
  std::vector<int64_t> reduced = labels.kernel_spatial;
  reduced.push_back(labels.kernel_input_feature);
  int64_t per_output = 1;
  for (const int64_t d : reduced) {
    if (d < 0 || d >= kernel->rank()) {
      return std::nullopt;
    }
    const std::optional<int64_t> next = mul(per_output, kernel->dims[static_cast<size_t>(d)]);
    if (!next) {
      return std::nullopt;
    }
    per_output = *next;
  }
  return two_mac(convolution.shape, per_output);
}

std::optional<int64_t> elementwise_elements(const Instruction& instruction) {
  if (opcode_category(instruction.opcode) != OpcodeCategory::kElementwise) {
    return std::nullopt;
  }
  return element_count(instruction.shape);
}

std::optional<int64_t> reduce_input_elements(const Computation& computation,
                                             const Instruction& reduce) {
  if (reduce.opcode != Opcode::kReduce && reduce.opcode != Opcode::kReduceWindow) {
    return std::nullopt;
  }
  const Shape* input = operand_shape(computation, reduce, 0);
  return input == nullptr ? std::nullopt : element_count(*input);
}

}  // namespace podsim::hlo
