// HLO opcodes podsim tells apart, by their text names. An opcode the parser
// does not know is kept as Opcode::kOther with its name (Instruction::
// opcode_name): real dumps carry opcodes newer than this list.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace podsim::hlo {

// X(enumerator, text name, category)
#define PODSIM_HLO_OPCODES(X)                                         \
  X(kParameter, "parameter", kStructural)                             \
  X(kConstant, "constant", kStructural)                               \
  X(kTuple, "tuple", kStructural)                                     \
  X(kGetTupleElement, "get-tuple-element", kStructural)               \
  X(kBitcast, "bitcast", kStructural)                                 \
  X(kPartitionId, "partition-id", kStructural)                        \
  X(kReplicaId, "replica-id", kStructural)                            \
  X(kAfterAll, "after-all", kStructural)                              \
  X(kAddDependency, "add-dependency", kStructural)                    \
  X(kOptimizationBarrier, "opt-barrier", kStructural)                 \
  X(kDot, "dot", kContraction)                                        \
  X(kConvolution, "convolution", kContraction)                        \
  X(kFusion, "fusion", kCall)                                         \
  X(kCall, "call", kCall)                                             \
  X(kWhile, "while", kCall)                                           \
  X(kConditional, "conditional", kCall)                               \
  X(kCustomCall, "custom-call", kCall)                                \
  X(kMap, "map", kCall)                                               \
  X(kAllReduce, "all-reduce", kCollective)                            \
  X(kAllGather, "all-gather", kCollective)                            \
  X(kReduceScatter, "reduce-scatter", kCollective)                    \
  X(kAllToAll, "all-to-all", kCollective)                             \
  X(kRaggedAllToAll, "ragged-all-to-all", kCollective)                \
  X(kCollectivePermute, "collective-permute", kCollective)            \
  X(kCollectiveBroadcast, "collective-broadcast", kCollective)        \
  X(kAllReduceStart, "all-reduce-start", kAsyncStart)                 \
  X(kAllGatherStart, "all-gather-start", kAsyncStart)                 \
  X(kCollectivePermuteStart, "collective-permute-start", kAsyncStart) \
  X(kAsyncStart, "async-start", kAsyncStart)                          \
  X(kCopyStart, "copy-start", kAsyncStart)                            \
  X(kSend, "send", kAsyncStart)                                       \
  X(kRecv, "recv", kAsyncStart)                                       \
  X(kAsyncUpdate, "async-update", kAsyncUpdate)                       \
  X(kAllReduceDone, "all-reduce-done", kAsyncDone)                    \
  X(kAllGatherDone, "all-gather-done", kAsyncDone)                    \
  X(kCollectivePermuteDone, "collective-permute-done", kAsyncDone)    \
  X(kAsyncDone, "async-done", kAsyncDone)                             \
  X(kCopyDone, "copy-done", kAsyncDone)                               \
  X(kSendDone, "send-done", kAsyncDone)                               \
  X(kRecvDone, "recv-done", kAsyncDone)                               \
  X(kReduce, "reduce", kReduction)                                    \
  X(kReduceWindow, "reduce-window", kReduction)                       \
  X(kCompare, "compare", kElementwise)                                \
  X(kAdd, "add", kElementwise)                                        \
  X(kSubtract, "subtract", kElementwise)                              \
  X(kMultiply, "multiply", kElementwise)                              \
  X(kDivide, "divide", kElementwise)                                  \
  X(kMaximum, "maximum", kElementwise)                                \
  X(kMinimum, "minimum", kElementwise)                                \
  X(kPower, "power", kElementwise)                                    \
  X(kRemainder, "remainder", kElementwise)                            \
  X(kAnd, "and", kElementwise)                                        \
  X(kOr, "or", kElementwise)                                          \
  X(kXor, "xor", kElementwise)                                        \
  X(kNot, "not", kElementwise)                                        \
  X(kNegate, "negate", kElementwise)                                  \
  X(kAbs, "abs", kElementwise)                                        \
  X(kSign, "sign", kElementwise)                                      \
  X(kExp, "exponential", kElementwise)                                \
  X(kExpm1, "exponential-minus-one", kElementwise)                    \
  X(kLog, "log", kElementwise)                                        \
  X(kLog1p, "log-plus-one", kElementwise)                             \
  X(kSqrt, "sqrt", kElementwise)                                      \
  X(kRsqrt, "rsqrt", kElementwise)                                    \
  X(kCbrt, "cbrt", kElementwise)                                      \
  X(kTanh, "tanh", kElementwise)                                      \
  X(kLogistic, "logistic", kElementwise)                              \
  X(kSine, "sine", kElementwise)                                      \
  X(kCosine, "cosine", kElementwise)                                  \
  X(kTan, "tan", kElementwise)                                        \
  X(kAtan2, "atan2", kElementwise)                                    \
  X(kErf, "erf", kElementwise)                                        \
  X(kFloor, "floor", kElementwise)                                    \
  X(kCeil, "ceil", kElementwise)                                      \
  X(kRoundNearestAfz, "round-nearest-afz", kElementwise)              \
  X(kRoundNearestEven, "round-nearest-even", kElementwise)            \
  X(kIsFinite, "is-finite", kElementwise)                             \
  X(kClamp, "clamp", kElementwise)                                    \
  X(kSelect, "select", kElementwise)                                  \
  X(kConvert, "convert", kElementwise)                                \
  X(kBitcastConvert, "bitcast-convert", kElementwise)                 \
  X(kShiftLeft, "shift-left", kElementwise)                           \
  X(kShiftRightArithmetic, "shift-right-arithmetic", kElementwise)    \
  X(kShiftRightLogical, "shift-right-logical", kElementwise)          \
  X(kPopcnt, "popcnt", kElementwise)                                  \
  X(kClz, "count-leading-zeros", kElementwise)                        \
  X(kStochasticConvert, "stochastic-convert", kElementwise)           \
  X(kBroadcast, "broadcast", kDataMovement)                           \
  X(kReshape, "reshape", kDataMovement)                               \
  X(kTranspose, "transpose", kDataMovement)                           \
  X(kCopy, "copy", kDataMovement)                                     \
  X(kConcatenate, "concatenate", kDataMovement)                       \
  X(kSlice, "slice", kDataMovement)                                   \
  X(kDynamicSlice, "dynamic-slice", kDataMovement)                    \
  X(kDynamicUpdateSlice, "dynamic-update-slice", kDataMovement)       \
  X(kPad, "pad", kDataMovement)                                       \
  X(kReverse, "reverse", kDataMovement)                               \
  X(kGather, "gather", kDataMovement)                                 \
  X(kScatter, "scatter", kDataMovement)                               \
  X(kIota, "iota", kDataMovement)                                     \
  X(kSort, "sort", kDataMovement)                                     \
  X(kRng, "rng", kDataMovement)                                       \
  X(kRngBitGenerator, "rng-bit-generator", kDataMovement)             \
  X(kOther, "", kOther)

