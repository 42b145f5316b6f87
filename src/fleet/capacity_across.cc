#include "fleet/capacity_across.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "fleet/capacity_lookahead.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"

namespace podsim::fleet {
namespace {

// Servers of one spec for the threads of a process: a thread takes a free
// one (its step-time memo carries over from earlier runs) or builds one.
// Memos are exact caches of the pod simulation, so which Server runs a
// rate does not change the run.
class ServerPool {
 public:
  ServerPool(const config::ServeSpec& spec, const sim::WorkLimits& limits)
      : spec_(spec), limits_(limits) {}

  ServeSummary run(const config::ServeSpec& at) {
    std::unique_ptr<Server> server;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        server = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!server)
      server = std::make_unique<Server>(spec_, limits_);
    ServeSummary summary = server->run(at).summary;
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(server));
    return summary;
  }

 private:
  const config::ServeSpec& spec_;
  sim::WorkLimits limits_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Server>> free_;
};

// One run of `spec`'s replicas at `rate`, its error kept rather than thrown.
template <class Run>
Probe measure_probe(double rate, const config::ServeSpec& spec, const CapacityOptions& options,
                    const Run& run) {
  Probe p;
  p.run.rate_per_s = rate;
  try {
    const ServeSummary s = run();
    meets(s, options, p.run);
    measure_cost(spec, s, options, p.run);
  } catch (const std::exception&) {
    keep_current_error(p);
  }
  return p;
}

// A list of byte strings as one: each length, then its bytes.
std::string join_probes(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    const uint64_t n = p.size();
    char raw[sizeof n];
    std::memcpy(raw, &n, sizeof n);
    out.append(raw, sizeof n);
    out += p;
  }
  return out;
}

std::vector<std::string> split_probes(const std::string& joined, size_t count) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (size_t k = 0; k < count; ++k) {
    uint64_t n = 0;
    if (joined.size() - at < sizeof n)
      throw std::runtime_error("capacity: the merged probes are cut short");
    std::memcpy(&n, joined.data() + at, sizeof n);
    at += sizeof n;
    if (joined.size() - at < n)
      throw std::runtime_error("capacity: the merged probes are cut short");
    parts.push_back(joined.substr(at, n));
    at += n;
  }
  return parts;
}

}  // namespace

CapacityResult find_capacity_across(const config::ServeSpec& spec, const CapacityOptions& options,
                                    sweep::Transport& transport, unsigned jobs) {
  jobs = std::max(jobs, 1U);
  ServerPool pool(spec, options.limits);
  const BatchMeasure batch = [&](const std::vector<double>& rates) {
    std::vector<std::string> merged(transport.writes_output() ? rates.size() : 0);
    sweep::run_points(
        rates.size(), transport, jobs,
        [&](uint64_t k) {
          return encode_probe(measure_probe(rates[k], spec, options,
                                            [&] { return pool.run(at_rate(spec, rates[k])); }));
        },
        [&](uint64_t k, const std::string& bytes) {
          merged[k] = bytes;
          if (options.on_run)
            options.on_run();
        });
    const std::vector<std::string> parts = split_probes(
        transport.broadcast(transport.writes_output() ? join_probes(merged) : std::string()),
        rates.size());
    std::vector<Probe> probes;
    probes.reserve(parts.size());
    for (const std::string& p : parts)
      probes.push_back(decode_probe(p));
    return probes;
  };
  return search_capacity_batched(nominal_rate(spec), batch, search_options(spec, options),
                                 static_cast<size_t>(transport.ranks()) * jobs);
}

FewestChips fewest_chips_across(const std::vector<config::ServeSpec>& specs, double rate,
                                const CapacityOptions& options, sweep::Transport& transport,
                                unsigned jobs) {
  std::vector<Probe> probes(transport.writes_output() ? specs.size() : 0);
  sweep::run_points(
      specs.size(), transport, std::max(jobs, 1U),
      [&](uint64_t k) {
        return encode_probe(measure_probe(rate, specs[k], options, [&] {
          return serve(at_rate(specs[k], rate), false, options.limits).summary;
        }));
      },
      [&](uint64_t k, const std::string& bytes) {
        probes[k] = decode_probe(bytes);
        if (options.on_run)
          options.on_run();
      });
  FewestChips out;
  for (size_t k = 0; k < probes.size(); ++k) {
    rethrow_error(probes[k]);  // the first configuration whose run failed, as in one process
    add_verdict(out, specs[k], probes[k].run, options.minimise);
  }
  return out;
}

}  // namespace podsim::fleet
