#include "fleet/capacity_lookahead.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>

#include "fleet/engine_oracle.h"
#include "sim/work_budget.h"

namespace podsim::fleet {
namespace {

// Where the search stands (the loops of the sequential search, unrolled).
struct SearchState {
  enum class Phase { kStart, kUp, kDown, kBisect, kDone };
  Phase phase = Phase::kStart;
  double lo = 0;  // meets the target
  double hi = 0;  // does not
  int doublings = 0;
  size_t runs = 0;
  bool bracketed = false;
};

// Moves `s` to kDone when it may probe no more.
void settle(SearchState& s, const CapacityOptions& o) {
  const bool budget = s.runs < o.max_runs;
  switch (s.phase) {
    case SearchState::Phase::kStart:
      return;
    case SearchState::Phase::kUp:
      if (s.doublings < 30 && budget && s.lo * 2 <= o.max_rate)
        return;
      break;
    case SearchState::Phase::kDown:
      if (s.doublings < 30 && budget && s.hi / 2 >= o.min_rate)
        return;
      break;
    case SearchState::Phase::kBisect:
      if ((s.hi - s.lo) / s.hi > o.relative_tolerance && budget)
        return;
      s.bracketed = (s.hi - s.lo) / s.hi <= o.relative_tolerance;
      break;
    case SearchState::Phase::kDone:
      return;
  }
  s.phase = SearchState::Phase::kDone;
}

double probe_rate(const SearchState& s, double start) {
  switch (s.phase) {
    case SearchState::Phase::kStart:
      return start;
    case SearchState::Phase::kUp:
      return s.lo * 2;
    case SearchState::Phase::kDown:
      return s.hi / 2;
    case SearchState::Phase::kBisect:
    case SearchState::Phase::kDone:
      break;
  }
  return (s.lo + s.hi) / 2;
}

// The state after the probe of `s` (not done) met the target or not.
SearchState advance(SearchState s, bool ok, double start, const CapacityOptions& o) {
  const double rate = probe_rate(s, start);
  ++s.runs;
  switch (s.phase) {
    case SearchState::Phase::kStart:
      (ok ? s.lo : s.hi) = start;
      s.phase = ok ? SearchState::Phase::kUp : SearchState::Phase::kDown;
      break;
    case SearchState::Phase::kUp:
      if (ok) {
        s.lo = rate;
        ++s.doublings;
      } else {
        s.hi = rate;
        s.phase = SearchState::Phase::kBisect;
      }
      break;
    case SearchState::Phase::kDown:
      if (ok) {
        s.lo = rate;
        s.phase = SearchState::Phase::kBisect;
      } else {
        s.hi = rate;
        ++s.doublings;
      }
      break;
    case SearchState::Phase::kBisect:
      (ok ? s.lo : s.hi) = rate;
      break;
    case SearchState::Phase::kDone:
      return s;
  }
  settle(s, o);
  return s;
}

// The next rates to measure: the one `s` needs now (not yet measured),
// then its decision tree breadth first, up to `width` distinct unmeasured.
std::vector<double> lookahead(const SearchState& s, double start, const CapacityOptions& o,
                              const std::map<double, Probe>& measured, size_t width) {
  std::vector<double> rates;
  std::deque<SearchState> queue{s};
  for (size_t visited = 0; !queue.empty() && rates.size() < width && visited < 64 * width + 64;
       ++visited) {
    const SearchState t = queue.front();
    queue.pop_front();
    if (t.phase == SearchState::Phase::kDone)
      continue;
    const double r = probe_rate(t, start);
    if (measured.count(r) == 0 && std::find(rates.begin(), rates.end(), r) == rates.end())
      rates.push_back(r);
    queue.push_back(advance(t, true, start, o));
    queue.push_back(advance(t, false, start, o));
  }
  return rates;
}

template <class T>
void put_raw(std::string& out, const T& v) {
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  out.append(raw, sizeof(T));
}

template <class T>
T take_raw(const std::string& in, size_t& at) {
  if (in.size() - at < sizeof(T))
    throw std::runtime_error("capacity: a probe from another rank is cut short");
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

}  // namespace

CapacityResult search_capacity_batched(double start, const BatchMeasure& measure,
                                       const CapacityOptions& options, size_t width) {
  if (!(start > 0) || !std::isfinite(start))
    throw std::invalid_argument("the capacity search needs a starting rate > 0");
  if (width == 0)
    width = 1;
  std::map<double, Probe> measured;
  CapacityResult result;
  SearchState s;
  settle(s, options);
  while (s.phase != SearchState::Phase::kDone) {
    const double rate = probe_rate(s, start);
    auto it = measured.find(rate);
    if (it == measured.end()) {
      const std::vector<double> rates = lookahead(s, start, options, measured, width);
      const std::vector<Probe> probes = measure(rates);
      if (probes.size() != rates.size())
        throw std::logic_error("capacity: a batch of probes came back short");
      for (size_t k = 0; k < rates.size(); ++k)
        measured[rates[k]] = probes[k];
      it = measured.find(rate);
    }
    const Probe& p = it->second;
    rethrow_error(p);
    CapacityRun run = p.run;
    run.rate_per_s = rate;
    result.runs.push_back(run);
    s = advance(s, run.ok, start, options);
  }
  result.rate_per_s = s.lo;  // 0: never met
  result.bracketed = s.bracketed;
  return result;
}

void keep_current_error(Probe& p) {
  using Limit = sim::WorkLimitExceeded::Limit;
  try {
    throw;
  } catch (const StepError& e) {
    p.error = Probe::Error::kStep;
    p.message = e.what();
  } catch (const sim::WorkLimitExceeded& e) {
    p.error = e.limit() == Limit::kEvents   ? Probe::Error::kEvents
              : e.limit() == Limit::kMemory ? Probe::Error::kMemory
                                            : Probe::Error::kWallTime;
    p.message = e.what();
  } catch (const std::invalid_argument& e) {
    p.error = Probe::Error::kInvalidArgument;
    p.message = e.what();
  } catch (const std::exception& e) {
    p.error = Probe::Error::kOther;
    p.message = e.what();
  }
}

void rethrow_error(const Probe& p) {
  using Limit = sim::WorkLimitExceeded::Limit;
  switch (p.error) {
    case Probe::Error::kNone:
      return;
    case Probe::Error::kStep:
      throw StepError(p.message);
    case Probe::Error::kInvalidArgument:
      throw std::invalid_argument(p.message);
    case Probe::Error::kOther:
      throw std::runtime_error(p.message);
    case Probe::Error::kEvents:
      throw sim::WorkLimitExceeded(Limit::kEvents, p.message);
    case Probe::Error::kMemory:
      throw sim::WorkLimitExceeded(Limit::kMemory, p.message);
    case Probe::Error::kWallTime:
      throw sim::WorkLimitExceeded(Limit::kWallTime, p.message);
  }
}

std::string encode_probe(const Probe& p) {
  std::string out;
  put_raw<uint8_t>(out, static_cast<uint8_t>(p.error));
  put_raw<double>(out, p.run.rate_per_s);
  put_raw<double>(out, p.run.ttft_s);
  put_raw<double>(out, p.run.tpot_s);
  put_raw<double>(out, p.run.tbt_s);
  put_raw<uint64_t>(out, p.run.completed);
  put_raw<uint64_t>(out, p.run.rejected);
  put_raw<uint8_t>(out, p.run.ok ? 1 : 0);
  put_raw<uint8_t>(out, p.run.energy_modelled ? 1 : 0);
  put_raw<double>(out, p.run.j_per_output_token);
  put_raw<uint8_t>(out, p.run.priced ? 1 : 0);
  put_raw<double>(out, p.run.usd_per_m_output_tokens);
  out += p.message;  // the rest
  return out;
}

Probe decode_probe(const std::string& bytes) {
  Probe p;
  size_t at = 0;
  const auto error = take_raw<uint8_t>(bytes, at);
  if (error > static_cast<uint8_t>(Probe::Error::kWallTime))
    throw std::runtime_error("capacity: a probe from another rank has an unknown error kind");
  p.error = static_cast<Probe::Error>(error);
  p.run.rate_per_s = take_raw<double>(bytes, at);
  p.run.ttft_s = take_raw<double>(bytes, at);
  p.run.tpot_s = take_raw<double>(bytes, at);
  p.run.tbt_s = take_raw<double>(bytes, at);
  p.run.completed = take_raw<uint64_t>(bytes, at);
  p.run.rejected = take_raw<uint64_t>(bytes, at);
  p.run.ok = take_raw<uint8_t>(bytes, at) != 0;
  p.run.energy_modelled = take_raw<uint8_t>(bytes, at) != 0;
  p.run.j_per_output_token = take_raw<double>(bytes, at);
  p.run.priced = take_raw<uint8_t>(bytes, at) != 0;
  p.run.usd_per_m_output_tokens = take_raw<double>(bytes, at);
  p.message = bytes.substr(at);
  return p;
}

}  // namespace podsim::fleet
