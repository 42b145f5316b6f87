#include "fleet/capacity_replicas.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fleet/capacity_lookahead.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"

namespace podsim::fleet {
namespace {

Probe run_copies(const config::ServeSpec& spec, uint32_t copies, double rate,
                 const CapacityOptions& options) {
  Probe p;
  p.run.rate_per_s = rate;
  try {
    config::ServeSpec s = at_rate(spec, rate);
    s.replicas[0].count = copies;
    const ServeSummary summary = serve(s, false, options.limits).summary;
    meets(summary, options, p.run);
    measure_cost(s, summary, options, p.run);
  } catch (const std::exception&) {
    keep_current_error(p);
  }
  return p;
}

// Rank 0's results of a round, as bytes every rank gets.
std::string join_round(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    const std::string n = std::to_string(p.size());
    out += n;
    out += ':';
    out += p;
  }
  return out;
}

std::vector<std::string> split_round(const std::string& joined, size_t count) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (size_t k = 0; k < count; ++k) {
    const size_t colon = joined.find(':', at);
    if (colon == std::string::npos)
      throw std::runtime_error("capacity: a round of replica counts is cut short");
    const size_t n = std::stoull(joined.substr(at, colon - at));
    if (joined.size() - colon - 1 < n)
      throw std::runtime_error("capacity: a round of replica counts is cut short");
    parts.push_back(joined.substr(colon + 1, n));
    at = colon + 1 + n;
  }
  return parts;
}

}  // namespace

FewestReplicas fewest_replicas(const config::ServeSpec& spec, double rate,
                               const CapacityOptions& options, uint32_t max_copies,
                               sweep::Transport& transport, unsigned jobs) {
  if (spec.replicas.size() != 1)
    throw std::invalid_argument(
        "the fewest replicas are searched for a serve file with one replica entry; it has " +
        std::to_string(spec.replicas.size()));
  jobs = std::max(jobs, 1U);
  const uint32_t width = std::max(transport.ranks() * jobs, 1U);
  const uint32_t chips_per_copy = static_cast<uint32_t>(spec.replicas[0].pod.chip_count());
  FewestReplicas out;
  for (uint32_t first = 1; first <= max_copies && out.best < 0; first += width) {
    const uint32_t n = std::min(width, max_copies - first + 1);
    std::vector<std::string> merged(transport.writes_output() ? n : 0);
    sweep::run_points(
        n, transport, jobs,
        [&](uint64_t k) {
          return encode_probe(run_copies(spec, first + static_cast<uint32_t>(k), rate, options));
        },
        [&](uint64_t k, const std::string& bytes) {
          merged[k] = bytes;
          if (options.on_run)
            options.on_run();
        });
    const std::vector<std::string> parts = split_round(
        transport.broadcast(transport.writes_output() ? join_round(merged) : std::string()), n);
    for (uint32_t k = 0; k < n; ++k) {
      const Probe p = decode_probe(parts[k]);
      rethrow_error(p);
      out.tried.push_back({first + k, chips_per_copy * (first + k), p.run});
      if (p.run.ok) {
        out.best = static_cast<int>(out.tried.size()) - 1;
        break;  // counts above it ran only because they ran at once: not reported
      }
    }
  }
  return out;
}

}  // namespace podsim::fleet
