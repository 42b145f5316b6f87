// Built with MPI: the transport of an mpirun job (transport.h).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/work_budget.h"
#include "sweep/bounded_call.h"
#include "sweep/transport.h"

namespace podsim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kResultTag = 1;
constexpr int kHeartbeatTag = 2;  // empty messages: "still computing"
constexpr int kBroadcastTag = 3;  // rank 0's merged results of a round, to each rank
constexpr int kEndTag = 4;        // finish(): rank 0's "the job is over", each rank's answer

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

// MPI_Finalize, bounded (sweep/bounded_call.h): once in it, a rank waits
// for every other without a limit (Open MPI's closing fence), and a rank
// stopped or hung there or just before would hang the whole job. Past
// `seconds` (0: no bound) this process ends with exit 1 and a message;
// mpirun then ends the job.
void finalize_within(double seconds, int rank) {
  call_within(seconds,
              "podsim: rank " + std::to_string(rank) +
                  ": the job's other ranks did not end within " + sim::format_seconds(seconds) +
                  " (--rank-timeout-seconds) of this one: one was stopped or hangs after its "
                  "last message\n",
              [] { MPI_Finalize(); });
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
        // command's on_error), with no MPI progress in between.
        wait(request, [&] {
          tell_others_when_due();
          check_limits(source, index);
        });
        heard(source);
        return result;
      }
      // Ranks already waiting in broadcast() for this round's merged
      // results must not take a rank 0 that waits for a slow rank as
      // stopped.
      tell_others_when_due();
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
    // of its own: keep telling it this rank is alive, and give up on a rank 0
    // silent past the timeout (it sends heartbeats while it computes or waits).
    wait(request, [&] {
      take_heartbeats();
      tell_others_when_due();
      check_silent(0, [&] {
        return "while rank " + std::to_string(rank_) + " waited for it to take point " +
               std::to_string(index);
      });
    });
  }

  void abort(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

  // Point to point rather than MPI_Ibcast: a pending collective can be
  // neither given up after a timeout nor asked which rank it waits for, so
  // one stopped rank left every other waiting in it forever (issue 27).
  // Rank 0 sends each rank the size, then the bytes in pieces of at most
  // INT_MAX (MPI's count type); a round's results are kilobytes, so the
  // N - 1 copies cost nothing next to the simulations that made them.
  std::string broadcast(std::string bytes) override {
    if (ranks_ == 1)
      return bytes;
    if (rank_ == 0) {
      send_to_all(bytes);
      return bytes;
    }
    return receive_from_root();
  }

  void keep_alive() override {
    take_heartbeats();
    tell_others();
    // Rank 0 computes or waits too and sends a heartbeat each interval: a
    // rank computing a long share notices a stopped rank 0 now, not once it
    // waits for it.
    if (rank_ != 0)
      check_silent(0,
                   [&] { return "while rank " + std::to_string(rank_) + " computed its share"; });
  }

  void finish() override {
    if (ranks_ > 1) {
      if (rank_ == 0) {
        end_others();
      } else {
        end_with_root();
      }
    }
    finalize_within(wait_limits().rank_timeout_seconds, static_cast<int>(rank_));
  }

  void begin_points() override { last_heard_.assign(ranks_, Clock::now()); }

 private:
  static int piece_at(uint64_t at, uint64_t size) {
    return static_cast<int>(std::min<uint64_t>(size - at, INT_MAX));
  }

  void send_to_all(const std::string& bytes) {
    const uint64_t size = bytes.size();
    std::vector<std::vector<MPI_Request>> requests(ranks_);
    for (unsigned r = 1; r < ranks_; ++r) {
      const int to = static_cast<int>(r);
      MPI_Request request;
      MPI_Isend(&size, 1, MPI_UINT64_T, to, kBroadcastTag, MPI_COMM_WORLD, &request);
      requests[r].push_back(request);
      for (uint64_t at = 0; at < size; at += static_cast<uint64_t>(piece_at(at, size))) {
        MPI_Isend(bytes.data() + at, piece_at(at, size), MPI_CHAR, to, kBroadcastTag,
                  MPI_COMM_WORLD, &request);
        requests[r].push_back(request);
      }
    }
    // A send pending after RankSilent is left so: the throw is on its way
    // to MPI_Abort (the command's on_error), with no MPI progress between.
    for (unsigned r = 1; r < ranks_; ++r) {
      for (MPI_Request& request : requests[r]) {
        wait(request, [&] {
          take_heartbeats();
          tell_others_when_due();
          check_silent(r,
                       [] { return std::string("while rank 0 sent it a round's merged results"); });
        });
      }
    }
  }

  // Rank 0's half of finish(): "over" to every rank, then each one's answer.
  // A rank that answers is past its last message, one step from
  // MPI_Finalize; one silent for the rank timeout from now is named.
  // No heartbeats either way while a rank is in finish(): a rank that ended
  // on an error of its own while the others go on (they wait for its
  // results, or for rank 0's merged ones) must look silent to them, or each
  // side would wait for the other forever.
  void end_others() {
    last_heard_.assign(ranks_, Clock::now());
    std::vector<MPI_Request> told(ranks_);
    std::vector<MPI_Request> answers(ranks_);
    for (unsigned r = 1; r < ranks_; ++r) {
      MPI_Isend(nullptr, 0, MPI_CHAR, static_cast<int>(r), kEndTag, MPI_COMM_WORLD, &told[r]);
      MPI_Irecv(nullptr, 0, MPI_CHAR, static_cast<int>(r), kEndTag, MPI_COMM_WORLD, &answers[r]);
    }
    for (unsigned r = 1; r < ranks_; ++r) {
      const auto between = [&] {
        take_heartbeats();
        check_silent(
            r, [] { return std::string("while rank 0 waited for it to end the job"); }, true);
      };
      wait(answers[r], between);
      wait(told[r], between);
    }
  }

  // The other ranks' half: wait for rank 0's "over" (rank 0 may still
  // compute or write its outputs, sending heartbeats), then answer.
  void end_with_root() {
    const auto between = [&] {
      take_heartbeats();
      check_silent(
          0,
          [&] { return "while rank " + std::to_string(rank_) + " waited for the end of the job"; },
          true);
    };
    MPI_Request request;
    MPI_Irecv(nullptr, 0, MPI_CHAR, 0, kEndTag, MPI_COMM_WORLD, &request);
    wait(request, between);
    MPI_Isend(nullptr, 0, MPI_CHAR, 0, kEndTag, MPI_COMM_WORLD, &request);
    wait(request, between);
  }

  std::string receive_from_root() {
    const auto between = [&] {
      take_heartbeats();
      tell_others_when_due();
      check_silent(0, [&] {
        return "while rank " + std::to_string(rank_) + " waited for the round's merged results";
      });
    };
    uint64_t size = 0;
    MPI_Request request;
    MPI_Irecv(&size, 1, MPI_UINT64_T, 0, kBroadcastTag, MPI_COMM_WORLD, &request);
    wait(request, between);
    std::string bytes(size, '\0');
    for (uint64_t at = 0; at < size; at += static_cast<uint64_t>(piece_at(at, size))) {
      MPI_Irecv(bytes.data() + at, piece_at(at, size), MPI_CHAR, 0, kBroadcastTag, MPI_COMM_WORLD,
                &request);
      wait(request, between);
    }
    heard(0);
    return bytes;
  }

  // Heartbeats: ranks other than 0 tell rank 0; rank 0 tells every other
  // rank. Empty, so each goes at once (eager); freed, since nobody waits for
  // it. Nothing without a timeout: nobody listens.
  void tell_others() {
    told_ = Clock::now();
    const WaitLimits& limits = wait_limits();
    if (limits.rank_timeout_seconds <= 0)
      return;
    if (rank_ != 0) {
      heartbeat(0);
    } else {
      for (unsigned r = 1; r < ranks_; ++r)
        heartbeat(static_cast<int>(r));
    }
  }

  void tell_others_when_due() {
    if (Clock::now() - told_ >= heartbeat_interval())
      tell_others();
  }

  static void heartbeat(int to) {
    MPI_Request request;
    MPI_Isend(nullptr, 0, MPI_CHAR, to, kHeartbeatTag, MPI_COMM_WORLD, &request);
    MPI_Request_free(&request);
  }

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

  // Rank 0 takes every rank's; the others, rank 0's.
  void take_heartbeats() {
    for (;;) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(rank_ == 0 ? MPI_ANY_SOURCE : 0, kHeartbeatTag, MPI_COMM_WORLD, &arrived, &status);
      if (arrived == 0)
        return;
      MPI_Recv(nullptr, 0, MPI_CHAR, status.MPI_SOURCE, kHeartbeatTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      heard(status.MPI_SOURCE);
    }
  }

  // Throws RankSilent once `rank` has been silent past the rank timeout;
  // `waiting()` says what for, from "... for 3.1 s " on (built only then:
  // this runs 50 times a second).
  template <class Waiting>
  void check_silent(unsigned rank, const Waiting& waiting, bool at_end = false) {
    const WaitLimits& limits = wait_limits();
    const Clock::time_point now = Clock::now();
    if (last_heard_.size() != ranks_)
      last_heard_.assign(ranks_, now);
    const double silent = std::chrono::duration<double>(now - last_heard_[rank]).count();
    if (limits.rank_timeout_seconds > 0 && silent > limits.rank_timeout_seconds) {
      throw RankSilent(rank,
                       "rank " + std::to_string(rank) + " of " + std::to_string(ranks_) +
                           " sent nothing (no result, no heartbeat) for " +
                           sim::format_seconds(silent) + " " + waiting() + ", over the limit of " +
                           sim::format_seconds(limits.rank_timeout_seconds) +
                           " (--rank-timeout-seconds): it was stopped, hangs, or its host "
                           "is unreachable",
                       at_end);
    }
  }

  // Rank 0, waiting for `source`'s point `index`: throws once `source` has
  // been silent past the rank timeout, or the sweep past its wall time.
  void check_limits(int source, uint64_t index) {
    const WaitLimits& limits = wait_limits();
    const Clock::time_point now = Clock::now();
    check_silent(static_cast<unsigned>(source),
                 [&] { return "while rank 0 waited for its point " + std::to_string(index); });
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
  // When each rank was last heard from (rank 0: every rank; the others:
  // rank 0).
  std::vector<Clock::time_point> last_heard_;
  Clock::time_point told_ = Clock::now();  // this rank's last heartbeat sent
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

// A command that ended without Transport::finish() (an error every rank met
// alike, reported by rank 0) still has its MPI_Finalize bounded.
MpiSession::~MpiSession() {
  if (!started_ || !mpi_running())
    return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  finalize_within(kDefaultRankTimeoutSeconds, rank);
}

}  // namespace podsim::sweep
