// match_async_pairs: each done finds its start through its first operand.
#include "hlo/analysis.h"

namespace podsim::hlo {

Opcode start_opcode_for(Opcode done) {
  switch (done) {
    case Opcode::kAllReduceDone:
      return Opcode::kAllReduceStart;
    case Opcode::kAllGatherDone:
      return Opcode::kAllGatherStart;
    case Opcode::kCollectivePermuteDone:
      return Opcode::kCollectivePermuteStart;
    case Opcode::kAsyncDone:
      return Opcode::kAsyncStart;
    case Opcode::kCopyDone:
      return Opcode::kCopyStart;
    case Opcode::kSendDone:
      return Opcode::kSend;
    case Opcode::kRecvDone:
      return Opcode::kRecv;
    default:
      return Opcode::kOther;
  }
}

AsyncPairs match_async_pairs(const Module& module, const Computation& computation) {
  AsyncPairs out;
  const auto& instrs = computation.instructions;
  std::vector<bool> started(instrs.size(), false);
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Instruction& done = instrs[i];
    if (opcode_category(done.opcode) != OpcodeCategory::kAsyncDone) {
      continue;
    }
    AsyncPair pair;
    pair.done = static_cast<InstructionId>(i);
    InstructionId cur = done.operands.empty() ? kNone : done.operands[0];
    // async-done -> async-update* -> async-start. The chain is at most as
    // long as the computation; a cycle cannot occur (the walk only goes to
    // operands, and an update chain that loops would be refused as a cycle
    // below by the bound).
    size_t steps = 0;
    while (cur != kNone && instrs[static_cast<size_t>(cur)].opcode == Opcode::kAsyncUpdate &&
           done.opcode == Opcode::kAsyncDone && steps++ < instrs.size()) {
      pair.updates.push_back(cur);
      const Instruction& update = instrs[static_cast<size_t>(cur)];
      cur = update.operands.empty() ? kNone : update.operands[0];
    }
    if (cur == kNone || instrs[static_cast<size_t>(cur)].opcode != start_opcode_for(done.opcode)) {
      out.unmatched_dones.push_back(pair.done);
      continue;
    }
    pair.start = cur;
    started[static_cast<size_t>(cur)] = true;
    const Instruction& start = instrs[static_cast<size_t>(cur)];
    if (start.opcode == Opcode::kAsyncStart && !start.calls.empty()) {
      pair.wrapped = start.calls[0];
      pair.wrapped_opcode =
          module.computations[static_cast<size_t>(pair.wrapped)].root_instruction().opcode;
    }
    out.pairs.push_back(std::move(pair));
  }
  for (size_t i = 0; i < instrs.size(); ++i) {
    if (opcode_category(instrs[i].opcode) == OpcodeCategory::kAsyncStart && !started[i]) {
      out.unmatched_starts.push_back(static_cast<InstructionId>(i));
    }
  }
  return out;
}

}  // namespace podsim::hlo
