// One conformance suite over every arrival process (tests of the interface in
// fleet/arrivals.h), plus the distributions' own moments.
#include "fleet/arrivals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace podsim::fleet {
namespace arrivals_test {

// GoogleTest copies each parameter many times while it registers the tests,
// in every run of this executable (CTest starts it once per test): the spec,
// with the trace case's 2,000 requests, is shared rather than copied.
struct Case {
  Case(std::string n, config::ArrivalSpec s, bool is_seeded = true, bool is_open = true)
      : name(std::move(n)),
        shared_spec(std::make_shared<const config::ArrivalSpec>(std::move(s))),
        seeded(is_seeded),
        open(is_open) {}
  const config::ArrivalSpec& spec() const { return *shared_spec; }

  std::string name;
  std::shared_ptr<const config::ArrivalSpec> shared_spec;
  bool seeded;  // different seeds give different streams
  bool open;    // next() alone gives the whole stream at the spec's rate
};

config::LengthSpec uniform(uint32_t lo, uint32_t hi) {
  config::LengthSpec l;
  l.kind = config::LengthKind::kUniform;
  l.min = lo;
  l.max = hi;
  return l;
}

config::LengthSpec exponential(double mean, uint32_t max) {
  config::LengthSpec l;
  l.kind = config::LengthKind::kExponential;
  l.min = 1;
  l.max = max;
  l.mean = mean;
  return l;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  config::ArrivalSpec poisson;
  poisson.kind = config::ArrivalKind::kPoisson;
  poisson.rate_per_s = 50;
  poisson.prompt = uniform(10, 20);
  poisson.output = exponential(30, 200);
  out.push_back({"poisson", poisson});
  config::ArrivalSpec gamma = poisson;
  gamma.kind = config::ArrivalKind::kGamma;
  gamma.cv = 3;
  out.push_back({"gamma_bursty", gamma});
  config::ArrivalSpec smooth = gamma;
  smooth.cv = 0.3;
  out.push_back({"gamma_smooth", smooth});
  config::ArrivalSpec closed = poisson;
  closed.kind = config::ArrivalKind::kClosedLoop;
  closed.users = 2000;
  closed.think_time_s = 40;  // 2000 users / 40 s = 50 per s at first
  out.push_back({"closed_loop", closed, true, false});
  config::ArrivalSpec trace;
  trace.kind = config::ArrivalKind::kTrace;
  for (int i = 0; i < 2000; ++i)
    trace.trace.push_back(
        config::TraceRequest{sim::Time::ms(20 * i), uint32_t(10 + i % 11), uint32_t(1 + i % 200)});
  out.push_back({"trace", trace, false, true});
  return out;
}

std::vector<Arrival> draw(const Case& c, uint64_t seed, size_t n) {
  auto p = make_arrival_process(c.spec(), seed);
  std::vector<Arrival> out;
  while (out.size() < n) {
    auto a = p->next();
    if (!a)
      break;
    out.push_back(*a);
  }
  return out;
}

class ArrivalConformance : public ::testing::TestWithParam<Case> {};

TEST_P(ArrivalConformance, SameSeedSameStream) {
  const auto a = draw(GetParam(), 42, 1000);
  const auto b = draw(GetParam(), 42, 1000);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].time, b[i].time) << i;
    EXPECT_EQ(a[i].prompt_tokens, b[i].prompt_tokens) << i;
    EXPECT_EQ(a[i].output_tokens, b[i].output_tokens) << i;
  }
}

TEST_P(ArrivalConformance, OtherSeedOtherStreamWhenSeeded) {
  const auto a = draw(GetParam(), 1, 100);
  const auto b = draw(GetParam(), 2, 100);
  bool differ = false;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    differ |= a[i].time != b[i].time || a[i].prompt_tokens != b[i].prompt_tokens;
  EXPECT_EQ(differ, GetParam().seeded);
}

