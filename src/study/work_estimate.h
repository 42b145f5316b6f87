// What a run will cost at least, before it starts (issue 12 point 4): lower
// bounds on the events and memory of a serving step or an operation list,
// from counts known before any simulation. A run whose bound already passes
// a limit is refused at once (sim::WorkBudget::check_estimate) instead of
// after hours; what the bounds miss, the budget catches while the run goes.
//
// The bounds, and why each holds:
//  - operation list: every run (repeat) of a compute operation is at least
//    one event and one 16-byte span; every run of a collective is at least
//    one transfer delivered to each of half the mesh's chips (in a group of
//    k >= 2 chips, k - 1 receive data), and on the packet network each such
//    chip receives at least V / 2 bytes (every collective kind moves at
//    least (k-1)/k of V to a receiving chip), so ceil(V / 2 / packet) packets;
//  - serving step: every instruction of every stage is at least one event
//    and one span on one chip.
// Once an operation list's collectives are lowered, the engine counts their
// transfers (coll::min_transfers, at least one event each) and the run is
// checked again before its first event (engine::OpListOptions::before_start):
// a tighter bound, nearly exact for ring schedules.
#pragma once

#include <cstdint>

#include "config/workload_spec.h"
#include "net/network.h"
#include "topo/mesh.h"
#include "workload/program.h"

namespace podsim::study {

struct WorkEstimate {
  uint64_t events = 0;        // at least this many
  uint64_t memory_bytes = 0;  // at least this much, beyond what is already allocated
};

WorkEstimate estimate_op_list(const config::WorkloadSpec& workload, const topo::DeviceMesh& mesh,
                              const net::Options& network);

WorkEstimate estimate_step(const workload::Program& program);

}  // namespace podsim::study
