#include "fleet/conversations.h"

#include <cmath>
#include <queue>
#include <vector>

namespace podsim::fleet {
namespace {

// Seconds (>= 0, finite) to picoseconds, rounded; saturating at Time::max().
sim::Time conversation_seconds(double s) {
  const double ps = std::round(s * 1e12);
  if (!(ps < 9.2e18))
    return sim::Time::max();
  return sim::Time::ps(static_cast<int64_t>(ps));
}

sim::Time conversation_later(sim::Time t, sim::Time d) {
  if (t.count_ps() > sim::Time::max().count_ps() - d.count_ps())
    return sim::Time::max();
  return t + d;
}

// As arrivals.cc mixes its lengths' seed (splitmix64's constant).
constexpr uint64_t kConversationLengthSeedMix = 0x9E3779B97F4A7C15ull;

class Conversations final : public ArrivalProcess {
 public:
  Conversations(const config::ConversationSpec& spec, uint64_t seed)
      : spec_(spec),
        gaps_(seed),
        lengths_(seed ^ kConversationLengthSeedMix),
        system_tokens_(spec.system_prompt_tokens),
        turns_(spec.turns),
        user_(spec.user_tokens),
        output_(spec.output_tokens) {
    for (uint32_t k = 0; k < spec.system_prompts; ++k) {
      const uint32_t len = system_tokens_.draw(lengths_);
      systems_.push_back(
          System{chains_.extend(PrefixChains::kRoot, chains_.new_stream(), len), len});
    }
    next_start_ = gap(1 / spec.rate_per_s);
  }

  std::optional<Arrival> next() override {
    while (true) {
      Live c;
      if (!live_.empty() && live_.top().time < next_start_) {
        c = live_.top();
        live_.pop();
      } else {
        if (next_start_ == sim::Time::max())
          return std::nullopt;
        c = start(next_start_);
        next_start_ = conversation_later(next_start_, gap(1 / spec_.rate_per_s));
      }
      const uint32_t user = user_.draw(lengths_);
      const uint32_t out = output_.draw(lengths_);
      const uint64_t prompt = uint64_t{c.history} + user;
      if (prompt > config::kMaxRequestTokens)
        continue;  // the conversation outgrew a request: it ends
      const Arrival a{c.time, static_cast<uint32_t>(prompt), out, c.node, {}};
      if (--c.turns_left > 0) {
        c.history = static_cast<uint32_t>(prompt + out);
        c.time = conversation_later(c.time, gap(spec_.think_time_s));
        live_.push(c);
      }
      return a;
    }
  }

  const PrefixChains* prefixes() const override { return &chains_; }

 private:
  struct System {
    uint32_t node = PrefixChains::kRoot;
    uint32_t tokens = 0;
  };
  // A conversation's next turn.
  struct Live {
    sim::Time time;
    uint64_t id = 0;    // order of arrival: breaks ties in time
    uint32_t node = 0;  // its prefix chain: system prompt, then its own stream
    uint32_t history = 0;
    uint32_t turns_left = 0;
  };
  struct Later {
    bool operator()(const Live& a, const Live& b) const {
      return a.time != b.time ? a.time > b.time : a.id > b.id;
    }
  };

  Live start(sim::Time t) {
    const System& sys = systems_[rng_index(systems_.size())];
    Live c;
    c.time = t;
    c.id = started_++;
    c.node = chains_.extend(sys.node, chains_.new_stream(), PrefixChains::kOpenEnd);
    c.history = sys.tokens;
    c.turns_left = turns_.draw(lengths_);
    return c;
  }

  size_t rng_index(size_t n) { return static_cast<size_t>(lengths_.uniform_int(0, n - 1)); }

  sim::Time gap(double mean_s) {
    return mean_s > 0 ? conversation_seconds(gaps_.exponential(mean_s)) : sim::Time();
  }

  config::ConversationSpec spec_;
  Rng gaps_;
  Rng lengths_;
  LengthSampler system_tokens_;
  LengthSampler turns_;
  LengthSampler user_;
  LengthSampler output_;
  PrefixChains chains_;
  std::vector<System> systems_;
  std::priority_queue<Live, std::vector<Live>, Later> live_;
  sim::Time next_start_;
  uint64_t started_ = 0;
};

}  // namespace

std::unique_ptr<ArrivalProcess> make_conversations(const config::ConversationSpec& spec,
                                                   uint64_t seed) {
  return std::make_unique<Conversations>(spec, seed);
}

}  // namespace podsim::fleet
