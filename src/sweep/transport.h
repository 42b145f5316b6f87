// How a sweep's points are dealt among processes and their results merged.
//
// One process computes every point. Under `mpirun -np N` each rank computes
// the points i with i % N == rank (round robin, so a slow region of the sweep
// is spread over every rank), sends each result to rank 0 as it finishes,
// and rank 0 writes them all in index order: the output is byte-identical to
// the one-process run's. Only each process's main thread calls MPI.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sweep/ordered_runner.h"

namespace podsim::sweep {

class Transport {
 public:
  virtual ~Transport() = default;

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
  // search's next round).
  virtual std::string broadcast(std::string bytes) = 0;
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
void run_points(uint64_t count, Transport& transport, unsigned jobs,
                const OrderedRunner::Work& work,
                const std::function<void(uint64_t index, const std::string& result)>& sink);

}  // namespace podsim::sweep
