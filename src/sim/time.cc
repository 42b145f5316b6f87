#include "sim/time.h"

#include <cmath>
#include <cstdio>

namespace podsim::sim {

Time Time::from_ns_rounded(double ns) {
  const double ps = std::round(ns * 1e3);
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  if (!std::isfinite(ps) || ps >= 9.223372036854775808e18 || ps < -9.223372036854775808e18) {
    throw TimeOverflow("podsim::sim::Time: " + std::to_string(ns) + " ns is out of range");
  }
  return Time(static_cast<int64_t>(ps));
}

std::string Time::to_string() const {
  struct Unit {
    int64_t ps;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {1'000'000'000'000, "s"}, {1'000'000'000, "ms"}, {1'000'000, "us"}, {1'000, "ns"}};
  // Magnitude in unsigned arithmetic: -ps_ would overflow for the minimum value.
  const uint64_t mag = ps_ < 0 ? 0 - static_cast<uint64_t>(ps_) : static_cast<uint64_t>(ps_);
  for (const auto& u : kUnits) {
    if (mag >= static_cast<uint64_t>(u.ps)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f%s", static_cast<double>(ps_) / static_cast<double>(u.ps),
                    u.name);
      return buf;
    }
  }
  return std::to_string(ps_) + "ps";
}

Bandwidth Bandwidth::from_gbps(double gbps) {
  const double bps = std::round(gbps * 1e9);
  if (!std::isfinite(bps) || bps < 0 || bps >= 1.8446744073709552e19) {
    throw TimeOverflow("podsim::sim::Bandwidth: " + std::to_string(gbps) + " GB/s is out of range");
  }
  return Bandwidth(static_cast<uint64_t>(bps));
}

Time transfer_time(uint64_t bytes, Bandwidth bw) {
  if (bw.is_zero()) {
    throw std::invalid_argument("podsim::sim::transfer_time: zero bandwidth");
  }
  // Fast path: below 2^64 / 1e12 bytes (about 18 MB) the product fits in 64
  // bits, and a 64-bit division is several times cheaper than a 128-bit one.
  // The result is the same either way.
  constexpr uint64_t kPsPerS = 1'000'000'000'000u;
  if (bytes <= std::numeric_limits<uint64_t>::max() / kPsPerS) {
    const uint64_t num = bytes * kPsPerS;
    const uint64_t den = bw.bytes_per_s();
    const uint64_t ps = num / den + (num % den != 0 ? 1 : 0);
    if (ps <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Time::ps(static_cast<int64_t>(ps));
    }
  }
  __extension__ using u128 = unsigned __int128;  // GCC and Clang; silences -Wpedantic
  const u128 num = static_cast<u128>(bytes) * 1'000'000'000'000u;
  const u128 den = bw.bytes_per_s();
  const u128 ps = (num + den - 1) / den;
  if (ps > static_cast<u128>(std::numeric_limits<int64_t>::max())) {
    throw TimeOverflow("podsim::sim::transfer_time: " + std::to_string(bytes) + " bytes at " +
                       std::to_string(bw.bytes_per_s()) + " B/s overflows 64-bit picoseconds");
  }
  return Time::ps(static_cast<int64_t>(ps));
}

}  // namespace podsim::sim
