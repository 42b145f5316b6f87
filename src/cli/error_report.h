// What an exception leaving a command means: the message on stderr and the
// exit code (exit_codes.h). One mapping for run_cli() and for an MPI rank
// that must end the whole job itself (MPI_Abort) instead of returning.
#pragma once

#include <exception>
#include <ostream>

namespace podsim::sweep {
class Transport;
}

namespace podsim::cli {

// Writes `error`'s message to `err` ("podsim: ...", with a hint where one
// helps) and returns its exit code: 2 for usage, input and output-path
// errors, 1 for a limit (sim::WorkLimitExceeded, sweep::RankSilent), 3 for
// anything else (a bug). `prefix` goes after "podsim: " (e.g. "rank 1: ").
int report_error(const std::exception_ptr& error, std::ostream& err, const char* prefix = "");

// Under mpirun (more than one rank): reports `error` prefixed by this
// rank ("podsim: rank 1: ...") and ends the whole job with its exit code
// (Transport::abort, which does not return): the other ranks would wait
// for this one. Does nothing in one process, where the error goes on to
// run_cli(). Remove temporary outputs before.
void abort_job(const std::exception_ptr& error, sweep::Transport& transport, std::ostream& err);

// Every rank calls it once its part of the job is done (rank 0: its outputs
// written, or failed to be): ends the MPI job with the others
// (Transport::finish). A rank gone silent by then is reported and ends the
// job at once (abort_job). Nothing in one process.
void finish_job(sweep::Transport& transport, std::ostream& err);

}  // namespace podsim::cli