TEST_P(ArrivalConformance, TimesNeverGoBackAndLengthsStayInRange) {
  const Case& c = GetParam();
  const auto a = draw(c, 7, 2000);
  sim::Time last;
  for (const Arrival& x : a) {
    EXPECT_GE(x.time, last);
    last = x.time;
    EXPECT_GE(x.prompt_tokens, 1u);
    EXPECT_GE(x.output_tokens, 1u);
    if (c.spec().kind != config::ArrivalKind::kTrace) {
      EXPECT_GE(x.prompt_tokens, c.spec().prompt.min);
      EXPECT_LE(x.prompt_tokens, c.spec().prompt.max);
      EXPECT_LE(x.output_tokens, c.spec().output.max);
    }
  }
}

TEST_P(ArrivalConformance, OpenProcessesKeepTheirRate) {
  const Case& c = GetParam();
  if (!c.open)
    GTEST_SKIP() << "a closed loop's rate depends on its service";
  const auto a = draw(c, 11, 20000);
  ASSERT_GE(a.size(), 2000u);
  const double rate = static_cast<double>(a.size() - 1) / (a.back().time - a.front().time).to_s();
  const double want = c.spec().kind == config::ArrivalKind::kTrace ? 50.0 : c.spec().rate_per_s;
  // 20000 gaps of cv 3: the mean gap's relative standard error is 3 / sqrt(20000) = 2.1%.
  EXPECT_NEAR(rate, want, want * 0.08);
}

TEST_P(ArrivalConformance, FinishedFeedsOnlyTheClosedLoop) {
  const Case& c = GetParam();
  auto p = make_arrival_process(c.spec(), 3);
  (void)p->next();
  const auto more = p->finished(sim::Time::s(5));
  EXPECT_EQ(more.has_value(), c.spec().kind == config::ArrivalKind::kClosedLoop);
  if (more) {
    EXPECT_GE(more->time, sim::Time::s(5));
  }
}

INSTANTIATE_TEST_SUITE_P(Processes, ArrivalConformance, ::testing::ValuesIn(cases()),
                         [](const auto& p) { return p.param.name; });

TEST(ArrivalMoments, GammaGapsHaveTheirCoefficientOfVariation) {
  for (double cv : {0.5, 1.0, 2.0, 4.0}) {
    config::ArrivalSpec s = cases()[0].spec();
    s.kind = config::ArrivalKind::kGamma;
    s.cv = cv;
    auto p = make_arrival_process(s, 5);
    std::vector<double> gaps;
    sim::Time last;
    for (int i = 0; i < 200000; ++i) {
      const Arrival a = *p->next();
      gaps.push_back((a.time - last).to_s());
      last = a.time;
    }
    double mean = 0;
    for (double g : gaps)
      mean += g;
    mean /= static_cast<double>(gaps.size());
    double var = 0;
    for (double g : gaps)
      var += (g - mean) * (g - mean);
    var /= static_cast<double>(gaps.size());
    EXPECT_NEAR(mean, 1.0 / 50, 0.03 / 50) << cv;
    EXPECT_NEAR(std::sqrt(var) / mean, cv, 0.05 * cv) << cv;
  }
}

TEST(ArrivalMoments, LengthsHaveTheirMeans) {
  Rng rng(9);
  const LengthSampler u(uniform(10, 20));
  const LengthSampler e(exponential(300, 1000000));
  double su = 0;
  double se = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    su += u.draw(rng);
    se += e.draw(rng);
  }
  EXPECT_NEAR(su / n, 15, 0.05);
  EXPECT_NEAR(se / n, 300, 3);
}

// The generator is std::mt19937_64, whose 10000th output the standard fixes
// ([rand.predef]); our uniform() is its top 53 bits.
TEST(FleetRng, IsTheStandardsMersenneTwister) {
  std::mt19937_64 e;  // default seed 5489
  e.discard(9999);
  EXPECT_EQ(e(), 9981545732273789042ull);
  Rng r(5489);
  EXPECT_DOUBLE_EQ(r.uniform(), static_cast<double>(std::mt19937_64(5489)() >> 11) * 0x1.0p-53);
}

}  // namespace arrivals_test
}  // namespace podsim::fleet
