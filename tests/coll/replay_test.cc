// ReplayedRun (coll/replay.h): a collective laid onto the analytical network
// from a recording finishes every chip when playing it would, books the
// links as playing would, and is played after all when a chip joins late or
// a link it needs is busy.
#include "coll/replay.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "coll_fixture.h"
#include "net/analytical_network.h"
#include "sim/simulation.h"

namespace podsim::coll {
namespace {

using testing::kMiB;

struct Fixture {
  topo::Pod pod{testing::pod_spec({{4, true}, {4, true}})};
  topo::DeviceMesh mesh = testing::one_axis_per_dim(pod);
  net::Options options = [] {
    net::Options o;
    o.model = net::Model::kAnalytical;
    return o;
  }();
};

// When each chip finished, and the links' stats at the end.
struct Finish {
  std::map<topo::ChipId, sim::Time> done;
  net::LinkStats links;
};

// Plays or replays `plan` `times` times in a row, each started when the last
// has finished; `join_at(chip)` offsets each chip's join within a run; a
// transfer of `busy_bytes` from chip 0 to 1 starts with the first run.
Finish run(const Fixture& f, const Plan& plan, bool replay, int times, ReplayCache* cache,
           sim::Time late = sim::Time::zero(), uint64_t busy_bytes = 0) {
  sim::Simulation sim;
  net::AnalyticalNetwork network(f.pod, f.options);
  ReplayCache own(f.pod, f.options, {});
  ReplayCache& c = cache != nullptr ? *cache : own;
  Finish out;
  struct Sink final : net::TransferSink {
    void delivered(sim::Simulation&, uint64_t) override {}
  } sink;
  std::vector<std::unique_ptr<Run>> runs;
  std::function<void(sim::Simulation&, int)> launch = [&](sim::Simulation& s, int k) {
    if (k == times) {
      return;
    }
    if (replay) {
      runs.push_back(std::make_unique<ReplayedRun>(f.pod, network, plan, 0, ExecutorOptions{}, c));
    } else {
      runs.push_back(std::make_unique<CollectiveRun>(f.pod, network, plan));
    }
    Run& r = *runs.back();
    r.set_on_chip_done(
        [&out](sim::Simulation& s2, topo::ChipId chip) { out.done[chip] = s2.now(); });
    r.set_on_done([&launch, k](sim::Simulation& s2) { launch(s2, k + 1); });
    for (topo::ChipId chip = 0; chip < f.pod.chip_count(); ++chip) {
      if (chip == 5 && late > sim::Time::zero()) {
        s.schedule_in(late, [&r, chip](sim::Simulation& s2) { r.join(s2, chip); });
      } else {
        r.join(s, chip);
      }
    }
    if (k == 0 && busy_bytes > 0) {
      network.start(s, net::Transfer{0, 1, busy_bytes, {}}, sink, 0);
    }
  };
  sim.schedule_at(sim::Time::zero(), [&](sim::Simulation& s) { launch(s, 0); });
  sim.run();
  out.links = network.link_stats(sim);
  return out;
}

void expect_same(const Finish& a, const Finish& b) {
  EXPECT_EQ(a.done, b.done);
  EXPECT_EQ(a.links.bytes, b.links.bytes);
  EXPECT_EQ(a.links.busy, b.links.busy);
}

TEST(Replay, AllReduceOverTwoDimensionsMatchesPlaying) {
  const Fixture f;
  const Plan plan = lower(
      f.pod, f.mesh, testing::collective(config::CollectiveKind::kAllReduce, 8 * kMiB, {"x", "y"}));
  ReplayCache cache(f.pod, f.options, {});
  const Finish replayed = run(f, plan, true, 3, &cache);
  expect_same(run(f, plan, false, 3, nullptr), replayed);
  EXPECT_EQ(cache.recorded(), 1u);  // played once, alone
  EXPECT_EQ(cache.replayed(), 3u);  // laid down three times
}

TEST(Replay, EveryPatternMatchesPlaying) {
  const Fixture f;
  using K = config::CollectiveKind;
  for (const K kind : {K::kAllGather, K::kReduceScatter, K::kAllToAll, K::kBroadcast}) {
    SCOPED_TRACE(to_string(kind));
    const Plan plan = lower(f.pod, f.mesh, testing::collective(kind, 4 * kMiB, {"x"}));
    ReplayCache cache(f.pod, f.options, {});
    expect_same(run(f, plan, false, 2, nullptr), run(f, plan, true, 2, &cache));
    EXPECT_EQ(cache.replayed(), 2u);
  }
}

TEST(Replay, LateChipIsPlayedTransferByTransfer) {
  const Fixture f;
  const Plan plan = lower(f.pod, f.mesh,
                          testing::collective(config::CollectiveKind::kAllReduce, 8 * kMiB, {"x"}));
  ReplayCache cache(f.pod, f.options, {});
  const sim::Time late = sim::Time::us(3);
  expect_same(run(f, plan, false, 2, nullptr, late), run(f, plan, true, 2, &cache, late));
  EXPECT_EQ(cache.replayed(), 0u);
  EXPECT_EQ(cache.recorded(), 0u);  // never all there at once: nothing recorded
}

TEST(Replay, BusyLinkIsPlayedTransferByTransfer) {
  const Fixture f;
  const Plan plan = lower(f.pod, f.mesh,
                          testing::collective(config::CollectiveKind::kAllReduce, 8 * kMiB, {"x"}));
  ReplayCache cache(f.pod, f.options, {});
  // The first run shares link 0 -> 1 with a transfer started at the same
  // instant: played, sharing it; the second finds the links idle again.
  const Finish replayed = run(f, plan, true, 2, &cache, sim::Time::zero(), 64 * kMiB);
  expect_same(run(f, plan, false, 2, nullptr, sim::Time::zero(), 64 * kMiB), replayed);
  EXPECT_EQ(cache.replayed(), 1u);
}

}  // namespace
}  // namespace podsim::coll

namespace podsim::coll {
namespace {

// A run told which chips will join works out routes for them alone, plays
// them as a run over every chip would (here: one ring of the 4x4), and
// refuses any other chip.
TEST(Joiners, NamedJoinersRunAsAlwaysAndOthersAreRefused) {
  const Fixture f;
  const Plan plan = lower(f.pod, f.mesh,
                          testing::collective(config::CollectiveKind::kAllReduce, 8 * kMiB, {"x"}));
  const std::vector<topo::ChipId> ring = {0, 1, 2, 3};
  auto finish = [&](std::span<const topo::ChipId> joiners) {
    sim::Simulation sim;
    net::AnalyticalNetwork network(f.pod, f.options);
    CollectiveRun run(f.pod, network, plan, {}, joiners);
    run.set_participants(4);
    for (const topo::ChipId c : ring) {
      run.join(sim, c);
    }
    sim.run();
    EXPECT_TRUE(run.done());
    return run.end_time();
  };
  EXPECT_EQ(finish(ring), finish({}));
  sim::Simulation sim;
  net::AnalyticalNetwork network(f.pod, f.options);
  CollectiveRun run(f.pod, network, plan, {}, ring);
  EXPECT_THROW(run.join(sim, 5), std::logic_error);
}

}  // namespace
}  // namespace podsim::coll
