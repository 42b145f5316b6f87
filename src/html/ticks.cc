#include "html/ticks.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace podsim::html {

namespace {

// A step of 1, 2 or 5 x 10^k: the smallest one that covers `span` in
// `intervals` intervals.
double nice_step(double span, int intervals) {
  const double raw = span / intervals;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-12)) {
      return m * power;
    }
  }
  return 10 * power;
}

std::string chars(double v, std::chars_format format, int precision) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, format, precision);
  return std::string(buf.data(), r.ptr);
}

}  // namespace

Ticks nice_ticks(double lo, double hi, int max_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi) {
    std::swap(lo, hi);
  }
  if (hi - lo <= std::abs(hi) * 1e-12) {
    const double pad = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
    lo = lo == 0 ? 0.0 : lo - pad;
    hi = hi + pad;
  }
  max_ticks = std::max(max_ticks, 1);
  Ticks t;
  t.step = nice_step(hi - lo, max_ticks);
  // Widen while rounding out leaves more intervals than allowed.
  for (;;) {
    t.lo = std::floor(lo / t.step + 1e-9) * t.step;
    t.hi = std::ceil(hi / t.step - 1e-9) * t.step;
    if (std::llround((t.hi - t.lo) / t.step) <= max_ticks) {
      break;
    }
    t.step = nice_step(t.step * 1.0001, 1);
  }
  const long long n = std::llround((t.hi - t.lo) / t.step);
  for (long long i = 0; i <= n; ++i) {
    // Multiply rather than accumulate, so 0.1 + 0.1 + 0.1 does not drift.
    t.values.push_back((std::llround(t.lo / t.step) + i) * t.step);
  }
  return t;
}

std::string tick_label(double v, double step) {
  if (std::abs(v) < step * 1e-9) {
    return "0";
  }
  if (std::abs(v) >= 1e6 || std::abs(v) < 1e-4) {
    return chars(v, std::chars_format::general, 6);
  }
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return chars(v, std::chars_format::fixed, std::min(decimals, 9));
}

std::string coord(double v) {
  const double r = std::round(v * 10) / 10;
  if (r == 0 || !std::isfinite(r)) {
    return "0";
  }
  if (r == std::round(r)) {
    return chars(r, std::chars_format::fixed, 0);
  }
  return chars(r, std::chars_format::fixed, 1);
}

std::string figure(double v) {
  if (!std::isfinite(v)) {
    return "-";
  }
  if (v == 0) {
    return "0";
  }
  if (std::abs(v) >= 99999.5) {
    return chars(v, std::chars_format::general, 4);
  }
  // Up to 4 significant digits, without trailing zeros: 3.273, 91.65, 12000.
  const int digits = static_cast<int>(std::floor(std::log10(std::abs(v)))) + 1;
  const int decimals = std::clamp(4 - digits, 0, 9);
  std::string s = chars(v, std::chars_format::fixed, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') {
      s.pop_back();
    }
    if (s.back() == '.') {
      s.pop_back();
    }
  }
  return s == "-0" ? "0" : s;
}

}  // namespace podsim::html
