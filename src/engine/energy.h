// The energy of one serving step (docs/energy.md): what each chip of the
// slice drew, from its breakdown, the work its instructions did and the
// bytes its links carried, priced by the chip's power model
// (config::PowerSpec).
//
// Per chip, over the step time T (the slice's: a chip that finishes early
// still draws idle power until the step ends):
//   idle      = idle_watts x T, split over the chip's time classes
//   host      = host_watts x T
//   mxu       = useful matrix-unit operations x energy per op of their dtype
//   vector    = vector operations x vector_pj_per_flop
//   hbm, vmem = bytes x energy per byte
//   ici       = bytes sent over each of its outgoing ICI links x energy per
//               byte per hop (a route of h hops pays h times)
//   dcn       = bytes it sent into the data-center network x dcn_pj_per_byte
// and the same total by time class: compute (idle power over compute-bound
// time plus the dynamic energy of compute-bound instructions), memory
// (likewise), collective (idle power over exposed collective time plus ICI
// and DCN), idle (idle power over idle time and after the chip's end) and
// host. Every part is in integer picojoules, so the parts add up to the
// total exactly, both ways, and sums over chips are the same in any order:
// a folded or symmetric run reports the same joules as a full one, bit for
// bit.
#pragma once

#include <string>
#include <vector>

#include "config/power_spec.h"
#include "engine/step.h"
#include "topo/pod.h"

namespace podsim::engine {

// Energy in integer picojoules, 128 bits wide: a whole pod's over the
// longest run podsim simulates (2^63 ps at the loader's largest powers and
// energies) fits with room to spare, so sums never wrap.
__extension__ using Picojoules = __int128;

// By mechanism.
struct EnergyParts {
  Picojoules idle_pj = 0;
  Picojoules host_pj = 0;
  Picojoules mxu_pj = 0;
  Picojoules vector_pj = 0;
  Picojoules hbm_pj = 0;
  Picojoules vmem_pj = 0;
  Picojoules ici_pj = 0;
  Picojoules dcn_pj = 0;

  Picojoules total() const {
    return idle_pj + host_pj + mxu_pj + vector_pj + hbm_pj + vmem_pj + ici_pj + dcn_pj;
  }
  EnergyParts& operator+=(const EnergyParts& o);
  friend bool operator==(const EnergyParts&, const EnergyParts&) = default;
};

// By the breakdown's time classes, plus the host.
struct ClassEnergy {
  Picojoules compute_pj = 0;
  Picojoules memory_pj = 0;
  Picojoules collective_pj = 0;
  Picojoules idle_pj = 0;
  Picojoules host_pj = 0;

  Picojoules total() const { return compute_pj + memory_pj + collective_pj + idle_pj + host_pj; }
  ClassEnergy& operator+=(const ClassEnergy& o);
  friend bool operator==(const ClassEnergy&, const ClassEnergy&) = default;
};

struct ChipEnergy {
  EnergyParts parts;
  ClassEnergy classes;  // classes.total() == parts.total()
  // The chip's power during its most power-dense class (compute-bound or
  // memory-bound time), idle and host power included and its links' power
  // averaged over the step, in watts: a class mean, not an instantaneous
  // peak.
  double peak_watts = 0;
  friend bool operator==(const ChipEnergy&, const ChipEnergy&) = default;
};

struct StepEnergy {
  bool modelled = false;  // false: no power model, or see unmodelled_reason; all zeros
  // Why not modelled though the chip has a power model: a figure out of the
  // range podsim represents (a NaN or an absurd energy from absurd input).
  std::string unmodelled_reason;
  uint32_t powered_chips = 0;  // the slice's live chips (dead ones draw nothing)
  EnergyParts parts;           // every powered chip's, summed
  ClassEnergy classes;
  double peak_watts = 0;  // the chips' peak_watts summed: every chip in its densest class at once
  ChipEnergy critical;    // the critical chip's (StepResult::critical_chip)
  // Per StepResult::chips entry, in that order.
  std::vector<ChipEnergy> chips;
};

// The energy of the dynamic work `w`, in picojoules, by mechanism (idle,
// host, ICI and DCN left 0); each part rounded to the nearest picojoule.
EnergyParts work_energy(const chip::WorkDone& w, const config::PowerSpec& power);

// Prices the step. `step` is what run_step returned on `pod`, whose chip's
// power model is `power`. O(chips + links).
StepEnergy step_energy(const topo::Pod& pod, const config::PowerSpec& power,
                       const StepResult& step);

// Prices an operation list's run over its makespan M: every powered chip's
// idle and host power for M, the compute operations' work on every chip
// (they run SPMD, each `repeat` times), and every link's bytes. No time
// classes (an operation list has no breakdown): `classes` and the per-chip
// figures are left empty, peak_watts is the slice's power while every chip
// runs its most power-dense compute operation with its links' power averaged.
struct OpListResult;
StepEnergy op_list_energy(const topo::Pod& pod, const config::PowerSpec& power,
                          const OpListResult& run);

}  // namespace podsim::engine