enum class Opcode : uint8_t {
#define PODSIM_HLO_OPCODE_ENUM(e, name, category) e,
  PODSIM_HLO_OPCODES(PODSIM_HLO_OPCODE_ENUM)
#undef PODSIM_HLO_OPCODE_ENUM
};

// What an opcode does, as far as costing it is concerned.
enum class OpcodeCategory : uint8_t {
  kStructural,    // no work: parameters, constants, tuples, ids
  kContraction,   // dot, convolution: FLOPs from dimension numbers
  kCall,          // runs another computation (or a custom kernel)
  kCollective,    // synchronous collective
  kAsyncStart,    // starts asynchronous work (collective, copy, send/recv)
  kAsyncUpdate,   // between an async start and its done
  kAsyncDone,     // waits for an async start
  kReduction,     // reduce, reduce-window
  kElementwise,   // one result element from the matching operand elements
  kDataMovement,  // moves or makes data without arithmetic
  kOther,         // not in the table
};

// The opcode named `name`, or kOther. O(1) average (a static hash table).
Opcode opcode_from_name(std::string_view name);
// The text name; "" for kOther (use Instruction::opcode_name).
std::string_view opcode_name(Opcode opcode);
OpcodeCategory opcode_category(Opcode opcode);

// Whether the collective carries XLA's `use_global_device_ids` field (set or
// not): all-reduce, all-gather, reduce-scatter and their async starts. For
// the others a channel_id means cross-partition (replica_groups.h).
bool has_use_global_device_ids_field(Opcode opcode);

}  // namespace podsim::hlo
