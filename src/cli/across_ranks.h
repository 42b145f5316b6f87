// How a command that computes across MPI ranks in rounds (search, capacity)
// ends on every rank, in one place.
//
// Under mpirun every rank parses the same arguments, reads the same files
// and runs the same rounds; rank 0 alone writes, once every round is done,
// and reports an error every rank meets alike (a bad option or input), once.
// Such an ending, a result included, is orderly: every rank ends the job
// together (finish_job, the end-of-job handshake) and returns the exit code
// one process would. Any other error (a rank gone silent, a bug) is one
// rank's alone: that rank reports it and ends the whole job at once
// (abort_job), as the others would wait for it; run_points does the same
// from inside a round, before the work in flight finishes.
#pragma once

#include <functional>

#include "cli/context.h"
#include "sweep/transport.h"

namespace podsim::cli {

struct AcrossRanks {
  // A limit (sim::WorkLimitExceeded) is met by every rank alike (capacity:
  // each probe carries its error to every rank that needs it), rather than
  // by one rank alone (search: one rank's evaluation).
  bool limits_shared = false;
};

// Runs `command` on this process's transport (sweep::make_transport) and
// ends as above. An orderly error is reported by rank 0 before the job ends
// and its exit code returned; any other is rethrown after abort_job.
int run_across_ranks(Context& ctx, const AcrossRanks& how,
                     const std::function<int(sweep::Transport&)>& command);

}  // namespace podsim::cli
