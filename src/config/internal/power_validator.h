// The rules on a chip's power model (topology.proto Power; docs/energy.md).
//
// Internal to src/config: it reads the generated messages. After
// check_power() adds no issue, to_power_spec() cannot fail.
#pragma once

#include "config/internal/issue_list.h"
#include "config/power_spec.h"

namespace podsim {
class Topology;
}  // namespace podsim

namespace podsim::config::internal {

// Checks topology.chip.power at `at`: every figure finite and >= 0, the
// clock knob and voltage law in range, a source when any figure is set,
// and, when the file gives tdp_watts, the chip at every unit's peak at once
// (idle, the matrix units at their fastest dtype, HBM, every ICI port
// sending) within it. The peaks are the nominal ones, from the matrix
// units as the topology gives them.
void check_power(IssueList& issues, const FieldPath& at, const Topology& t);

// The spec of a valid power model: modelled when any figure is set, the
// operating voltage from the clock knob (config/dvfs.h), the matrix units',
// vector unit's and VMEM's energies scaled by voltage^2 and idle power by
// voltage.
PowerSpec to_power_spec(const Topology& t);

}  // namespace podsim::config::internal
