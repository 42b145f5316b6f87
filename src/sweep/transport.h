// How a sweep's points are dealt among processes and their results merged.
//
// One process computes every point. Under `mpirun -np N` each rank computes
// the points i with i % N == rank (round robin, so a slow region of the sweep
// is spread over every rank), sends each result to rank 0 as it finishes,
// and rank 0 writes them all in index order: the output is byte-identical to
// the one-process run's. Only each process's main thread calls MPI.
//
// Nothing waits forever or spins (issue 27): every wait on another rank
// polls and sleeps between polls, and a rank gives up on one that has sent
// nothing (no result, no heartbeat) for WaitLimits::rank_timeout_seconds
// (RankSilent); rank 0 also when the sweep's wall-time limit passes while it
// waits (sim::WorkLimitExceeded). Every rank sends a heartbeat while it
// computes or waits: ranks other than 0 to rank 0, rank 0 to every other
// rank. So a long point is not taken for a stopped rank, and a stopped
// rank 0 is noticed by the others.
//
// Commands that run in rounds (search, capacity) also wait for rank 0:
// every rank gets a round's merged results from broadcast() before it goes
// on. And every command ends the job with finish(), a handshake that makes
// sure no rank stopped after its last message before every rank enters
// MPI_Finalize (which, once entered, waits for the others without a limit
// and without a way to name the one missing; finish() bounds it too).
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "sweep/ordered_runner.h"

namespace podsim::sweep {

// How long the ranks wait for each other when one of them sends nothing:
// the default of --rank-timeout-seconds, and the bound on MPI_Finalize for a
// command that ends without finish() (an error every rank met alike).
inline constexpr double kDefaultRankTimeoutSeconds = 600;

// How long ranks wait for each other.
struct WaitLimits {
  // A rank silent this long (seconds) while another waits for it is given
  // up. 0: wait as long as it takes.
  double rank_timeout_seconds = 0;
  // The whole sweep's wall-time limit (seconds since `start`; 0: none).
  double max_wall_seconds = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

// Heard nothing from `rank` for longer than the rank timeout (rank 0 from
// another rank, or another rank from rank 0): it was
// stopped, hangs, or its machine is unreachable. A limit (exit 1), not a bug.
class RankSilent : public std::runtime_error {
 public:
  RankSilent(unsigned rank, const std::string& what, bool at_end = false)
      : std::runtime_error(what), rank_(rank), at_end_(at_end) {}
  unsigned rank() const { return rank_; }
  // Given up in Transport::finish(): every result was in, and what rank 0
  // wrote before is complete (not "no result was written").
  bool at_end() const { return at_end_; }

 private:
  unsigned rank_;
  bool at_end_;
};

class Transport {
 public:
  virtual ~Transport() = default;

  void set_wait_limits(const WaitLimits& limits) { limits_ = limits; }
  const WaitLimits& wait_limits() const { return limits_; }
  // What run_points calls with the error that ends this rank's part when it
  // is given no `on_error` of its own: how a command ends the whole job at
  // once (report the reason, Transport::abort) from library code that runs
  // points for it (search, capacity). Empty: the error is only rethrown.
  using ErrorHook = std::function<void(const std::exception_ptr&)>;
  void set_on_error(ErrorHook hook) { on_error_ = std::move(hook); }
  const ErrorHook& on_error() const { return on_error_; }
  // How often a rank that is computing tells rank 0 it is alive: a quarter
  // of the rank timeout (so three may be lost), between 50 ms and 30 s.
  std::chrono::milliseconds heartbeat_interval() const;

  virtual unsigned rank() const = 0;
  virtual unsigned ranks() const = 0;
  // Rank 0 writes the output and reports progress.
  bool writes_output() const { return rank() == 0; }
  // This process's points of a sweep of `count`.
  Share share(uint64_t count) const { return {rank(), ranks(), count}; }
  unsigned owner(uint64_t index) const { return static_cast<unsigned>(index % ranks()); }

  // Rank 0: the result of `index` from its owner. Called in index order.
  virtual std::string receive(uint64_t index) = 0;
  // Other ranks: hands the result of `index` to rank 0. Called in index order.
  virtual void send(uint64_t index, const std::string& result) = 0;
  // Ends the whole job at once after an internal error on one rank (the
  // others would wait for it forever). Does nothing in one process.
  virtual void abort(int exit_code) = 0;
  // Every rank calls it; each gets rank 0's `bytes` (the others' are ignored).
  // How rank 0 shares merged results that every rank needs to go on (a
  // search's next round). Waits like receive(): sleeping, and throwing
  // RankSilent for a rank (rank 0, or one rank 0 sends to) silent past the
  // rank timeout.
  virtual std::string broadcast(std::string bytes) = 0;
  // Called by run_points while this rank waits for its own workers, at
  // least every heartbeat_interval(): ranks other than 0 send rank 0 a
  // heartbeat and take rank 0's (throwing RankSilent once rank 0 has been
  // silent past the rank timeout); rank 0 takes theirs and sends them one.
  virtual void keep_alive() {}
  // Ends the job's communication; every rank calls it once, when its part
  // is done (rank 0: every result taken and its outputs written). Rank 0
  // tells each rank the job is over and waits until each answers, so a
  // rank stopped after its last message is named (RankSilent) rather than
  // hanging the job in MPI_Finalize; then every rank finalizes MPI, which
  // ends the job with exit 1 and a message should it still not return
  // within the rank timeout (a rank stopped after its answer). Calls no
  // MPI function after. Does nothing in one process.
  virtual void finish() {}
  // Called when a round of points starts (run_points): rank 0 counts the
  // others' silence from now, not from the end of the previous round.
  virtual void begin_points() {}

 private:
  WaitLimits limits_;
  ErrorHook on_error_;
};

// One process: rank 0 of 1.
class LocalTransport final : public Transport {
 public:
  unsigned rank() const override { return 0; }
  unsigned ranks() const override { return 1; }
  std::string receive(uint64_t index) override;
  void send(uint64_t index, const std::string& result) override;
  void abort(int) override {}
  std::string broadcast(std::string bytes) override { return bytes; }
};

// The MPI job's transport when podsim was started by mpirun (and built with
// MPI); otherwise the local one.
std::unique_ptr<Transport> make_transport();

// Whether this binary was built with MPI.
bool built_with_mpi();

// Starts MPI for the life of the object when the process was launched by an
// MPI launcher (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK, in
// the environment) and podsim was built with MPI; otherwise does nothing, so
// a plain `podsim` never touches MPI. main() holds one.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool started_ = false;
};

// Plays a sweep of `count` points over `transport`: this process computes its
// share on `jobs` threads; rank 0 passes every result, in index order, to
// `sink` (the others pass theirs to rank 0). Memory stays bounded by the
// runner's window (plus what MPI buffers in flight).
// `on_error` (or, when not given, the transport's on_error()) is called
// with what ends the run (a point's error, the sink's, a rank gone silent)
// before the workers are stopped, which waits for the points they compute:
// a rank that ends the whole job from it (Transport::abort) does so at
// once. The error is then rethrown.
void run_points(uint64_t count, Transport& transport, unsigned jobs,
                const OrderedRunner::Work& work,
                const std::function<void(uint64_t index, const std::string& result)>& sink,
                const std::function<void(const std::exception_ptr&)>& on_error = {});

}  // namespace podsim::sweep
