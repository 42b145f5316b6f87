// Search evaluations as bytes between ranks (search/distributed.h): exact
// both ways, and bytes that are not an evaluation are refused.
#include "search/distributed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace podsim::search {
namespace {

TEST(Distributed, EvaluationRoundTripsBitForBit) {
  Evaluation e;
  e.status = Status::kOom;
  e.reason = std::string("needs 17 GiB\0of 16", 18);
  e.step_time_us = 1.0 / 3.0;
  e.latency_us = std::nextafter(2.0, 3.0);
  e.tokens_per_s_per_chip = 1e300;
  e.mfu = std::numeric_limits<double>::denorm_min();
  e.hbm_used_bytes = ~uint64_t{0};
  e.bound_latency_us = 5.0 / 7.0;
  e.bound_tokens_per_s_per_chip = std::numeric_limits<double>::infinity();
  e.out_of_step = true;
  e.energy_modelled = true;
  e.j_per_token = 0.1;
  e.tokens_per_j = 1.0 / 0.1;
  e.mean_power_w = 1e4 / 3;
  e.priced = true;
  e.usd_per_m_tokens = 2.5e-3;
  e.gco2e_per_m_tokens = 7.0 / 3.0;
  const Evaluation back = decode(encode(e));
  EXPECT_EQ(back.status, e.status);
  EXPECT_EQ(back.reason, e.reason);
  EXPECT_EQ(back.step_time_us, e.step_time_us);
  EXPECT_EQ(back.latency_us, e.latency_us);
  EXPECT_EQ(back.tokens_per_s_per_chip, e.tokens_per_s_per_chip);
  EXPECT_EQ(back.mfu, e.mfu);
  EXPECT_EQ(back.hbm_used_bytes, e.hbm_used_bytes);
  EXPECT_EQ(back.bound_latency_us, e.bound_latency_us);
  EXPECT_EQ(back.bound_tokens_per_s_per_chip, e.bound_tokens_per_s_per_chip);
  EXPECT_EQ(back.out_of_step, e.out_of_step);
  EXPECT_EQ(back.energy_modelled, e.energy_modelled);
  EXPECT_EQ(back.j_per_token, e.j_per_token);
  EXPECT_EQ(back.tokens_per_j, e.tokens_per_j);
  EXPECT_EQ(back.mean_power_w, e.mean_power_w);
  EXPECT_EQ(back.priced, e.priced);
  EXPECT_EQ(back.usd_per_m_tokens, e.usd_per_m_tokens);
  EXPECT_EQ(back.gco2e_per_m_tokens, e.gco2e_per_m_tokens);
}

TEST(Distributed, BytesThatAreNotAnEvaluationAreRefused) {
  const std::string bytes = encode(Evaluation{});
  EXPECT_THROW(decode(bytes.substr(0, 10)), std::runtime_error);
  std::string bad = bytes;
  bad[0] = 9;  // no such status
  EXPECT_THROW(decode(bad), std::runtime_error);
}

}  // namespace
}  // namespace podsim::search
