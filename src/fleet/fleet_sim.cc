#include "fleet/fleet_sim.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleet/router.h"
#include "fleet/slo_classes.h"

namespace podsim::fleet {
namespace {

// Event payloads: the kind in the top byte, an index below.
constexpr uint64_t kStreamArrival = 1ull << 56;
constexpr uint64_t kUserArrival = 2ull << 56;
constexpr uint64_t kSample = 3ull << 56;
constexpr uint64_t kTransfer = 4ull << 56;
constexpr uint64_t kIndexMask = (1ull << 56) - 1;

class Fleet final : public sim::EventHandler, public RequestListener {
 public:
  explicit Fleet(FleetSetup setup)
      : setup_(std::move(setup)), sim_(sim::Simulation::Options::charging(setup_.budget)) {
    if (setup_.replicas.empty())
      throw std::invalid_argument("a fleet needs at least one replica");
    replicas_.reserve(setup_.replicas.size());
    for (size_t i = 0; i < setup_.replicas.size(); ++i) {
      replicas_.push_back(
          std::make_unique<Replica>(static_cast<uint32_t>(i), setup_.replicas[i], *this));
      replicas_.back()->use_chains(setup_.arrivals->prefixes());
    }
    router_ = make_router(setup_.router);
    decode_router_ = make_router(setup_.router);
    for (size_t i = 0; i < replicas_.size(); ++i) {
      const auto index = static_cast<uint32_t>(i);
      (setup_.replicas[i].role == ReplicaRole::kDecode ? decode_ids_ : entry_ids_).push_back(index);
    }
    const bool prefill =
        std::any_of(setup_.replicas.begin(), setup_.replicas.end(),
                    [](const ReplicaSetup& r) { return r.role == ReplicaRole::kPrefill; });
    if (entry_ids_.empty())
      throw std::invalid_argument("a fleet needs a replica that takes new requests");
    if (prefill && decode_ids_.empty())
      throw std::invalid_argument("prefill replicas need a decode replica to hand off to");
    if (prefill) {
      if (setup_.kv_transfer.place.size() != replicas_.size())
        throw std::invalid_argument("prefill replicas need a KV transfer placement per replica");
      mover_ = std::make_unique<KvMover>(setup_.kv_transfer);
      groups_sent_.assign(replicas_.size(), 0);
      groups_received_.assign(replicas_.size(), 0);
    }
    decode_load_.assign(decode_ids_.size(), 0);
    if (setup_.record_steps) {
      out_.steps.resize(replicas_.size());
      for (size_t i = 0; i < replicas_.size(); ++i)
        replicas_[i]->record_steps(&out_.steps[i]);
    }
    load_.assign(entry_ids_.size(), 0);
    const size_t classes = std::max<size_t>(setup_.slo_by_class.size(), 1);
    out_.tbt_by_class.resize(classes);
    tbt_limit_.assign(classes, sim::Time::max());
    for (size_t c = 0; c < setup_.slo_by_class.size(); ++c) {
      const sim::Time tbt = targets_of(setup_.slo_by_class[c], sim::Time()).tbt;
      if (tbt > sim::Time())
        tbt_limit_[c] = tbt;
    }
  }

  FleetRun run() {
    pull_stream();
    if (setup_.sample_interval > sim::Time())
      sim_.schedule_at(sim::Time(), *this, kSample);
    sim_.run();
    out_.end = out_.requests.empty() ? sim::Time() : last_done_;
    account(out_.end);
    out_.replicas.reserve(replicas_.size());
    for (const auto& r : replicas_)
      out_.replicas.push_back(r->totals(out_.end));
    if (mover_) {
      out_.kv_transfer_bytes = mover_->bytes_sent();
      out_.kv_transfer_energy_j = mover_->energy_j();
      out_.kv_resharded = setup_.kv_transfer.reshard;
    }
    out_.events = sim_.events_executed();
    out_.fingerprint = sim_.fingerprint();
    return std::move(out_);
  }

  void handle(sim::Simulation& sim, uint64_t payload) override {
    const uint64_t kind = payload & ~kIndexMask;
    if (kind == kSample) {
      sample(sim.now());
      return;
    }
    if (kind == kStreamArrival) {
      arrive(stream_next_);
      pull_stream();
      return;
    }
    const auto slot = static_cast<uint32_t>(payload & kIndexMask);
    if (kind == kTransfer) {
      land(slot);
      return;
    }
    arrive(user_arrivals_[slot]);
    free_user_slots_.push_back(slot);
  }

