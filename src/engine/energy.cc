#include "engine/energy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "engine/link_usage.h"
#include "engine/op_list.h"

namespace podsim::engine {
namespace {

// Picojoules, rounded to the nearest (halves away from zero). A part that
// is not a number, or past 1e36 pJ, is refused rather than wrapped; the
// loader's bounds keep every real run far below (docs/energy.md).
Picojoules to_pj(double pj) {
  if (!(pj >= 0) || pj > 1e36) {
    std::string what = "an energy of ";
    what += std::to_string(pj * 1e-12);
    what += " J for one chip is out of the range podsim represents";
    throw std::overflow_error(what);
  }
  return static_cast<Picojoules>(std::round(pj));
}

// Watts x time: picojoules (1 W x 1 ps = 1 pJ).
Picojoules draw(double watts, sim::Time t) {
  return to_pj(watts * static_cast<double>(t.count_ps()));
}

// The energy of one chip, from its breakdown (`b`, its representative's)
// and the bytes of its own links.
ChipEnergy chip_energy(const config::PowerSpec& p, const ChipBreakdown& b, sim::Time step,
                       uint64_t ici_bytes, uint64_t dcn_bytes) {
  ChipEnergy e;
  const EnergyParts compute = work_energy(b.compute_work, p);
  const EnergyParts memory = work_energy(b.memory_work, p);
  const Picojoules idle_compute = draw(p.idle_watts, b.compute);
  const Picojoules idle_memory = draw(p.idle_watts, b.memory);
  const Picojoules idle_collective = draw(p.idle_watts, b.collective_exposed);
  const sim::Time tail = step > b.end ? step - b.end : sim::Time::zero();
  const Picojoules idle_idle = draw(p.idle_watts, b.idle + tail);

  EnergyParts& parts = e.parts;
  parts = compute;
  parts += memory;
  parts.idle_pj = idle_compute + idle_memory + idle_collective + idle_idle;
  parts.host_pj = draw(p.host_watts, step);
  parts.ici_pj = to_pj(static_cast<double>(ici_bytes) * p.ici_pj_per_byte_per_hop);
  parts.dcn_pj = to_pj(static_cast<double>(dcn_bytes) * p.dcn_pj_per_byte);

  ClassEnergy& c = e.classes;
  c.compute_pj = idle_compute + compute.total();
  c.memory_pj = idle_memory + memory.total();
  c.collective_pj = idle_collective + parts.ici_pj + parts.dcn_pj;
  c.idle_pj = idle_idle;
  c.host_pj = parts.host_pj;

  // Watts: picojoules per picosecond.
  const auto per_ps = [](Picojoules pj, sim::Time t) {
    return t.count_ps() > 0 ? static_cast<double>(pj) / static_cast<double>(t.count_ps()) : 0.0;
  };
  const double links = per_ps(parts.ici_pj + parts.dcn_pj, step);
  const double densest =
      std::max(per_ps(compute.total(), b.compute), per_ps(memory.total(), b.memory));
  e.peak_watts = p.idle_watts + p.host_watts + densest + links;
  return e;
}

}  // namespace

EnergyParts& EnergyParts::operator+=(const EnergyParts& o) {
  idle_pj += o.idle_pj;
  host_pj += o.host_pj;
  mxu_pj += o.mxu_pj;
  vector_pj += o.vector_pj;
  hbm_pj += o.hbm_pj;
  vmem_pj += o.vmem_pj;
  ici_pj += o.ici_pj;
  dcn_pj += o.dcn_pj;
  return *this;
}

ClassEnergy& ClassEnergy::operator+=(const ClassEnergy& o) {
  compute_pj += o.compute_pj;
  memory_pj += o.memory_pj;
  collective_pj += o.collective_pj;
  idle_pj += o.idle_pj;
  host_pj += o.host_pj;
  return *this;
}

EnergyParts work_energy(const chip::WorkDone& w, const config::PowerSpec& p) {
  EnergyParts e;
  e.mxu_pj = to_pj(w.mxu_bf16_flops * p.mxu_bf16_pj_per_flop +
                   w.mxu_int8_ops * p.mxu_int8_pj_per_op + w.mxu_fp8_flops * p.mxu_fp8_pj_per_flop);
  e.vector_pj = to_pj(w.vector_flops * p.vector_pj_per_flop);
  e.hbm_pj = to_pj(w.hbm_bytes * p.hbm_pj_per_byte);
  e.vmem_pj = to_pj(w.vmem_bytes * p.vmem_pj_per_byte);
  return e;
}

namespace {

StepEnergy priced_step(const topo::Pod& pod, const config::PowerSpec& power,
                       const StepResult& step) {
  StepEnergy out;
  out.modelled = power.modelled;
  if (!power.modelled || step.chips.empty()) {
    return out;
  }
  // Each chip's own link bytes (replicas unfolded): ICI links it sends on,
  // and its up link into the DCN.
  const std::vector<topo::ChipId> rep =
      step.represented_by.empty() ? replica_representatives(pod, step.chips) : step.represented_by;
  const net::LinkStats links = unfold_by(pod, rep, step.link_stats);
  std::vector<uint64_t> ici(pod.chip_count(), 0);
  std::vector<uint64_t> dcn(pod.chip_count(), 0);
  const auto all = pod.links();
  for (topo::LinkId id = 0; id < all.size() && id < links.bytes.size(); ++id) {
    const topo::Link& l = all[id];
    if (l.kind == topo::LinkKind::kIci) {
      ici[l.src] += links.bytes[id];
    } else if (l.kind == topo::LinkKind::kDcnUp) {
      dcn[l.src] += links.bytes[id];
    }
  }
  // The breakdown standing for each chip: its own, or its replica's.
  std::vector<int32_t> index(pod.chip_count(), -1);
  for (uint32_t i = 0; i < step.chips.size(); ++i) {
    index[step.chips[i]] = static_cast<int32_t>(i);
  }
  out.chips.resize(step.chips.size());
  // A chip's energy is a function of its breakdown (its value) and its
  // link bytes alone, and the chips a folded or symmetric run stands for
  // usually share both: the last few distinct ones are kept (the 256 chips
  // of the default 70B step price as one).
  struct Priced {
    int32_t breakdown = -1;
    uint64_t ici = 0;
    uint64_t dcn = 0;
    ChipEnergy energy;
  };
  std::array<Priced, 8> priced;
  size_t next_priced = 0;
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    if (pod.is_dead(c)) {
      continue;
    }
    const int32_t i = index[rep[c]];
    if (i < 0) {
      throw std::logic_error("podsim::engine: chip " + std::to_string(c) +
                             " has no simulated chip standing for it");
    }
    const auto& breakdowns = step.chip_breakdowns;
    auto it = std::find_if(priced.begin(), priced.end(), [&](const Priced& p) {
      return p.breakdown >= 0 && p.ici == ici[c] && p.dcn == dcn[c] &&
             (p.breakdown == i ||
              breakdowns[static_cast<size_t>(p.breakdown)] == breakdowns[static_cast<size_t>(i)]);
    });
    if (it == priced.end()) {
      it = priced.begin() + static_cast<std::ptrdiff_t>(next_priced);
      *it = Priced{i, ici[c], dcn[c],
                   chip_energy(power, step.chip_breakdowns[static_cast<size_t>(i)], step.step_time,
                               ici[c], dcn[c])};
      next_priced = (next_priced + 1) % priced.size();
    }
    const ChipEnergy& e = it->energy;
    ++out.powered_chips;
    out.parts += e.parts;
    out.classes += e.classes;
    out.peak_watts += e.peak_watts;
    if (index[c] >= 0) {
      out.chips[static_cast<size_t>(index[c])] = e;
    }
    if (c == step.critical_chip) {
      out.critical = e;
    }
  }
  return out;
}

StepEnergy priced_op_list(const topo::Pod& pod, const config::PowerSpec& power,
                          const OpListResult& run) {
  StepEnergy out;
  out.modelled = power.modelled;
  if (!power.modelled) {
    return out;
  }
  Picojoules chips = 0;
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    chips += pod.is_dead(c) ? 0 : 1;
  }
  out.powered_chips = static_cast<uint32_t>(chips);
  // One chip's compute work and its densest operation's dynamic power.
  EnergyParts work;
  double densest = 0;
  for (const OperationResult& op : run.operations) {
    if (!op.compute) {
      continue;
    }
    const EnergyParts one = work_energy(op.compute->timing.work, power);
    for (uint32_t r = 0; r < op.repeat; ++r) {
      work += one;
    }
    const Picojoules ps = op.compute->timing.time.count_ps();
    if (ps > 0) {
      densest = std::max(densest, static_cast<double>(one.total()) / static_cast<double>(ps));
    }
  }
  EnergyParts& p = out.parts;
  p.mxu_pj = work.mxu_pj * chips;
  p.vector_pj = work.vector_pj * chips;
  p.hbm_pj = work.hbm_pj * chips;
  p.vmem_pj = work.vmem_pj * chips;
  p.idle_pj = draw(power.idle_watts, run.makespan) * chips;
  p.host_pj = draw(power.host_watts, run.makespan) * chips;
  const auto all = pod.links();
  uint64_t ici = 0;
  uint64_t dcn = 0;
  for (topo::LinkId id = 0; id < all.size() && id < run.link_stats.bytes.size(); ++id) {
    if (all[id].kind == topo::LinkKind::kIci) {
      ici += run.link_stats.bytes[id];
    } else if (all[id].kind == topo::LinkKind::kDcnUp) {
      dcn += run.link_stats.bytes[id];
    }
  }
  p.ici_pj = to_pj(static_cast<double>(ici) * power.ici_pj_per_byte_per_hop);
  p.dcn_pj = to_pj(static_cast<double>(dcn) * power.dcn_pj_per_byte);
  const Picojoules m = run.makespan.count_ps();
  const double links =
      m > 0 ? static_cast<double>(p.ici_pj + p.dcn_pj) / static_cast<double>(m) : 0.0;
  out.peak_watts =
      static_cast<double>(chips) * (power.idle_watts + power.host_watts + densest) + links;
  return out;
}

// `price()`, or, when a figure is out of range, no energy and why.
template <class F>
StepEnergy guarded(F price) {
  try {
    return price();
  } catch (const std::overflow_error& e) {
    StepEnergy out;
    out.unmodelled_reason = e.what();
    return out;
  }
}

}  // namespace

StepEnergy step_energy(const topo::Pod& pod, const config::PowerSpec& power,
                       const StepResult& step) {
  return guarded([&] { return priced_step(pod, power, step); });
}

StepEnergy op_list_energy(const topo::Pod& pod, const config::PowerSpec& power,
                          const OpListResult& run) {
  return guarded([&] { return priced_op_list(pod, power, run); });
}

}  // namespace podsim::engine
