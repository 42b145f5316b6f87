// Costing: each HLO instruction as the compute operations the compute model
// times (docs/hlo.md, "Running a module", gives the table).
#include <algorithm>
#include <string>
#include <vector>

#include "hlo/analysis.h"
#include "hlo/opcode.h"
#include "hlo_import/internal.h"

namespace podsim::hlo_import::internal {
namespace {

using hlo::Opcode;

uint64_t shape_bytes(const hlo::Module& module, const hlo::Instruction& at,
                     const hlo::Shape& shape) {
  const auto b = hlo::byte_size(shape);
  if (!b) {
    fail(module, at, "an unbounded dynamic dimension ('?') has no size to cost");
  }
  return static_cast<uint64_t>(*b);
}

// Elements of a shape, a tuple's summed (tokens and opaque: 0).
uint64_t shape_elements(const hlo::Shape& shape) {
  if (shape.is_tuple()) {
    uint64_t n = 0;
    for (const hlo::Shape& e : shape.elements) {
      n += shape_elements(e);
    }
    return n;
  }
  return shape.is_array() ? static_cast<uint64_t>(hlo::element_count(shape).value_or(0)) : 0;
}

uint64_t operand_bytes(const hlo::Module& module, const hlo::Computation& c,
                       const hlo::Instruction& instr, size_t from = 0) {
  uint64_t b = 0;
  for (size_t i = from; i < instr.operands.size(); ++i) {
    b += shape_bytes(module, instr, c.operand(instr, i).shape);
  }
  return b;
}

uint64_t product(const std::vector<int64_t>& dims, const std::vector<int64_t>& which) {
  uint64_t p = 1;
  for (const int64_t d : which) {
    p *= static_cast<uint64_t>(dims[static_cast<size_t>(d)]);
  }
  return p;
}

// The product of the dimensions of `dims` not listed in `a` or `b`.
uint64_t free_product(const std::vector<int64_t>& dims, const std::vector<int64_t>& a,
                      const std::vector<int64_t>& b) {
  uint64_t p = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<int64_t>(i);
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      p *= static_cast<uint64_t>(dims[i]);
    }
  }
  return p;
}

bool in_range(const std::vector<int64_t>& which, size_t rank) {
  return std::all_of(which.begin(), which.end(),
                     [rank](int64_t d) { return d >= 0 && static_cast<size_t>(d) < rank; });
}

// A dot as a matmul: batch = the batch dimensions, m = lhs free, k =
// contracting, n = rhs free. nullopt when a size is 0 (no work).
std::optional<config::Matmul> dot_matmul(const hlo::Module& module, const hlo::Computation& c,
                                         const hlo::Instruction& dot) {
  if (dot.operands.size() < 2) {
    fail(module, dot, "a dot needs two operands");
  }
  const hlo::Shape& lhs = c.operand(dot, 0).shape;
  const hlo::Shape& rhs = c.operand(dot, 1).shape;
  if (!lhs.is_array() || !rhs.is_array() || lhs.has_unbounded_dims() || rhs.has_unbounded_dims()) {
    fail(module, dot, "a dot's operands must be arrays of known size");
  }
  const hlo::DotDims none;
  const hlo::DotDims& d = dot.extra && dot.extra->dot ? *dot.extra->dot : none;
  if (!in_range(d.lhs_batch, lhs.dims.size()) || !in_range(d.lhs_contracting, lhs.dims.size()) ||
      !in_range(d.rhs_batch, rhs.dims.size()) || !in_range(d.rhs_contracting, rhs.dims.size())) {
    fail(module, dot, "a dimension number is outside its operand's rank");
  }
  config::Matmul m;
  m.batch = product(lhs.dims, d.lhs_batch);
  m.k = product(lhs.dims, d.lhs_contracting);
  m.m = free_product(lhs.dims, d.lhs_batch, d.lhs_contracting);
  m.n = free_product(rhs.dims, d.rhs_batch, d.rhs_contracting);
  m.act = dtype_of(lhs.type);
  m.weight = dtype_of(rhs.type);
  m.acc = config::DType::kFp32;
  if (m.batch == 0 || m.k == 0 || m.m == 0 || m.n == 0) {
    return std::nullopt;
  }
  return m;
}

