// Built without MPI: every process is a single-rank job.
#include "sweep/transport.h"

namespace podsim::sweep {

std::unique_ptr<Transport> make_transport() {
  return std::make_unique<LocalTransport>();
}

bool built_with_mpi() {
  return false;
}

MpiSession::MpiSession(int&, char**&) {}
MpiSession::~MpiSession() = default;

}  // namespace podsim::sweep
