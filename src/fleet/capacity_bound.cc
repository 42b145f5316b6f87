#include "fleet/capacity_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "fleet/serve.h"
#include "report/format.h"

namespace podsim::fleet {
namespace {

constexpr size_t kMaxBindingIds = 10;

// The prompts every run serves, by request id; empty when they depend on
// the rate (or are not known in advance).
std::vector<uint32_t> fixed_prompts(const config::ServeSpec& spec, bool& synthetic) {
  synthetic = false;
  const config::ArrivalSpec& a = spec.arrivals;
  if (spec.duration < sim::Time::max())
    return {};
  if (a.kind == config::ArrivalKind::kTrace) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(a.trace.size(), spec.max_requests));
    std::vector<uint32_t> prompts(n);
    for (size_t i = 0; i < n; ++i)
      prompts[i] = a.trace[i].prompt_tokens;
    return prompts;
  }
  if ((a.kind == config::ArrivalKind::kPoisson || a.kind == config::ArrivalKind::kGamma) &&
      a.prompt.kind == config::LengthKind::kFixed) {
    synthetic = true;
    return {a.prompt.min};
  }
  return {};
}

// The fastest prefill alone of `prompt` over the entries that prefill.
struct Timed {
  double seconds = std::numeric_limits<double>::infinity();
  std::string replica;
};

Timed fastest(Server& server, const config::ServeSpec& spec, uint32_t prompt) {
  Timed best;
  for (size_t e = 0; e < spec.replicas.size(); ++e) {
    if (spec.replicas[e].role == config::RoleKind::kDecode)
      continue;
    const double s = server.prefill_alone(e, prompt).to_s();
    if (s < best.seconds) {
      best.seconds = s;
      best.replica = spec.replicas[e].name;
    }
  }
  return best;
}

std::string reason_text(const TtftBound& b, const CapacityOptions& options, bool synthetic) {
  std::string text;
  if (synthetic) {
    text = "every request (its fixed prompt of ";
    text += std::to_string(b.prompt_tokens);
    text += " tokens)";
  } else {
    text = std::to_string(b.binding);
    text += b.binding == 1 ? " request (the longest prompt, id "
                           : " requests (the longest prompts, ids ";
    for (size_t i = 0; i < b.binding_ids.size(); ++i) {
      if (i > 0)
        text += ", ";
      text += std::to_string(b.binding_ids[i]);
    }
    if (b.binding > b.binding_ids.size())
      text += ", ...";
    text += "; ";
    text += std::to_string(b.prompt_tokens);
    text += " prompt tokens or more)";
  }
  text += synthetic || b.binding == 1 ? " needs" : " need";
  text += " at least ";
  // Rounded down, so "at least" stays true (the report's prefill_s is
  // exact); in full where that would not show it above the objective.
  const double shown = std::floor(b.prefill_s * 1e3) / 1e3;
  text += shown * 1e3 > options.ttft_ms ? report::format_fixed(shown, 3)
                                        : report::format_double(b.prefill_s);
  text += " s of prefill alone on '";
  text += b.replica;
  text += "' > the TTFT target ";
  text += report::format_double(options.ttft_ms / 1e3);
  text += " s at p";
  text += std::to_string(options.percentile);
  if (!synthetic) {
    text += " (at most ";
    text += std::to_string(b.allowed);
    text += " of ";
    text += std::to_string(b.requests);
    text += " may exceed it)";
  }
  return text;
}

}  // namespace

TtftBound ttft_bound(const config::ServeSpec& spec, const CapacityOptions& options) {
  TtftBound b;
  if (options.ttft_ms <= 0)
    return b;
  for (const config::ServeReplicaSpec& r : spec.replicas)
    if (r.prefix_caching)
      return b;
  bool synthetic = false;
  const std::vector<uint32_t> prompts = fixed_prompts(spec, synthetic);
  if (prompts.empty())
    return b;
  b.known = true;
  // Nearest rank, as the summary's percentiles (fleet/summary.cc): the
  // figure is the k-th smallest of n, so n - k requests may exceed it.
  const uint64_t n = prompts.size();
  const auto k = std::max<uint64_t>(
      static_cast<uint64_t>(std::ceil(options.percentile / 100.0 * static_cast<double>(n))), 1);
  b.requests = synthetic ? 0 : n;
  b.allowed = synthetic ? 0 : n - k;
  // Request ids by prompt, longest first (ties by id).
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint64_t x, uint64_t y) { return prompts[x] > prompts[y]; });
  Server server(spec, options.limits);
  const auto binds = [&](uint64_t rank, Timed& t) {
    t = fastest(server, spec, prompts[order[rank]]);
    return t.seconds * 1e3 > options.ttft_ms;
  };
  Timed at;
  const bool bound = binds(b.allowed, at);
  // Attainable or not, the prompt that decides it and its prefill alone:
  // how much of the objective the prefill leaves for queueing.
  b.prompt_tokens = prompts[order[b.allowed]];
  b.prefill_s = at.seconds;
  b.replica = at.replica;
  if (!bound)
    return b;
  // The last rank (shortest prompt) that still binds: the prefill alone
  // grows with the prompt, so the binding ranks are a prefix.
  uint64_t lo = b.allowed;  // binds
  uint64_t hi = n;          // first rank known not to bind (n: none)
  Timed last = at;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    Timed t;
    if (binds(mid, t)) {
      lo = mid;
      last = t;
    } else {
      hi = mid;
    }
  }
  b.unattainable = true;
  b.binding = synthetic ? 0 : lo + 1;
  for (uint64_t i = 0; i <= lo && i < kMaxBindingIds && !synthetic; ++i)
    b.binding_ids.push_back(order[i]);
  b.prompt_tokens = prompts[order[lo]];
  b.prefill_s = last.seconds;
  b.replica = last.replica;
  b.reason = reason_text(b, options, synthetic);
  return b;
}

}  // namespace podsim::fleet
