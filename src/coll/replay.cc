#include "coll/replay.h"

namespace podsim::coll {

Recording record_isolated(const topo::Pod& pod, const net::Options& options, const Plan& plan,
                          const ExecutorOptions& executor,
                          const std::vector<topo::ChipId>& joiners) {
  sim::Simulation sim;
  net::AnalyticalNetwork network(pod, options);
  CollectiveRun run(pod, network, plan, executor, joiners);
  run.set_participants(static_cast<uint32_t>(joiners.size()));
  Recording r;
  run.set_on_chip_done(
      [&r](sim::Simulation& s, topo::ChipId chip) { r.chip_done.emplace_back(chip, s.now()); });
  sim.schedule_at(sim::Time::zero(), [&](sim::Simulation& s) {
    for (const topo::ChipId chip : joiners) {
      run.join(s, chip);
    }
  });
  sim.run();
  r.links = network.bookings();
  return r;
}

const Recording& ReplayCache::get(uint32_t key, const Plan& plan,
                                  const std::vector<topo::ChipId>& joiners) {
  auto it = recordings_.find({key, joiners});
  if (it == recordings_.end()) {
    it = recordings_
             .emplace(std::make_pair(key, joiners),
                      record_isolated(pod_, options_, plan, executor_, joiners))
             .first;
    ++recorded_;
  }
  return it->second;
}

void ReplayedRun::join(sim::Simulation& sim, topo::ChipId chip) {
  if (played_) {
    played_->join(sim, chip);
    return;
  }
  if (decided_) {
    throw std::logic_error("ReplayedRun: chip " + std::to_string(chip) +
                           " joined a collective replayed without it");
  }
  if (joiners_.empty()) {
    // Just before the analytical network books this instant's transfers
    // (priority max), after everything else of the instant.
    sim.schedule_at(sim.now(), *this, kDecide, sim::kLastPriority - 1);
  }
  joiners_.push_back(chip);
}

void ReplayedRun::handle(sim::Simulation& sim, uint64_t payload) {
  if (payload == kDecide) {
    decide(sim);
    return;
  }
  const topo::ChipId chip = recording_->chip_done[payload].first;
  ++chips_done_;
  if (on_chip_done_) {
    on_chip_done_(sim, chip);
  }
  if (chips_done_ == recording_->chip_done.size() && on_done_) {
    on_done_(sim);
  }
}

void ReplayedRun::decide(sim::Simulation& sim) {
  decided_ = true;
  const uint32_t expected = participants_ != 0 ? participants_ : pod_.chip_count();
  if (joiners_.size() == expected) {
    const Recording& r = cache_.get(plan_key_, plan_, joiners_);
    if (network_.idle(r.links, sim.now())) {
      recording_ = &r;
      cache_.count_replay();
      network_.book(r.links, sim.now());
      for (size_t i = 0; i < r.chip_done.size(); ++i) {
        sim.schedule_at(sim.now() + r.chip_done[i].second, *this, i);
      }
      return;
    }
  }
  play(sim);
}

void ReplayedRun::play(sim::Simulation& sim) {
  played_ = std::make_unique<CollectiveRun>(pod_, network_, plan_, executor_, may_join_);
  played_->set_participants(participants_);
  played_->set_on_chip_done(on_chip_done_);
  played_->set_on_done(on_done_);
  for (const topo::ChipId chip : joiners_) {
    played_->join(sim, chip);
  }
  joiners_.clear();
  joiners_.shrink_to_fit();
}

}  // namespace podsim::coll
