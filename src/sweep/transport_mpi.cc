// Built with MPI: the transport of an mpirun job (transport.h).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "sweep/transport.h"

namespace podsim::sweep {
namespace {

constexpr int kResultTag = 1;

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
    MPI_Status status;
    MPI_Probe(source, kResultTag, MPI_COMM_WORLD, &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string result(static_cast<size_t>(bytes), '\0');
    MPI_Recv(result.data(), bytes, MPI_CHAR, source, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return result;
  }

  void send(uint64_t index, const std::string& result) override {
    if (result.size() > static_cast<size_t>(INT_MAX))
      throw std::runtime_error("sweep point " + std::to_string(index) +
                               ": result larger than one MPI message (2 GiB)");
    MPI_Send(result.data(), static_cast<int>(result.size()), MPI_CHAR, 0, kResultTag,
             MPI_COMM_WORLD);
  }

  void abort(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

  std::string broadcast(std::string bytes) override {
    uint64_t size = bytes.size();
    MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    bytes.resize(size);
    // In pieces of at most INT_MAX bytes, MPI's count type.
    for (uint64_t at = 0; at < size;) {
      const auto piece = static_cast<int>(std::min<uint64_t>(size - at, INT_MAX));
      MPI_Bcast(bytes.data() + at, piece, MPI_CHAR, 0, MPI_COMM_WORLD);
      at += static_cast<uint64_t>(piece);
    }
    return bytes;
  }

 private:
  unsigned rank_ = 0;
  unsigned ranks_ = 1;
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