// A convolution as the matmul of the same FLOPs: m = output elements per
// output feature (batch x spatial), n = output features, k = FLOPs / 2mn
// (kernel input features x kernel spatial size).
std::optional<config::Matmul> convolution_matmul(const hlo::Module& module,
                                                 const hlo::Computation& c,
                                                 const hlo::Instruction& conv) {
  const auto flops = hlo::convolution_flops(c, conv);
  if (!flops || !conv.extra || !conv.extra->dim_labels || conv.operands.size() < 2) {
    fail(module, conv,
         "the convolution's FLOPs are unknown (dim_labels and array operands needed)");
  }
  const hlo::Shape& out = conv.shape;
  const auto out_feature = static_cast<size_t>(conv.extra->dim_labels->output_feature);
  if (!out.is_array() || out_feature >= out.dims.size()) {
    fail(module, conv, "the convolution's result has no output-feature dimension");
  }
  const uint64_t elements = shape_elements(out);
  config::Matmul m;
  m.n = static_cast<uint64_t>(out.dims[out_feature]);
  if (*flops == 0 || elements == 0 || m.n == 0) {
    return std::nullopt;
  }
  m.m = elements / m.n;
  m.k = static_cast<uint64_t>(*flops) / (2 * m.m * m.n);
  m.act = dtype_of(c.operand(conv, 0).shape.type);
  m.weight = dtype_of(c.operand(conv, 1).shape.type);
  m.acc = config::DType::kFp32;
  if (m.k == 0) {
    return std::nullopt;
  }
  return m;
}

bool is_contraction(Opcode op) {
  return op == Opcode::kDot || op == Opcode::kConvolution;
}

// Vector FLOPs of a computation's instructions (fused): one per result
// element of an arithmetic op, one per input element of a reduce, nested
// fusions counted in; contractions, casts and data movement count none.
uint64_t vector_flops(const hlo::Module& module, const hlo::Computation& c, int depth = 0) {
  uint64_t flops = 0;
  for (const hlo::Instruction& i : c.instructions) {
    const hlo::OpcodeCategory cat = hlo::opcode_category(i.opcode);
    if (cat == hlo::OpcodeCategory::kElementwise && i.opcode != Opcode::kConvert &&
        i.opcode != Opcode::kBitcastConvert) {
      flops += shape_elements(i.shape);
    } else if (cat == hlo::OpcodeCategory::kReduction) {
      flops += static_cast<uint64_t>(hlo::reduce_input_elements(c, i).value_or(0));
    } else if (i.opcode == Opcode::kFusion && depth < 8) {
      for (const hlo::ComputationId called : i.calls) {
        flops += vector_flops(module, module.computation(called), depth + 1);
      }
    }
  }
  return flops;
}

// Vector work on `elements` outputs: bytes in and out, FLOPs spread over
// the outputs (rounded up). None when nothing is written or read.
std::vector<CostedOp> vector_op(uint64_t elements, uint64_t flops, uint64_t in, uint64_t out,
                                std::string suffix = "") {
  if (elements == 0 && in == 0 && out == 0) {
    return {};
  }
  config::Elementwise e;
  e.elements = std::max<uint64_t>(elements, 1);
  e.flops_per_element =
      static_cast<uint32_t>(std::min<uint64_t>((flops + e.elements - 1) / e.elements, UINT32_MAX));
  e.bytes_in = in;
  e.bytes_out = out;
  return {CostedOp{std::move(suffix), e}};
}

