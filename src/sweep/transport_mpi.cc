// Built with MPI: the transport of an mpirun job (transport.h).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/work_budget.h"
#include "sweep/transport.h"

namespace podsim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kResultTag = 1;
constexpr int kHeartbeatTag = 2;  // empty messages: "still computing"

// Open MPI's blocking calls (MPI_Probe, MPI_Send, MPI_Bcast) poll without
// sleeping, so a rank waiting for a stopped one burned a core. Every wait
// here tests and sleeps instead: 50 us doubling to 20 ms, so a message about
// to arrive is taken at once and a long wait wakes 50 times a second.
class Backoff {
 public:
  void pause() {
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min(sleep_ * 2, std::chrono::microseconds(20'000));
  }

 private:
  std::chrono::microseconds sleep_{50};
};

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(var) != nullptr)
      return true;
  }
  return false;
}

bool mpi_running() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int r = 0;
    int n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    rank_ = static_cast<unsigned>(r);
    ranks_ = static_cast<unsigned>(n);
  }

  unsigned rank() const override { return rank_; }
  unsigned ranks() const override { return ranks_; }

  // Results from one rank arrive in the order it sent them (MPI does not let
  // messages of one sender, tag and communicator overtake each other), and
  // each rank sends its points in index order.
  std::string receive(uint64_t index) override {
    const int source = static_cast<int>(owner(index));
    Backoff backoff;
    for (;;) {
      take_heartbeats();
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(source, kResultTag, MPI_COMM_WORLD, &arrived, &status);
      if (arrived != 0) {
        int bytes = 0;
        MPI_Get_count(&status, MPI_CHAR, &bytes);
        std::string result(static_cast<size_t>(bytes), '\0');
        MPI_Request request;
        MPI_Irecv(result.data(), bytes, MPI_CHAR, source, kResultTag, MPI_COMM_WORLD, &request);
        // The sender stopped mid-message is given up too. The receive is
        // then left pending: its throw is on the way to MPI_Abort (the
        // sweep's on_error), with no MPI progress in between.
        wait(request, [&] { check_limits(source, index); });
        heard(source);
        return result;
      }
      check_limits(source, index);
      backoff.pause();
    }
  }

  void send(uint64_t index, const std::string& result) override {
    if (result.size() > static_cast<size_t>(INT_MAX))
      throw std::runtime_error("sweep point " + std::to_string(index) +
                               ": result larger than one MPI message (2 GiB)");
    MPI_Request request;
    MPI_Isend(result.data(), static_cast<int>(result.size()), MPI_CHAR, 0, kResultTag,
              MPI_COMM_WORLD, &request);
    // A large result waits until rank 0 takes it, maybe after a long point
    // of its own: keep telling it this rank is alive.
    Clock::time_point last = Clock::now();
    wait(request, [&] {
      if (Clock::now() - last >= heartbeat_interval()) {
        keep_alive();
        last = Clock::now();
      }
    });
  }

  void abort(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

  std::string broadcast(std::string bytes) override {
    uint64_t size = bytes.size();
    MPI_Request request;
    MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request);
    wait(request, [] {});
    bytes.resize(size);
    // In pieces of at most INT_MAX bytes, MPI's count type.
    for (uint64_t at = 0; at < size;) {
      const auto piece = static_cast<int>(std::min<uint64_t>(size - at, INT_MAX));
      MPI_Ibcast(bytes.data() + at, piece, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
      wait(request, [] {});
      at += static_cast<uint64_t>(piece);
    }
    return bytes;
  }

  void keep_alive() override {
    if (rank_ == 0) {
      take_heartbeats();
      return;
    }
    if (wait_limits().rank_timeout_seconds <= 0)
      return;  // nobody listens
    // Empty, so it goes at once (eager); freed, since nobody waits for it.
    MPI_Request request;
    MPI_Isend(nullptr, 0, MPI_CHAR, 0, kHeartbeatTag, MPI_COMM_WORLD, &request);
    MPI_Request_free(&request);
  }

  void begin_points() override { last_heard_.assign(ranks_, Clock::now()); }

 private:
  // Tests `request` until it completes, sleeping between tests and calling
  // `between` (which may throw) after each.
  template <class Between>
  static void wait(MPI_Request& request, Between between) {
    Backoff backoff;
    for (;;) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done != 0)
        return;
      between();
      backoff.pause();
    }
  }

  void heard(int rank) {
    if (last_heard_.size() != ranks_)
      last_heard_.assign(ranks_, Clock::now());
    last_heard_[static_cast<size_t>(rank)] = Clock::now();
  }

  void take_heartbeats() {
    for (;;) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kHeartbeatTag, MPI_COMM_WORLD, &arrived, &status);
      if (arrived == 0)
        return;
      MPI_Recv(nullptr, 0, MPI_CHAR, status.MPI_SOURCE, kHeartbeatTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      heard(status.MPI_SOURCE);
    }
  }

  // Rank 0, waiting for `source`'s point `index`: throws once `source` has
  // been silent past the rank timeout, or the sweep past its wall time.
  void check_limits(int source, uint64_t index) {
    const WaitLimits& limits = wait_limits();
    const Clock::time_point now = Clock::now();
    if (last_heard_.size() != ranks_)
      last_heard_.assign(ranks_, now);
    const double silent =
        std::chrono::duration<double>(now - last_heard_[static_cast<size_t>(source)]).count();
    if (limits.rank_timeout_seconds > 0 && silent > limits.rank_timeout_seconds) {
      throw RankSilent(static_cast<unsigned>(source),
                       "rank " + std::to_string(source) + " of " + std::to_string(ranks_) +
                           " sent nothing (no result, no heartbeat) for " +
                           sim::format_seconds(silent) + " while rank 0 waited for its point " +
                           std::to_string(index) + ", over the limit of " +
                           sim::format_seconds(limits.rank_timeout_seconds) +
                           " (--rank-timeout-seconds): it was stopped, hangs, or its host is "
                           "unreachable");
    }
    const double elapsed = std::chrono::duration<double>(now - limits.start).count();
    if (limits.max_wall_seconds > 0 && elapsed > limits.max_wall_seconds) {
      throw sim::WorkLimitExceeded(
          sim::WorkLimitExceeded::Limit::kWallTime,
          "sweep stopped after " + sim::format_seconds(elapsed) + " while rank 0 waited for rank " +
              std::to_string(source) + "'s point " + std::to_string(index) +
              ", over the limit of " + sim::format_seconds(limits.max_wall_seconds) +
              " (--max-wall-seconds bounds the whole sweep)");
    }
  }

  unsigned rank_ = 0;
  unsigned ranks_ = 1;
  std::vector<Clock::time_point> last_heard_;  // rank 0: when each rank was last heard from
};

}  // namespace

std::unique_ptr<Transport> make_transport() {
  if (mpi_running())
    return std::make_unique<MpiTransport>();
  return std::make_unique<LocalTransport>();
}

bool built_with_mpi() {
  return true;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  if (!launched_by_mpi() || mpi_running())
    return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  started_ = true;
}

MpiSession::~MpiSession() {
  if (started_ && mpi_running())
    MPI_Finalize();
}

}  // namespace podsim::sweep
