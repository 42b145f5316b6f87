// Pure analyses over a parsed Module: the work of an instruction (FLOPs of
// dot and convolution, elements of elementwise and reduce ops), while-loop
// trip counts, and the pairing of asynchronous starts with their dones.
// Shapes' byte sizes are in shape.h, collective groups in replica_groups.h.
// None of them guesses: what cannot be known is nullopt, for the caller to
// decide. docs/hlo.md states the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hlo/module.h"

namespace podsim::hlo {

// FLOPs of a dot: 2 x (elements of the result) x (product of the lhs
// contracting dimension sizes): one multiply and one add per term.
// nullopt when not a dot, an operand is missing or not an array, a
// contracting dimension is out of range, or the count overflows int64.
std::optional<int64_t> dot_flops(const Computation& computation, const Instruction& dot);

// FLOPs of a convolution: 2 x (elements of the result) x (kernel input
// features, which XLA's shape already divides by feature_group_count) x
// (product of the kernel's spatial sizes). Padding and dilation holes count
// as work (a systolic array does them); batch_group_count is in the result
// shape. nullopt as for dot_flops, or without dim_labels.
std::optional<int64_t> convolution_flops(const Computation& computation,
                                         const Instruction& convolution);

// Elements an elementwise op writes (its result's elements), or a reduce or
// reduce-window reads (its first operand's elements: one combine each, the
// initial values aside). nullopt for other opcodes or unbounded shapes.
std::optional<int64_t> elementwise_elements(const Instruction& instruction);
std::optional<int64_t> reduce_input_elements(const Computation& computation,
                                             const Instruction& reduce);

// The trip count of a while loop, or nullopt when unknown. Recognised:
// 1. backend_config holding "known_trip_count":{"n":"N"} (XLA writes it);
// 2. condition ROOT `compare(get-tuple-element(param, k), constant(C))` (or
//    the constant first) with direction LT, LE, GT, GE or NE; the init
//    tuple's element k a constant I; the body's ROOT tuple element k
//    `add(get-tuple-element(param, k), constant(S))` (either order; subtract
//    gives -S). The count is that of `for (i = I; i OP C; i += S)`; a loop
//    that would not end is nullopt.
std::optional<int64_t> while_trip_count(const Module& module, const Computation& computation,
                                        const Instruction& while_instruction);

// An asynchronous operation: its start, any async-updates, and its done,
// all in one computation. For async-start, `wrapped` is the computation it
// runs (calls=) and `wrapped_opcode` that computation's root opcode (e.g.
// reduce-scatter, all-to-all); kOther otherwise.
struct AsyncPair {
  InstructionId start = kNone;
  std::vector<InstructionId> updates;
  InstructionId done = kNone;
  ComputationId wrapped = kNone;
  Opcode wrapped_opcode = Opcode::kOther;
};

struct AsyncPairs {
  std::vector<AsyncPair> pairs;                 // in the order of their dones
  std::vector<InstructionId> unmatched_dones;   // a done whose operand is no matching start
  std::vector<InstructionId> unmatched_starts;  // a start no done waits for
};

// Matches every done of `computation` (all-reduce-done, all-gather-done,
// collective-permute-done, async-done, copy-done, send-done, recv-done)
// with its start through its first operand (through async-updates for
// async-done). O(instructions).
AsyncPairs match_async_pairs(const Module& module, const Computation& computation);

// The start opcode a done opcode waits for (kAllReduceDone -> kAllReduceStart,
// kSendDone -> kSend, ...); kOther for anything else.
Opcode start_opcode_for(Opcode done);

}  // namespace podsim::hlo