// Parameters of `fused` that some instruction in `roots` reads, directly or
// through other fused instructions.
std::vector<bool> parameters_feeding(const hlo::Computation& fused,
                                     const std::vector<hlo::InstructionId>& roots) {
  std::vector<bool> seen(fused.instructions.size(), false);
  std::vector<hlo::InstructionId> stack(roots);
  std::vector<bool> params;
  while (!stack.empty()) {
    const hlo::InstructionId id = stack.back();
    stack.pop_back();
    if (seen[static_cast<size_t>(id)]) {
      continue;
    }
    seen[static_cast<size_t>(id)] = true;
    const hlo::Instruction& i = fused.instruction(id);
    if (i.opcode == Opcode::kParameter && i.parameter_number >= 0) {
      const auto n = static_cast<size_t>(i.parameter_number);
      params.resize(std::max(params.size(), n + 1), false);
      params[n] = true;
    }
    for (const hlo::InstructionId o : i.operands) {
      stack.push_back(o);
    }
  }
  return params;
}

std::vector<CostedOp> fusion_ops(const hlo::Module& module, const hlo::Computation& c,
                                 const hlo::Instruction& fusion) {
  if (fusion.calls.empty()) {
    fail(module, fusion, "a fusion without calls= has nothing to cost");
  }
  const hlo::Computation& fused = module.computation(fusion.calls[0]);
  const uint64_t out_elements = shape_elements(fusion.shape);
  const uint64_t out_bytes = shape_bytes(module, fusion, fusion.shape);
  std::vector<hlo::InstructionId> contractions;
  for (size_t i = 0; i < fused.instructions.size(); ++i) {
    if (is_contraction(fused.instructions[i].opcode)) {
      contractions.push_back(static_cast<hlo::InstructionId>(i));
    }
  }
  if (contractions.empty()) {
    uint64_t in = operand_bytes(module, c, fusion);
    uint64_t out = out_bytes;
    const hlo::Instruction& root = fused.root_instruction();
    if (root.opcode == Opcode::kDynamicUpdateSlice && root.operands.size() >= 2) {
      // In place: the buffer (operand 0) is neither read nor written whole;
      // the update is.
      const hlo::Instruction& buffer = fused.operand(root, 0);
      if (buffer.opcode == Opcode::kParameter && buffer.parameter_number >= 0 &&
          static_cast<size_t>(buffer.parameter_number) < fusion.operands.size()) {
        in -= shape_bytes(module, fusion,
                          c.operand(fusion, static_cast<size_t>(buffer.parameter_number)).shape);
      }
      out = shape_bytes(module, fusion, fused.operand(root, 1).shape);
    }
    return vector_op(out_elements, vector_flops(module, fused), in, out);
  }
  std::vector<CostedOp> ops;
  uint64_t contraction_out = 0;
  for (size_t n = 0; n < contractions.size(); ++n) {
    const hlo::Instruction& k = fused.instruction(contractions[n]);
    const auto m = k.opcode == Opcode::kDot ? dot_matmul(module, fused, k)
                                            : convolution_matmul(module, fused, k);
    contraction_out += shape_bytes(module, fusion, k.shape);
    if (m) {
      ops.push_back(CostedOp{n == 0 ? "" : "#" + std::to_string(n + 1), *m});
    }
  }
  // The epilogue: operands no contraction reads, what the fusion writes
  // beyond the contractions' results, and the fused vector work.
  const std::vector<bool> feeds = parameters_feeding(fused, contractions);
  uint64_t in = 0;
  for (size_t i = 0; i < fusion.operands.size(); ++i) {
    if (i >= feeds.size() || !feeds[i]) {
      in += shape_bytes(module, fusion, c.operand(fusion, i).shape);
    }
  }
  const uint64_t out = out_bytes > contraction_out ? out_bytes - contraction_out : 0;
  const uint64_t flops = vector_flops(module, fused);
  if (in + out > 0 || flops > 0) {
    for (CostedOp& e : vector_op(out_elements, flops, in, out, ".epilogue")) {
      ops.push_back(std::move(e));
    }
  }
  return ops;
}

}  // namespace

