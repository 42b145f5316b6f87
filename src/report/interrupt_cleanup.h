// Temporary output files removed when the process is interrupted.
//
// AtomicFile writes beside its destination and renames into place. Its
// temporary has no name until it is complete (O_TMPFILE) where the file
// system allows; otherwise, and from the moment it is named, a SIGINT,
// SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 or SIGALRM (the last three are what
// mpirun forwards to its ranks) would leave ".NAME.tmp.<pid>" behind.
// (SIGKILL cannot be caught: only the anonymous temporary is safe from it.) Registered paths are
// unlinked by a handler installed on first use, which then restores the
// default action and re-raises the signal, so the process still ends as
// interrupted (exit 130 from a shell for SIGINT).
//
// While a command puts several outputs in place (report::commit_together),
// a HeldInterrupts holds those signals back: the handler notes the signal and
// returns, and the guard delivers it once every output is in place, so an
// interrupt never leaves some outputs new and others old.
//
// Signals are process-wide, so this is the one piece of process-wide state
// in the report layer: a fixed table (no allocation in the handler, unlink()
// only, which is async-signal-safe). Thread-safe.
#pragma once

#include <filesystem>

namespace podsim::report {

// A registration, released by its destructor (after a rename or a removal).
class InterruptCleanup {
 public:
  explicit InterruptCleanup(const std::filesystem::path& path);
  ~InterruptCleanup();
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

 private:
  int slot_ = -1;  // -1: the table was full (the file is then not cleaned up)
};

// Holds the signals above (SIGINT, SIGTERM, SIGHUP and the three mpirun
// forwards) back for its lifetime (from any thread), then delivers the first
// that arrived: temporaries still registered are removed and the process
// ends as interrupted. Not nested.
class HeldInterrupts {
 public:
  HeldInterrupts();
  ~HeldInterrupts();
  HeldInterrupts(const HeldInterrupts&) = delete;
  HeldInterrupts& operator=(const HeldInterrupts&) = delete;
};

}  // namespace podsim::report
