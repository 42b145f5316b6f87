#include "search/step_bound.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/fusion.h"
#include "workload/program.h"

namespace podsim::search {

sim::Time step_time_lower_bound(const workload::Program& program, const chip::ComputeModel& compute,
                                const CommFloor* comm) {
  // Every instruction of every stage is one node, numbered stage by stage.
  std::vector<size_t> offset(program.stages.size() + 1, 0);
  for (size_t s = 0; s < program.stages.size(); ++s)
    offset[s + 1] = offset[s] + program.stages[s].instructions.size();
  const size_t n = offset.back();

  // Each node's compute time (zero for collectives and transfers) and its
  // predecessors: its dependencies, the compute instruction before it on
  // the chip's one compute unit, and the stage transfer delivering its
  // input. Nodes are numbered in program order within a stage, so every
  // edge inside a stage goes forward; transfers between stages need the
  // general topological order below.
  std::vector<sim::Time> duration(n, sim::Time::zero());
  std::vector<int64_t> previous_compute(n, -1);
  std::vector<int64_t> sender(n, -1);
  std::vector<uint32_t> indegree(n, 0);
  std::vector<uint32_t> first(n + 1, 0);  // successors of u: succ[first[u]..first[u+1])
  for (size_t s = 0; s < program.stages.size(); ++s) {
    const auto& prog = program.stages[s].instructions;
    const std::vector<chip::OpTiming> timing =
        engine::stage_timings(prog, compute, engine::plan_fusion(prog, compute));
    int64_t last_compute = -1;
    for (size_t k = 0; k < prog.size(); ++k) {
      const size_t v = offset[s] + k;
      for (const uint32_t d : prog[k].deps)
        ++first[offset[s] + d + 1];
      indegree[v] += static_cast<uint32_t>(prog[k].deps.size());
      if (!std::holds_alternative<chip::Op>(prog[k].body) && comm != nullptr)
        duration[v] = comm->of(prog[k]);
      if (std::holds_alternative<chip::Op>(prog[k].body)) {
        duration[v] = timing[k].time;
        if (last_compute >= 0) {
          previous_compute[v] = last_compute;
          ++first[static_cast<size_t>(last_compute) + 1];
          ++indegree[v];
        }
        last_compute = static_cast<int64_t>(v);
      }
      size_t from = 0;
      size_t t = 0;
      if (workload::stage_transfer_into(program, s, prog[k], from, t)) {
        sender[v] = static_cast<int64_t>(offset[from] + t);
        ++first[static_cast<size_t>(sender[v]) + 1];
        ++indegree[v];
      }
    }
  }
  for (size_t u = 0; u < n; ++u)
    first[u + 1] += first[u];
  std::vector<uint32_t> succ(first.back());
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (size_t s = 0; s < program.stages.size(); ++s) {
    const auto& prog = program.stages[s].instructions;
    for (size_t k = 0; k < prog.size(); ++k) {
      const auto v = static_cast<uint32_t>(offset[s] + k);
      for (const uint32_t d : prog[k].deps)
        succ[fill[offset[s] + d]++] = v;
      if (previous_compute[v] >= 0)
        succ[fill[static_cast<size_t>(previous_compute[v])]++] = v;
      if (sender[v] >= 0)
        succ[fill[static_cast<size_t>(sender[v])]++] = v;
    }
  }

  // Longest path in topological order (Kahn).
  std::vector<sim::Time> start(n, sim::Time::zero());
  std::vector<uint32_t> ready;
  for (uint32_t v = 0; v < n; ++v) {
    if (indegree[v] == 0)
      ready.push_back(v);
  }
  size_t visited = 0;
  sim::Time last = sim::Time::zero();
  while (!ready.empty()) {
    const uint32_t u = ready.back();
    ready.pop_back();
    ++visited;
    const sim::Time end = start[u] + duration[u];
    last = std::max(last, end);
    for (uint32_t e = first[u]; e < first[u + 1]; ++e) {
      const uint32_t v = succ[e];
      start[v] = std::max(start[v], end);
      if (--indegree[v] == 0)
        ready.push_back(v);
    }
  }
  return visited == n ? last : sim::Time::zero();
}

}  // namespace podsim::search
