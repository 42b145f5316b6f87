// Simulated time and bandwidth as unit-safe integers.
//
// Time is a signed 64-bit count of picoseconds (range about +-106 days), built
// only through named factories and combined with overflow-checked arithmetic.
// Bandwidth is an integer count of bytes per second. The one place where bytes
// and bandwidth meet, transfer_time(), rounds up through a 128-bit
// intermediate, so no transfer ever takes less time than physics allows and no
// floating point enters event ordering. `double` appears only in reports.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace podsim::sim {

// Thrown when a time or bandwidth computation leaves the representable range.
class TimeOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

namespace detail {
constexpr int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw TimeOverflow("podsim::sim::Time: multiplication overflows 64-bit picoseconds");
  }
  return r;
}
constexpr int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw TimeOverflow("podsim::sim::Time: addition overflows 64-bit picoseconds");
  }
  return r;
}
constexpr int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) {
    throw TimeOverflow("podsim::sim::Time: subtraction overflows 64-bit picoseconds");
  }
  return r;
}
}  // namespace detail

class Time {
 public:
  constexpr Time() = default;

  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(int64_t v) { return Time(detail::checked_mul(v, 1'000)); }
  static constexpr Time us(int64_t v) { return Time(detail::checked_mul(v, 1'000'000)); }
  static constexpr Time ms(int64_t v) { return Time(detail::checked_mul(v, 1'000'000'000)); }
  static constexpr Time s(int64_t v) { return Time(detail::checked_mul(v, 1'000'000'000'000)); }
  // From a (possibly fractional) count of nanoseconds read from an input file,
  // rounded to the nearest picosecond. Throws TimeOverflow when out of range.
  static Time from_ns_rounded(double ns);

  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t count_ps() const { return ps_; }
  // For reports only: never feed these back into event times.
  constexpr double to_ns() const { return static_cast<double>(ps_) * 1e-3; }
  constexpr double to_us() const { return static_cast<double>(ps_) * 1e-6; }
  constexpr double to_s() const { return static_cast<double>(ps_) * 1e-12; }

  constexpr auto operator<=>(const Time&) const = default;

  constexpr Time operator+(Time o) const { return Time(detail::checked_add(ps_, o.ps_)); }
  constexpr Time operator-(Time o) const { return Time(detail::checked_sub(ps_, o.ps_)); }
  constexpr Time& operator+=(Time o) { return *this = *this + o; }
  constexpr Time& operator-=(Time o) { return *this = *this - o; }
  constexpr Time operator*(int64_t k) const { return Time(detail::checked_mul(ps_, k)); }

  // "12.5us", "3ns", "0ps": the largest unit that keeps three decimals exact.
  std::string to_string() const;

 private:
  constexpr explicit Time(int64_t ps) : ps_(ps) {}
  int64_t ps_ = 0;
};

constexpr Time operator*(int64_t k, Time t) {
  return t * k;
}

// Bytes per second, an exact integer (1 GB/s = 1e9 B/s).
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bytes_per_s(uint64_t v) { return Bandwidth(v); }
  // From GB/s (decimal) as written in input files, rounded to the nearest B/s.
  static Bandwidth from_gbps(double gbps);

  constexpr uint64_t bytes_per_s() const { return bps_; }
  constexpr double gbps() const { return static_cast<double>(bps_) * 1e-9; }
  constexpr bool is_zero() const { return bps_ == 0; }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(uint64_t bps) : bps_(bps) {}
  uint64_t bps_ = 0;
};

// Time to move `bytes` at `bw`, rounded up to the next picosecond:
// ceil(bytes * 1e12 / bw). The product is formed in 128 bits, so any byte count
// up to 2^64 - 1 is exact. Throws std::invalid_argument on zero bandwidth and
// TimeOverflow when the result does not fit in Time.
Time transfer_time(uint64_t bytes, Bandwidth bw);

}  // namespace podsim::sim