  // A prefill replica's sequence leaves for a decode replica: every chip of
  // its slice sends its share of the cache to the same chip of the decode
  // replica's slice, over the network (fleet/kv_transfer.h).
  void handed_off(uint32_t replica, uint32_t request, const Sequence& s, sim::Time t) override {
    if (router_->needs_load()) {
      for (size_t i = 0; i < decode_ids_.size(); ++i)
        decode_load_[i] = replicas_[decode_ids_[i]]->outstanding_tokens();
    }
    const uint32_t dst = decode_ids_[decode_router_->route(decode_load_)];
    if (setup_.kv_transfer.reshard) {
      handed_off_resharded(replica, dst, request, s, t);
      return;
    }
    const ReplicaSetup& from = setup_.replicas[replica];
    const ReplicaSetup& to = setup_.replicas[dst];
    // The same slice shape on both sides; when the workloads shard the cache
    // differently, each pair moves the larger of the two per-chip shares.
    const double per_token = std::max(from.kv_bytes_per_token, to.kv_bytes_per_token);
    const auto bytes = static_cast<uint64_t>(std::ceil(static_cast<double>(s.cached) * per_token));
    const uint32_t slot = take_transfer(Transfer{s, replica, dst, request, t});
    out_.requests[request].decode_replica = dst;
    mover_->start(sim_, replica, dst, bytes, [this, slot](sim::Simulation& sim) {
      // Landed: the decode replica takes it in the fleet's own event.
      sim.schedule_at(sim.now(), *this, kTransfer | slot);
    });
  }

  // Resharded (fleet/kv_reshard.h): the sequence sits in the next sequence
  // group of its prefill replica and lands in the next group of its decode
  // replica (round robin over each replica's data-parallel groups), and
  // moves as the pattern between the two layouts.
  void handed_off_resharded(uint32_t replica, uint32_t dst, uint32_t request, const Sequence& s,
                            sim::Time t) {
    const KvTransferSetup& kv = setup_.kv_transfer;
    const uint32_t src_group =
        static_cast<uint32_t>(groups_sent_[replica]++ % kv.layout.at(replica)->groups);
    const uint32_t dst_group =
        static_cast<uint32_t>(groups_received_[dst]++ % kv.layout.at(dst)->groups);
    const uint32_t slot = take_transfer(Transfer{s, replica, dst, request, t});
    out_.requests[request].decode_replica = dst;
    mover_->start_resharded(sim_, replica, dst, src_group, dst_group, s.cached,
                            [this, slot](sim::Simulation& sim) {
                              sim.schedule_at(sim.now(), *this, kTransfer | slot);
                            });
  }

  void admitted(uint32_t request) override {
    out_.requests[request].admitted = sim_.now();
    out_.requests[request].was_admitted = true;
  }
  void prefix_hit(uint32_t request, uint32_t tokens, bool first) override {
    if (first)
      out_.requests[request].cached_prompt_tokens = tokens;
  }
  void preempted(uint32_t request) override { ++out_.requests[request].preemptions; }
  void charged(uint32_t request, double joules) override {
    out_.requests[request].energy_j += joules;
  }
  void rejected(uint32_t request) override { (void)request; }
  void first_token(uint32_t request, sim::Time t) override {
    out_.requests[request].first_token = t;
  }
  // The gaps to the previous token of the request and between the tokens
  // emitted together (0), into its class's histogram; O(1).
  void tokens(uint32_t request, uint32_t n, sim::Time t) override {
    if (n == 0)
      return;
    RequestRecord& rec = out_.requests[request];
    const size_t c = rec.slo_class < tbt_limit_.size() ? rec.slo_class : 0;
    GapHistogram& gaps = out_.tbt_by_class[c];
    if (rec.tokens_emitted > 0) {
      const sim::Time gap = t - rec.last_token;
      gaps.add(gap);
      rec.max_tbt = std::max(rec.max_tbt, gap);
      if (gap > tbt_limit_[c])
        ++rec.tbt_over_slo;
    }
    gaps.add(sim::Time(), n - 1);  // n >= 1: the first token of a request has no gap
    rec.tokens_emitted += n;
    rec.last_token = t;
  }
  void finished(uint32_t request, sim::Time t) override { done(request, t, false); }
  void rejected_at(uint32_t request, sim::Time t) override { done(request, t, true); }
  void shed_at(uint32_t request, sim::Time t) override {
    out_.requests[request].shed = true;
    done(request, t, true);
  }
  void deferred_request(uint32_t request) override { out_.requests[request].deferred = true; }

 private:
  bool accepting(sim::Time t) const {
    return t <= setup_.duration && (setup_.max_requests == 0 || issued_ < setup_.max_requests);
  }

  // Schedules the stream's next arrival, if any is still accepted.
  void pull_stream() {
    const std::optional<Arrival> a = setup_.arrivals->next();
    if (!a || !accepting(a->time))
      return;
    ++issued_;
    stream_next_ = *a;
    sim_.schedule_at(a->time, *this, kStreamArrival);
  }

