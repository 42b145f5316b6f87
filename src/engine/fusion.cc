#include "engine/fusion.h"

#include <algorithm>

namespace podsim::engine {
namespace {

const chip::Op* op_of(const workload::Instruction& ins) {
  return std::get_if<chip::Op>(&ins.body);
}

// The epilogue E makes of P's output, when E consumes all of it.
std::optional<chip::Epilogue> epilogue_of(const chip::Matmul& p, const chip::Elementwise& e) {
  const uint64_t produced = chip::work(chip::Op{p}).hbm_write_bytes;
  if (e.bytes_in < produced || e.bytes_out == 0)
    return std::nullopt;
  chip::Epilogue ep;
  ep.vector_flops = static_cast<double>(e.elements) * static_cast<double>(e.flops_per_element);
  ep.read_bytes = e.bytes_in - produced;
  ep.write_bytes = e.bytes_out;
  return ep;
}

}  // namespace

StageFusion plan_fusion(const std::vector<workload::Instruction>& prog,
                        const chip::ComputeModel& compute) {
  StageFusion f;
  f.fused_into.assign(prog.size(), -1);
  f.epilogue.resize(prog.size());
  std::vector<uint32_t> dependents(prog.size(), 0);
  for (const workload::Instruction& ins : prog) {
    for (const uint32_t d : ins.deps)
      ++dependents[d];
  }
  for (uint32_t k = 0; k < prog.size(); ++k) {
    const workload::Instruction& e = prog[k];
    const chip::Op* eop = op_of(e);
    const auto* ew = eop != nullptr ? std::get_if<chip::Elementwise>(eop) : nullptr;
    if (ew == nullptr || e.recv_from >= 0)
      continue;
    // The producer: the latest matmul among E's dependencies.
    int64_t producer = -1;
    for (const uint32_t d : e.deps) {
      const chip::Op* dop = op_of(prog[d]);
      if (dop != nullptr && std::holds_alternative<chip::Matmul>(*dop) &&
          static_cast<int64_t>(d) > producer)
        producer = d;
    }
    if (producer < 0)
      continue;
    const auto p = static_cast<uint32_t>(producer);
    if (dependents[p] != 1 || f.epilogue[p] || f.fused_into[p] >= 0)
      continue;
    const auto& p_deps = prog[p].deps;
    const bool ready = std::all_of(e.deps.begin(), e.deps.end(), [&](uint32_t d) {
      return d == p || (op_of(prog[d]) != nullptr && d < p) ||
             std::find(p_deps.begin(), p_deps.end(), d) != p_deps.end();
    });
    if (!ready)
      continue;
    const auto& mm = std::get<chip::Matmul>(*op_of(prog[p]));
    const std::optional<chip::Epilogue> ep = epilogue_of(mm, *ew);
    if (!ep || !compute.fused_time(mm, *ep))
      continue;
    f.epilogue[p] = ep;
    f.fused_into[k] = static_cast<int32_t>(p);
    ++f.fused;
  }
  return f;
}

std::vector<chip::OpTiming> stage_timings(const std::vector<workload::Instruction>& prog,
                                          const chip::ComputeModel& compute,
                                          const StageFusion& fusion) {
  // A stage repeats a few distinct operations once per layer, and a model's
  // timing is a function of the operation (and epilogue) alone: each of the
  // first kDistinct distinct ones is timed once. A repeat's timing is the
  // first's, except that it is not its kind's first table fallback (which
  // the model reports once, on the first call).
  constexpr size_t kDistinct = 64;
  struct Timed {
    uint32_t k = 0;  // the first instruction with this operation and epilogue
    chip::OpTiming timing;
  };
  std::vector<Timed> timed;
  std::vector<chip::OpTiming> timing(prog.size());
  for (uint32_t k = 0; k < prog.size(); ++k) {
    const chip::Op* op = op_of(prog[k]);
    if (op == nullptr || fusion.fused_into[k] >= 0)
      continue;  // a fused op's time, FLOPs and bytes are in its matmul's timing
    const auto same = std::find_if(timed.begin(), timed.end(), [&](const Timed& t) {
      return fusion.epilogue[t.k] == fusion.epilogue[k] && *op_of(prog[t.k]) == *op;
    });
    if (same != timed.end()) {
      timing[k] = same->timing;
      timing[k].first_fallback = false;
      continue;
    }
    timing[k] = fusion.epilogue[k]
                    ? *compute.fused_time(std::get<chip::Matmul>(*op), *fusion.epilogue[k])
                    : compute.time(*op);
    if (timed.size() < kDistinct)
      timed.push_back(Timed{k, timing[k]});
  }
  return timing;
}

}  // namespace podsim::engine
