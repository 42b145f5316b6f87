#include "sweep/transport.h"

#include <algorithm>
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

std::chrono::milliseconds Transport::heartbeat_interval() const {
  const double timeout = limits_.rank_timeout_seconds;
  // Without a timeout nobody listens; one wake-up a second is still cheap.
  const double seconds = timeout > 0 ? std::clamp(timeout / 4, 0.05, 30.0) : 1.0;
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

namespace {

// The next result of this rank's own share; keeps the transport alive
// (heartbeats) while the workers compute it.
std::string next_own(OrderedRunner& local, Transport& transport) {
  const std::chrono::milliseconds interval = transport.heartbeat_interval();
  while (!local.wait_next_for(interval))
    transport.keep_alive();
  return local.next();
}

}  // namespace

void run_points(uint64_t count, Transport& transport, unsigned jobs,
                const OrderedRunner::Work& work,
                const std::function<void(uint64_t, const std::string&)>& sink,
                const std::function<void(const std::exception_ptr&)>& on_error) {
  const Share share = transport.share(count);
  transport.begin_points();
  OrderedRunner local(share, jobs, work);
  try {
    if (!transport.writes_output()) {
      for (uint64_t k = 0; k < share.size(); ++k)
        transport.send(share.at(k), next_own(local, transport));
      return;
    }
    for (uint64_t i = 0; i < count; ++i) {
      if (transport.owner(i) == transport.rank()) {
        sink(i, next_own(local, transport));
      } else {
        sink(i, transport.receive(i));
      }
    }
  } catch (...) {
    if (on_error) {
      on_error(std::current_exception());
    } else if (transport.on_error()) {
      transport.on_error()(std::current_exception());
    }
    throw;
  }
}

}  // namespace podsim::sweep
