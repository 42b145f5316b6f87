// The energy part of podsim.Result (proto/podsim/result.proto Energy, the
// chips' energy in ChipBreakdown, and the power model echoed in the
// inputs), filled from engine::StepEnergy (engine/energy.h).
#pragma once

#include <cstdint>

#include "config/power_spec.h"
#include "engine/energy.h"
#include "podsim/result.pb.h"
#include "sim/time.h"

namespace podsim::report {

// Joules from integer picojoules.
double joules(engine::Picojoules pj);

void fill_energy_parts(const engine::EnergyParts& p, podsim::EnergyParts& out);
void fill_energy_classes(const engine::ClassEnergy& c, podsim::EnergyClasses& out);

// The slice's energy over a step of `step_time` producing `tokens`.
void fill_energy(const engine::StepEnergy& e, const config::PowerSpec& power, sim::Time step_time,
                 uint64_t tokens, podsim::Energy& out);

// The power model as the run used it.
void fill_power_inputs(const config::PowerSpec& p, podsim::PowerInputs& out);

}  // namespace podsim::report
