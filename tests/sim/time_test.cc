#include "sim/time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace podsim::sim {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(TimeTest, NamedConstructorsCountPicoseconds) {
  EXPECT_EQ(Time::ps(7).count_ps(), 7);
  EXPECT_EQ(Time::ns(3).count_ps(), 3'000);
  EXPECT_EQ(Time::us(2).count_ps(), 2'000'000);
  EXPECT_EQ(Time::ms(5).count_ps(), 5'000'000'000);
  EXPECT_EQ(Time::s(4).count_ps(), 4'000'000'000'000);
  EXPECT_EQ(Time::ns(-1).count_ps(), -1'000);
  EXPECT_EQ(Time().count_ps(), 0);
  EXPECT_EQ(Time::zero(), Time::ps(0));
  EXPECT_EQ(Time::max().count_ps(), kMax);
}

TEST(TimeTest, ConstructorsThrowOutsideTheRange) {
  // 2^63 ps is about 9'223'372.04 s.
  EXPECT_EQ(Time::s(9'223'372).count_ps(), 9'223'372'000'000'000'000);
  EXPECT_THROW(Time::s(9'223'373), TimeOverflow);
  EXPECT_THROW(Time::s(-9'223'373), TimeOverflow);
  EXPECT_THROW(Time::ms(kMax / 1'000'000'000 + 1), TimeOverflow);
  EXPECT_THROW(Time::us(kMax), TimeOverflow);
  EXPECT_THROW(Time::ns(kMin), TimeOverflow);
}

TEST(TimeTest, ArithmeticAndComparison) {
  EXPECT_EQ(Time::ns(1) + Time::ps(500), Time::ps(1'500));
  EXPECT_EQ(Time::us(1) - Time::ns(1), Time::ps(999'000));
  EXPECT_EQ(Time::ns(2) * 3, Time::ns(6));
  EXPECT_EQ(3 * Time::ns(2), Time::ns(6));
  Time t = Time::ns(1);
  t += Time::ns(2);
  EXPECT_EQ(t, Time::ns(3));
  t -= Time::ns(5);
  EXPECT_EQ(t, Time::ns(-2));
  EXPECT_LT(Time::ps(999), Time::ns(1));
  EXPECT_GT(Time::us(1), Time::ns(999));
}

TEST(TimeTest, CheckedArithmeticThrowsOnOverflow) {
  EXPECT_THROW(Time::max() + Time::ps(1), TimeOverflow);
  EXPECT_THROW(Time::ps(kMin) - Time::ps(1), TimeOverflow);
  EXPECT_THROW(Time::ps(kMin) + Time::ps(-1), TimeOverflow);
  EXPECT_THROW(Time::max() - Time::ps(-1), TimeOverflow);
  EXPECT_THROW(Time::ns(1) * kMax, TimeOverflow);
  EXPECT_THROW(Time::ps(-1) * kMin, TimeOverflow);
  Time t = Time::max();
  EXPECT_THROW(t += Time::ps(1), TimeOverflow);
  EXPECT_EQ(t, Time::max());  // unchanged after the failed operation
  // The boundaries themselves are representable.
  EXPECT_EQ((Time::max() - Time::ps(1)) + Time::ps(1), Time::max());
  EXPECT_EQ(Time::ps(kMin + 1) - Time::ps(1), Time::ps(kMin));
}

TEST(TimeTest, FromNsRoundedRoundsToNearestPicosecond) {
  EXPECT_EQ(Time::from_ns_rounded(2.5), Time::ps(2'500));
  EXPECT_EQ(Time::from_ns_rounded(0.0004), Time::ps(0));
  EXPECT_EQ(Time::from_ns_rounded(0.0006), Time::ps(1));
  EXPECT_EQ(Time::from_ns_rounded(-1.25), Time::ps(-1'250));
  EXPECT_THROW(Time::from_ns_rounded(1e20), TimeOverflow);
  EXPECT_THROW(Time::from_ns_rounded(-1e20), TimeOverflow);
  EXPECT_THROW(Time::from_ns_rounded(std::numeric_limits<double>::quiet_NaN()), TimeOverflow);
  EXPECT_THROW(Time::from_ns_rounded(std::numeric_limits<double>::infinity()), TimeOverflow);
}

TEST(TimeTest, ToStringPicksTheLargestUnit) {
  EXPECT_EQ(Time::ps(0).to_string(), "0ps");
  EXPECT_EQ(Time::ps(999).to_string(), "999ps");
  EXPECT_EQ(Time::ns(3).to_string(), "3.000ns");
  EXPECT_EQ((Time::us(12) + Time::ns(500)).to_string(), "12.500us");
  EXPECT_EQ(Time::ms(-2).to_string(), "-2.000ms");
  EXPECT_EQ(Time::s(90).to_string(), "90.000s");
  // The most negative value has no positive counterpart; it must still print.
  EXPECT_EQ(Time::ps(kMin).to_string(), "-9223372.037s");
}

TEST(BandwidthTest, FromGbpsIsDecimal) {
  EXPECT_EQ(Bandwidth::from_gbps(45).bytes_per_s(), 45'000'000'000u);
  EXPECT_EQ(Bandwidth::from_gbps(0.5).bytes_per_s(), 500'000'000u);
  EXPECT_DOUBLE_EQ(Bandwidth::bytes_per_s(100'000'000'000).gbps(), 100.0);
  EXPECT_TRUE(Bandwidth().is_zero());
  EXPECT_THROW(Bandwidth::from_gbps(-1), TimeOverflow);
  EXPECT_THROW(Bandwidth::from_gbps(1e11), TimeOverflow);  // 1e20 B/s > 2^64
}

TEST(TransferTimeTest, RoundsUpToTheNextPicosecond) {
  // 1e12 / 3 = 333'333'333'333.33... ps
  EXPECT_EQ(transfer_time(1, Bandwidth::bytes_per_s(3)), Time::ps(333'333'333'334));
  // Exact quotients are not rounded: 1000 B at 1 GB/s is 1 us.
  EXPECT_EQ(transfer_time(1'000, Bandwidth::from_gbps(1)), Time::us(1));
  EXPECT_EQ(transfer_time(0, Bandwidth::bytes_per_s(1)), Time::zero());
  // 1 GiB at 45 GB/s: 2^30 * 1e12 / 45e9 = 23'860'929'422.2 ps.
  EXPECT_EQ(transfer_time(uint64_t{1} << 30, Bandwidth::from_gbps(45)), Time::ps(23'860'929'423));
  // One byte over the fastest representable link still takes a picosecond.
  EXPECT_EQ(transfer_time(1, Bandwidth::bytes_per_s(std::numeric_limits<uint64_t>::max())),
            Time::ps(1));
}

TEST(TransferTimeTest, Uses128BitIntermediates) {
  const uint64_t max_bytes = std::numeric_limits<uint64_t>::max();
  // (2^64 - 1) * 1e12 overflows 64 bits; divided by the same bandwidth it is 1 s.
  EXPECT_EQ(transfer_time(max_bytes, Bandwidth::bytes_per_s(max_bytes)), Time::s(1));
  // At 1e12 B/s a byte takes exactly 1 ps, so the largest Time is reachable...
  EXPECT_EQ(transfer_time(static_cast<uint64_t>(kMax), Bandwidth::bytes_per_s(1'000'000'000'000)),
            Time::max());
  // ...and one byte more is not.
  EXPECT_THROW(transfer_time(uint64_t{1} << 63, Bandwidth::bytes_per_s(1'000'000'000'000)),
               TimeOverflow);
}

TEST(TransferTimeTest, SixtyFourBitFastPathAgreesAtItsBoundary) {
  // Byte counts up to 2^64 / 1e12 = 18'446'744 take a 64-bit path, larger ones
  // 128 bits; both must round up the same way. Expected values by hand:
  // ceil(b * 1e12 / 3) for b = 18'446'744 and 18'446'745.
  EXPECT_EQ(transfer_time(18'446'744, Bandwidth::bytes_per_s(3)),
            Time::ps(6'148'914'666'666'666'667));
  EXPECT_EQ(transfer_time(18'446'745, Bandwidth::bytes_per_s(3)),
            Time::ps(6'148'915'000'000'000'000));
  // A small transfer whose time would not fit in int64 still throws.
  EXPECT_THROW(transfer_time(10'000'000, Bandwidth::bytes_per_s(1)), TimeOverflow);
}

TEST(TransferTimeTest, OverflowAndZeroBandwidthThrow) {
  EXPECT_THROW(transfer_time(uint64_t{1} << 63, Bandwidth::bytes_per_s(1)), TimeOverflow);
  EXPECT_THROW(transfer_time(1, Bandwidth()), std::invalid_argument);
  EXPECT_THROW(transfer_time(0, Bandwidth::bytes_per_s(0)), std::invalid_argument);
}

}  // namespace
}  // namespace podsim::sim
