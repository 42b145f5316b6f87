#include "search/distributed.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace podsim::search {
namespace {

template <class T>
void put(std::string& out, const T& v) {
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  out.append(raw, sizeof(T));
}

template <class T>
T take(const std::string& in, size_t& at) {
  if (in.size() - at < sizeof(T)) {
    throw std::runtime_error("search: an evaluation from another rank is cut short");
  }
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

// A list of byte strings as one: each length, then its bytes.
std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    put<uint64_t>(out, p.size());
    out += p;
  }
  return out;
}

std::vector<std::string> split(const std::string& joined, size_t count) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (size_t k = 0; k < count; ++k) {
    const auto n = take<uint64_t>(joined, at);
    if (joined.size() - at < n) {
      throw std::runtime_error("search: the merged evaluations are cut short");
    }
    parts.push_back(joined.substr(at, n));
    at += n;
  }
  return parts;
}

}  // namespace

std::string encode(const Evaluation& e) {
  std::string out;
  put<uint8_t>(out, static_cast<uint8_t>(e.status));
  put<double>(out, e.step_time_us);
  put<double>(out, e.latency_us);
  put<double>(out, e.tokens_per_s_per_chip);
  put<double>(out, e.mfu);
  put<uint64_t>(out, e.hbm_used_bytes);
  put<double>(out, e.bound_latency_us);
  put<double>(out, e.bound_tokens_per_s_per_chip);
  put<uint8_t>(out, e.out_of_step ? 1 : 0);
  put<uint8_t>(out, e.energy_modelled ? 1 : 0);
  put<double>(out, e.j_per_token);
  put<double>(out, e.tokens_per_j);
  put<double>(out, e.mean_power_w);
  put<uint8_t>(out, e.priced ? 1 : 0);
  put<double>(out, e.usd_per_m_tokens);
  put<double>(out, e.gco2e_per_m_tokens);
  out += e.reason;  // the rest
  return out;
}

Evaluation decode(const std::string& bytes) {
  Evaluation e;
  size_t at = 0;
  const auto status = take<uint8_t>(bytes, at);
  if (status > static_cast<uint8_t>(Status::kOom)) {
    throw std::runtime_error("search: an evaluation from another rank has an unknown status");
  }
  e.status = static_cast<Status>(status);
  e.step_time_us = take<double>(bytes, at);
  e.latency_us = take<double>(bytes, at);
  e.tokens_per_s_per_chip = take<double>(bytes, at);
  e.mfu = take<double>(bytes, at);
  e.hbm_used_bytes = take<uint64_t>(bytes, at);
  e.bound_latency_us = take<double>(bytes, at);
  e.bound_tokens_per_s_per_chip = take<double>(bytes, at);
  e.out_of_step = take<uint8_t>(bytes, at) != 0;
  e.energy_modelled = take<uint8_t>(bytes, at) != 0;
  e.j_per_token = take<double>(bytes, at);
  e.tokens_per_j = take<double>(bytes, at);
  e.mean_power_w = take<double>(bytes, at);
  e.priced = take<uint8_t>(bytes, at) != 0;
  e.usd_per_m_tokens = take<double>(bytes, at);
  e.gco2e_per_m_tokens = take<double>(bytes, at);
  e.reason = bytes.substr(at);
  return e;
}

std::vector<Evaluation> evaluate_across(const Problem& problem, const std::vector<Task>& tasks,
                                        unsigned jobs, sweep::Transport& transport,
                                        const std::function<void(size_t)>& on_done) {
  std::vector<std::string> merged(transport.writes_output() ? tasks.size() : 0);
  sweep::run_points(
      tasks.size(), transport, jobs,
      [&](uint64_t k) { return encode(problem.evaluate(tasks[k].candidate, tasks[k].stage)); },
      [&](uint64_t k, const std::string& bytes) {
        merged[k] = bytes;
        if (on_done) {
          on_done(static_cast<size_t>(k));
        }
      });
  const std::vector<std::string> parts = split(
      transport.broadcast(transport.writes_output() ? join(merged) : std::string()), tasks.size());
  std::vector<Evaluation> out;
  out.reserve(parts.size());
  for (const std::string& p : parts) {
    out.push_back(decode(p));
  }
  return out;
}

}  // namespace podsim::search