  void schedule_user(const Arrival& a) {
    if (!accepting(a.time))
      return;
    ++issued_;
    uint32_t slot = 0;
    if (!free_user_slots_.empty()) {
      slot = free_user_slots_.back();
      free_user_slots_.pop_back();
      user_arrivals_[slot] = a;
    } else {
      slot = static_cast<uint32_t>(user_arrivals_.size());
      user_arrivals_.push_back(a);
    }
    sim_.schedule_at(a.time, *this, kUserArrival | slot);
  }

  void account(sim::Time now) {
    out_.request_seconds += static_cast<double>(in_system_) * (now - since_).to_s();
    since_ = now;
  }

  void arrive(const Arrival& a) {
    account(sim_.now());
    ++in_system_;
    const auto id = static_cast<uint32_t>(out_.requests.size());
    if (router_->needs_load()) {
      for (size_t i = 0; i < entry_ids_.size(); ++i)
        load_[i] = replicas_[entry_ids_[i]]->outstanding_tokens();
    }
    const uint32_t r = entry_ids_[router_->route(load_)];
    RequestRecord rec;
    rec.arrival = sim_.now();
    rec.prompt_tokens = a.prompt_tokens;
    rec.output_tokens = a.output_tokens;
    rec.replica = r;
    rec.decode_replica = r;
    rec.slo_class = a.slo_class;
    out_.requests.push_back(std::move(rec));
    RequestTargets targets;
    if (a.slo_class < setup_.slo_by_class.size())
      targets = targets_of(setup_.slo_by_class[a.slo_class], rec.arrival);
    replicas_[r]->enqueue(sim_, id, a.prompt_tokens, a.output_tokens, a.prefix,
                          targets.ttft_deadline, targets.tpot);
  }

  void done(uint32_t request, sim::Time t, bool rejected) {
    account(t);
    --in_system_;
    RequestRecord& rec = out_.requests[request];
    rec.finish = t;
    rec.rejected = rejected;
    rec.done = true;
    last_done_ = std::max(last_done_, t);
    if (auto next = setup_.arrivals->finished(t))
      schedule_user(*next);
  }

  void land(uint32_t slot) {
    const Transfer tr = transfers_[slot];
    free_transfers_.push_back(slot);
    out_.requests[tr.request].kv_transfer = sim_.now() - tr.start;
    replicas_[tr.from]->return_blocks(sim_, tr.seq);
    replicas_[tr.to]->enqueue_prefilled(sim_, tr.seq);
  }

  void sample(sim::Time now) {
    if (out_.samples.size() + replicas_.size() > kMaxSamples) {
      out_.samples_truncated = true;
      return;
    }
    for (const auto& r : replicas_) {
      const ReplicaState& s = r->state();
      out_.samples.push_back(TimeSample{now, r->index(), s.waiting().size(),
                                        static_cast<uint32_t>(s.running().size()), s.blocks_used(),
                                        r->power_w()});
    }
    // Keep ticking while anything is left to happen but the ticks.
    if (sim_.pending() > 0)
      sim_.schedule_in(setup_.sample_interval, *this, kSample);
  }

  FleetSetup setup_;
  sim::Simulation sim_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  struct Transfer {
    Sequence seq;
    uint32_t from = 0;
    uint32_t to = 0;
    uint32_t request = 0;
    sim::Time start;
  };

  uint32_t take_transfer(const Transfer& tr) {
    uint32_t slot = 0;
    if (!free_transfers_.empty()) {
      slot = free_transfers_.back();
      free_transfers_.pop_back();
    } else {
      slot = static_cast<uint32_t>(transfers_.size());
      transfers_.emplace_back();
    }
    transfers_[slot] = tr;
    return slot;
  }

  std::unique_ptr<Router> router_;
  std::unique_ptr<Router> decode_router_;
  std::vector<uint32_t> entry_ids_;   // replicas that take new requests
  std::vector<uint32_t> decode_ids_;  // decode replicas
  std::vector<uint64_t> decode_load_;
  std::unique_ptr<KvMover> mover_;         // with prefill replicas
  std::vector<uint64_t> groups_sent_;      // resharded: sequences handed off, per replica
  std::vector<uint64_t> groups_received_;  // resharded: sequences taken in, per replica
  std::vector<Transfer> transfers_;
  std::vector<uint32_t> free_transfers_;
  std::vector<uint64_t> load_;
  std::vector<sim::Time> tbt_limit_;  // by class: the TBT objective (Time::max(): none)
  Arrival stream_next_;
  std::vector<Arrival> user_arrivals_;
  std::vector<uint32_t> free_user_slots_;
  uint64_t issued_ = 0;
  uint64_t in_system_ = 0;
  sim::Time since_;
  sim::Time last_done_;
  FleetRun out_;
};

}  // namespace

FleetRun simulate(FleetSetup setup) {
  if (!setup.arrivals)
    throw std::invalid_argument("a fleet needs an arrival process");
  Fleet fleet(std::move(setup));
  return fleet.run();
}

}  // namespace podsim::fleet
