#include "fleet/kv_transfer.h"

#include <stdexcept>

#include "coll/executor.h"
#include "coll/plan.h"
#include "engine/op_list.h"
#include "topo/mesh.h"

namespace podsim::fleet {

config::CollectiveSpec kv_send(const topo::Pod& pod, uint32_t from, uint32_t to,
                               uint64_t bytes_per_chip) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kSend;
  c.bytes = bytes_per_chip;
  const uint32_t per_slice = pod.chip_count() / pod.slice_count();
  c.pairs.reserve(per_slice);
  for (topo::ChipId chip = 0; chip < per_slice; ++chip) {
    const std::vector<uint32_t> coords = pod.coords(chip);
    c.pairs.push_back(config::ChipPair{{from, coords}, {to, coords}});
  }
  return c;
}

KvMover::KvMover(const KvTransferSetup& setup) : pod_(setup.pod) {
  if (!pod_ || pod_->slice_count() < 2)
    throw std::invalid_argument("KV transfers need a pod of at least two slices joined by DCN");
  network_ = net::make_network(*pod_, engine::network_options(*pod_, setup.model));
}

KvMover::~KvMover() = default;

uint32_t KvMover::start(sim::Simulation& sim, uint32_t from_slice, uint32_t to_slice,
                        uint64_t bytes_per_chip, std::function<void(sim::Simulation&)> done) {
  const config::CollectiveSpec send = kv_send(*pod_, from_slice, to_slice, bytes_per_chip);
  std::vector<topo::ChipId> joiners;
  joiners.reserve(2 * send.pairs.size());
  for (const config::ChipPair& p : send.pairs) {
    joiners.push_back(pod_->chip_at(p.src.slice, p.src.coords));
    joiners.push_back(pod_->chip_at(p.dst.slice, p.dst.coords));
  }
  const topo::DeviceMesh mesh(*pod_, {});
  auto run = std::make_unique<coll::CollectiveRun>(*pod_, *network_, coll::lower(*pod_, mesh, send),
                                                   coll::ExecutorOptions{}, joiners);
  run->set_participants(static_cast<uint32_t>(joiners.size()));
  run->set_on_done(std::move(done));
  uint32_t handle = 0;
  if (!free_.empty()) {
    handle = free_.back();
    free_.pop_back();
    runs_[handle] = std::move(run);
  } else {
    handle = static_cast<uint32_t>(runs_.size());
    runs_.push_back(std::move(run));
  }
  for (const topo::ChipId c : joiners)
    runs_[handle]->join(sim, c);
  return handle;
}

void KvMover::release(uint32_t handle) {
  runs_[handle].reset();
  free_.push_back(handle);
}

}  // namespace podsim::fleet
