#include "engine/breakdown.h"

#include <algorithm>
#include <set>

namespace podsim::engine {

std::string breakdown_layer_key(const workload::Instruction& ins) {
  if (ins.layer >= 0) {
    std::string key = "L";  // not "L" + ...: GCC 12 warns falsely (-Wrestrict)
    key += std::to_string(ins.layer);
    return key;
  }
  switch (ins.op_class) {
    case workload::OpClass::kEmbedding:
      return "embed";
    case workload::OpClass::kLmHead:
      return "head";
    default:
      return "other";
  }
}

ChipBreakdown sweep_breakdown(std::span<const TimedInstruction> instructions, sim::Time end,
                              std::vector<GroupTime>& by_layer, std::vector<GroupTime>& by_class) {
  using Kind = TimedInstruction::Kind;
  struct Edge {
    sim::Time at;
    bool begins;
    uint32_t index;
  };
  std::vector<Edge> edges;
  edges.reserve(2 * instructions.size());
  for (uint32_t i = 0; i < instructions.size(); ++i) {
    if (instructions[i].span.end <= instructions[i].span.start) {
      continue;  // takes no time: nothing to charge
    }
    edges.push_back({instructions[i].span.start, true, i});
    edges.push_back({instructions[i].span.end, false, i});
  }
  ChipBreakdown out;
  for (const TimedInstruction& t : instructions) {
    if (t.kind == Kind::kComputeBound) {
      out.compute_work += t.work;
    } else if (t.kind == Kind::kMemoryBound) {
      out.memory_work += t.work;
    }
    if (t.kind != Kind::kCommunication && t.span.end > t.span.start) {
      out.units += t.units;
      by_layer[t.layer_group].units += t.units;
      by_class[t.class_group].units += t.units;
    }
  }
  // Ends before begins at the same instant, so back-to-back spans never overlap.
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    if (a.at != b.at) {
      return a.at < b.at;
    }
    if (a.begins != b.begins) {
      return !a.begins;
    }
    return a.index < b.index;
  });

  out.end = end;
  int64_t computing = -1;                          // the compute instruction running
  std::set<std::pair<sim::Time, uint32_t>> comms;  // (end, index) of communication in flight
  sim::Time at = sim::Time::zero();
  auto charge = [&](sim::Time until) {
    if (until <= at) {
      return;
    }
    const sim::Time dt = until - at;
    const TimedInstruction* waited =
        comms.empty() ? nullptr : &instructions[comms.rbegin()->second];
    if (computing >= 0) {
      const TimedInstruction& c = instructions[static_cast<size_t>(computing)];
      const bool memory = c.kind == Kind::kMemoryBound;
      (memory ? out.memory : out.compute) += dt;
      (memory ? by_layer[c.layer_group].memory : by_layer[c.layer_group].compute) += dt;
      (memory ? by_class[c.class_group].memory : by_class[c.class_group].compute) += dt;
      if (waited != nullptr) {
        out.collective_overlapped += dt;
        by_layer[waited->layer_group].collective_overlapped += dt;
        by_class[waited->class_group].collective_overlapped += dt;
      }
    } else if (waited != nullptr) {
      out.collective_exposed += dt;
      by_layer[waited->layer_group].collective_exposed += dt;
      by_class[waited->class_group].collective_exposed += dt;
    } else {
      out.idle += dt;
    }
    at = until;
  };
  for (const Edge& e : edges) {
    charge(std::min(e.at, end));
    const TimedInstruction& ins = instructions[e.index];
    if (ins.kind == Kind::kCommunication) {
      if (e.begins) {
        comms.insert({ins.span.end, e.index});
      } else {
        comms.erase({ins.span.end, e.index});
      }
    } else {
      computing = e.begins ? static_cast<int64_t>(e.index) : -1;
    }
  }
  charge(end);
  return out;
}

}  // namespace podsim::engine
