// A call that may not return (MPI_Finalize waiting for a stopped rank),
// bounded: a watchdog thread ends the process with exit 1 and a message on
// stderr once it has run `seconds`. The thread touches nothing of the
// call's (it writes to fd 2 and calls _exit), so the call may be one only
// the main thread may make. For the last thing a process does: nothing
// after it is flushed or destroyed when the bound passes.
#pragma once

#include <functional>
#include <string>

namespace podsim::sweep {

// Runs `call`; `seconds` <= 0 or not finite: no bound. `message` (a whole
// line, newline included) is written as is.
void call_within(double seconds, const std::string& message, const std::function<void()>& call);

}  // namespace podsim::sweep
