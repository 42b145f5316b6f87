#include "fleet/arrivals.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <vector>

#include "config/trace_prefix.h"
#include "fleet/conversations.h"

namespace podsim::fleet {
namespace {

// Seconds (>= 0, finite) to picoseconds, rounded; saturating at Time::max().
sim::Time seconds(double s) {
  const double ps = std::round(s * 1e12);
  if (!(ps < 9.2e18))
    return sim::Time::max();
  return sim::Time::ps(static_cast<int64_t>(ps));
}

// Time + delay without overflow: Time::max() stands for "never".
sim::Time later(sim::Time t, sim::Time d) {
  if (t.count_ps() > sim::Time::max().count_ps() - d.count_ps())
    return sim::Time::max();
  return t + d;
}

// The seed of the lengths' generator: a fixed odd constant (the golden
// ratio's, as splitmix64 uses) mixed in, so the two streams differ.
constexpr uint64_t kLengthSeedMix = 0x9E3779B97F4A7C15ull;

class Synthetic : public ArrivalProcess {
 protected:
  Synthetic(const config::ArrivalSpec& spec, uint64_t seed)
      : gaps_(seed), lengths_(seed ^ kLengthSeedMix), prompt_(spec.prompt), output_(spec.output) {}

  Arrival make(sim::Time t) {
    const uint32_t p = prompt_.draw(lengths_);
    const uint32_t o = output_.draw(lengths_);
    return Arrival{t, p, o, PrefixChains::kRoot, 0};
  }

  Rng gaps_;

 private:
  Rng lengths_;
  LengthSampler prompt_;
  LengthSampler output_;
};

// Renewal process: inter-arrival gaps i.i.d. from gap().
class Renewal final : public Synthetic {
 public:
  Renewal(const config::ArrivalSpec& spec, uint64_t seed) : Synthetic(spec, seed), spec_(spec) {}

  std::optional<Arrival> next() override {
    now_ = later(now_, seconds(gap()));
    if (now_ == sim::Time::max())
      return std::nullopt;
    return make(now_);
  }

 private:
  double gap() {
    const double mean = 1 / spec_.rate_per_s;
    if (spec_.kind == config::ArrivalKind::kPoisson)
      return gaps_.exponential(mean);
    // Gamma with mean m and coefficient of variation c: shape 1 / c^2,
    // scale m c^2.
    const double shape = 1 / (spec_.cv * spec_.cv);
    return gaps_.gamma(shape, mean / shape);
  }

  config::ArrivalSpec spec_;
  sim::Time now_;
};

class ClosedLoop final : public Synthetic {
 public:
  ClosedLoop(const config::ArrivalSpec& spec, uint64_t seed)
      : Synthetic(spec, seed), think_s_(spec.think_time_s) {
    // Every user starts thinking at time 0.
    first_.reserve(spec.users);
    for (uint32_t u = 0; u < spec.users; ++u)
      first_.push_back(think());
    std::sort(first_.begin(), first_.end());
  }

  std::optional<Arrival> next() override {
    if (index_ >= first_.size())
      return std::nullopt;
    return make(first_[index_++]);
  }

  std::optional<Arrival> finished(sim::Time t) override { return make(later(t, think())); }

 private:
  sim::Time think() { return think_s_ > 0 ? seconds(gaps_.exponential(think_s_)) : sim::Time(); }

  double think_s_;
  std::vector<sim::Time> first_;
  size_t index_ = 0;
};

class TraceReplay final : public ArrivalProcess {
 public:
  // Interns every row's prefix once (O(segments) each).
  explicit TraceReplay(std::vector<config::TraceRequest> rows) : rows_(std::move(rows)) {
    std::vector<config::PrefixSegment> segments;
    for (const config::TraceRequest& r : rows_) {
      if (r.prefix.empty())
        continue;
      if (nodes_.empty())
        nodes_.assign(rows_.size(), PrefixChains::kRoot);
      if (const std::string why = config::parse_prefix(r.prefix, segments); !why.empty())
        throw std::invalid_argument("trace prefix \"" + r.prefix + "\": " + why);
      uint32_t node = PrefixChains::kRoot;
      for (const config::PrefixSegment& seg : segments)
        node = chains_.extend(node, chains_.stream(seg.stream), seg.end);
      nodes_[static_cast<size_t>(&r - rows_.data())] = node;
    }
  }

  std::optional<Arrival> next() override {
    if (index_ >= rows_.size())
      return std::nullopt;
    const size_t i = index_++;
    const config::TraceRequest& r = rows_[i];
    return Arrival{r.arrival, r.prompt_tokens, r.output_tokens,
                   nodes_.empty() ? PrefixChains::kRoot : nodes_[i], r.slo_class_index};
  }

  const PrefixChains* prefixes() const override { return nodes_.empty() ? nullptr : &chains_; }

 private:
  std::vector<config::TraceRequest> rows_;
  PrefixChains chains_;
  std::vector<uint32_t> nodes_;  // per row; empty when no row names a prefix
  size_t index_ = 0;
};

}  // namespace

uint32_t LengthSampler::draw(Rng& rng) const {
  switch (spec_.kind) {
    case config::LengthKind::kUniform:
      return static_cast<uint32_t>(rng.uniform_int(spec_.min, spec_.max));
    case config::LengthKind::kExponential: {
      const double x = 1 + std::floor(rng.exponential(std::max(spec_.mean - 1, 1e-9)) + 0.5);
      return static_cast<uint32_t>(std::min(x, static_cast<double>(spec_.max)));
    }
    case config::LengthKind::kFixed:
      break;
  }
  return spec_.min;
}

std::unique_ptr<ArrivalProcess> make_arrival_process(const config::ArrivalSpec& spec,
                                                     uint64_t seed) {
  switch (spec.kind) {
    case config::ArrivalKind::kClosedLoop:
      return std::make_unique<ClosedLoop>(spec, seed);
    case config::ArrivalKind::kTrace:
      return std::make_unique<TraceReplay>(spec.trace);
    case config::ArrivalKind::kConversations:
      return make_conversations(spec.conversations, seed);
    case config::ArrivalKind::kPoisson:
    case config::ArrivalKind::kGamma:
      break;
  }
  return std::make_unique<Renewal>(spec, seed);
}

}  // namespace podsim::fleet
