#include "sweep/transport.h"

#include <stdexcept>

namespace podsim::sweep {

std::string LocalTransport::receive(uint64_t index) {
  throw std::logic_error("LocalTransport::receive(" + std::to_string(index) +
                         "): one process owns every point");
}

void LocalTransport::send(uint64_t index, const std::string&) {
  throw std::logic_error("LocalTransport::send(" + std::to_string(index) +
                         "): rank 0 writes its own results");
}

void run_points(uint64_t count, Transport& transport, unsigned jobs,
                const OrderedRunner::Work& work,
                const std::function<void(uint64_t, const std::string&)>& sink) {
  const Share share = transport.share(count);
  OrderedRunner local(share, jobs, work);
  if (!transport.writes_output()) {
    for (uint64_t k = 0; k < share.size(); ++k)
      transport.send(share.at(k), local.next());
    return;
  }
  for (uint64_t i = 0; i < count; ++i) {
    if (transport.owner(i) == transport.rank()) {
      sink(i, local.next());
    } else {
      sink(i, transport.receive(i));
    }
  }
}

}  // namespace podsim::sweep