bool is_free(const hlo::Instruction& i) {
  switch (i.opcode) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kReshape:
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

std::vector<CostedOp> custom_call_ops(const hlo::Module& module, const hlo::Computation& c,
                                      const hlo::Instruction& call, Warnings& warnings);

std::vector<CostedOp> compute_ops(const hlo::Module& module, const hlo::Computation& c,
                                  const hlo::Instruction& i, Warnings& warnings) {
  if (is_free(i)) {
    return {};
  }
  const uint64_t out_elements = shape_elements(i.shape);
  switch (i.opcode) {
    case Opcode::kDot:
    case Opcode::kConvolution: {
      const auto m =
          i.opcode == Opcode::kDot ? dot_matmul(module, c, i) : convolution_matmul(module, c, i);
      return m ? std::vector<CostedOp>{CostedOp{"", *m}} : std::vector<CostedOp>{};
    }
    case Opcode::kFusion:
      return fusion_ops(module, c, i);
    case Opcode::kCustomCall:
      return custom_call_ops(module, c, i, warnings);
    case Opcode::kCopy: {
      const uint64_t b = shape_bytes(module, i, i.shape);
      return b == 0 ? std::vector<CostedOp>{}
                    : std::vector<CostedOp>{CostedOp{"", config::Copy{b}}};
    }
    case Opcode::kReduce: {
      const auto in = hlo::reduce_input_elements(c, i);
      if (!in || *in == 0 || i.operands.empty()) {
        return vector_op(out_elements, 0, operand_bytes(module, c, i),
                         shape_bytes(module, i, i.shape));
      }
      config::Reduction r;
      r.elements = static_cast<uint64_t>(*in);
      r.outputs = std::max<uint64_t>(out_elements, 1);
      r.dtype = dtype_of(c.operand(i, 0).shape.type);
      return {CostedOp{"", r}};
    }
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kGather: {
      // Only the slice is read, and the indices.
      const uint64_t out = shape_bytes(module, i, i.shape);
      return vector_op(out_elements, 0, out + operand_bytes(module, c, i, 1), out);
    }
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kScatter: {
      // In place: the update (operand 1 of dynamic-update-slice, 2 of
      // scatter) read and written, and the indices read.
      const size_t update = i.opcode == Opcode::kScatter ? 2 : 1;
      if (i.operands.size() <= update) {
        fail(module, i, "missing its update operand");
      }
      const uint64_t u = shape_bytes(module, i, c.operand(i, update).shape);
      const uint64_t elements = shape_elements(c.operand(i, update).shape);
      return vector_op(elements, i.opcode == Opcode::kScatter ? elements : 0,
                       operand_bytes(module, c, i, 1), u);
    }
    default:
      break;
  }
  const hlo::OpcodeCategory cat = hlo::opcode_category(i.opcode);
  const uint64_t in = operand_bytes(module, c, i);
  const uint64_t out = shape_bytes(module, i, i.shape);
  switch (cat) {
    case hlo::OpcodeCategory::kElementwise: {
      const bool cast = i.opcode == Opcode::kConvert || i.opcode == Opcode::kBitcastConvert;
      return vector_op(out_elements, cast ? 0 : out_elements, in, out);
    }
    case hlo::OpcodeCategory::kReduction:
      return vector_op(out_elements,
                       static_cast<uint64_t>(hlo::reduce_input_elements(c, i).value_or(0)), in,
                       out);
    case hlo::OpcodeCategory::kDataMovement:
      return vector_op(out_elements, i.opcode == Opcode::kSort ? out_elements : 0, in, out);
    case hlo::OpcodeCategory::kCall:  // map
      return vector_op(out_elements, out_elements, in, out);
    default:
      break;
  }
  std::string w = "'";
  w += i.opcode_name;
  w += "' (first at ";
  w += describe(module, i);
  w += ") is not an opcode podsim costs: costed as vector work by its bytes";
  warnings.add("opcode " + std::string(i.opcode_name), w);
  return vector_op(out_elements, 0, in, out);
}

}  // namespace podsim::hlo_import::internal
