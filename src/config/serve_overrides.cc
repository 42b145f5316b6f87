#include "config/serve_overrides.h"

#include <array>
#include <optional>

namespace podsim::config {
namespace {

constexpr std::array<std::string_view, 3> kWholeRoots = {"serve.", "topology.", "workload."};

Diagnostic serve_set_problem(const Override& o, std::string message) {
  Diagnostic d;
  d.file = "--set";
  d.field = o.path;
  d.message = std::move(message);
  return d;
}

// A path "replicas[i].REST": i and REST; nullopt for any other path (and
// for an index that is not a decimal number below 2^31).
struct ReplicaPath {
  size_t index = 0;
  std::string_view rest;  // "topology.torus.dims[0].size"
};

std::optional<ReplicaPath> replica_path(std::string_view path) {
  constexpr std::string_view kOpen = "replicas[";
  if (!path.starts_with(kOpen))
    return std::nullopt;
  const size_t close = path.find(']', kOpen.size());
  if (close == std::string_view::npos || close == kOpen.size() || close - kOpen.size() > 9 ||
      close + 1 >= path.size() || path[close + 1] != '.')
    return std::nullopt;
  size_t index = 0;
  for (size_t i = kOpen.size(); i < close; ++i) {
    if (path[i] < '0' || path[i] > '9')
      return std::nullopt;
    index = index * 10 + static_cast<size_t>(path[i] - '0');
  }
  return ReplicaPath{index, path.substr(close + 2)};
}

bool rooted_input(std::string_view rest) {
  for (std::string_view input : {std::string_view("topology."), std::string_view("workload.")}) {
    if (rest.starts_with(input) && rest.size() > input.size())
      return true;
  }
  return false;
}

}  // namespace

bool serve_rooted(std::string_view path) {
  for (std::string_view root : kWholeRoots) {
    if (path.starts_with(root) && path.size() > root.size())
      return true;
  }
  const std::optional<ReplicaPath> r = replica_path(path);
  return r && rooted_input(r->rest);
}

void check_serve_override_roots(const Overrides& overrides) {
  std::vector<Diagnostic> bad;
  for (const Override& o : overrides) {
    if (serve_rooted(o.path))
      continue;
    if (const std::optional<ReplicaPath> r = replica_path(o.path)) {
      std::string message = "replicas[i]. is followed by topology. or workload. (replica entry ";
      message += std::to_string(r->index);
      message += "'s own topology or workload file); the serve file's own fields are serve.";
      message += "replicas[";
      message += std::to_string(r->index);
      message += "]....";
      bad.push_back(serve_set_problem(o, std::move(message)));
      continue;
    }
    std::string message =
        "the path must start with \"serve.\" (the serve file), \"topology.\" or \"workload.\" "
        "(every replica's), or \"replicas[i].topology.\" or \"replicas[i].workload.\" (replica "
        "entry i's), in \"";
    message += to_string(o);
    message += "\"";
    bad.push_back(serve_set_problem(o, std::move(message)));
  }
  if (!bad.empty())
    throw InputError(std::move(bad));
}

OverrideRoots replica_roots(std::string_view input, size_t index) {
  std::string scoped = "replicas[";
  scoped += std::to_string(index);
  scoped += "].";
  scoped += input;
  return {std::string(input), std::move(scoped)};
}

void check_replica_indexes(const Overrides& overrides, size_t replicas, const std::string& source) {
  std::vector<Diagnostic> bad;
  for (const Override& o : overrides) {
    const std::optional<ReplicaPath> r = replica_path(o.path);
    if (!r || r->index < replicas)
      continue;
    std::string message = "index ";
    message += std::to_string(r->index);
    message += " is out of range: ";
    message += source;
    message += " has ";
    message += std::to_string(replicas);
    message += replicas == 1 ? " replica entry" : " replica entries";
    message += " (replicas[0] to replicas[";
    message += std::to_string(replicas - 1);
    message += "])";
    bad.push_back(serve_set_problem(o, std::move(message)));
  }
  if (!bad.empty())
    throw InputError(std::move(bad));
}

}  // namespace podsim::config
