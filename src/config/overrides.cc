#include "config/overrides.h"

#include <array>

namespace podsim::config {
namespace {

constexpr std::string_view kSpaces = " \t\r\n";
constexpr std::array<std::string_view, 2> kRoots = {"topology.", "workload."};

std::string_view trimmed(std::string_view s) {
  const size_t begin = s.find_first_not_of(kSpaces);
  if (begin == std::string_view::npos)
    return {};
  return s.substr(begin, s.find_last_not_of(kSpaces) - begin + 1);
}

Diagnostic set_problem(std::string field, std::string message) {
  Diagnostic d;
  d.file = "--set";
  d.field = std::move(field);
  d.message = std::move(message);
  return d;
}

}  // namespace

Override parse_override(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw InputError(
        set_problem("", "expected PATH=VALUE (such as workload.scenario.batch=64), got \"" +
                            std::string(text) + "\""));
  }
  Override o{std::string(trimmed(text.substr(0, eq))), std::string(trimmed(text.substr(eq + 1)))};
  if (o.path.empty()) {
    throw InputError(set_problem("", "empty path in \"" + std::string(text) +
                                         "\": expected PATH=VALUE (such as "
                                         "workload.scenario.batch=64)"));
  }
  return o;
}

std::string to_string(const Override& o) {
  return o.path + "=" + o.value;
}

void check_override_roots(const Overrides& overrides) {
  std::vector<Diagnostic> bad;
  for (const Override& o : overrides) {
    bool rooted = false;
    for (std::string_view root : kRoots)
      rooted = rooted || (o.path.starts_with(root) && o.path.size() > root.size());
    if (!rooted) {
      bad.push_back(set_problem(o.path,
                                "the path must start with \"topology.\" or \"workload.\" "
                                "(the input it overrides), in \"" +
                                    to_string(o) + "\""));
    }
  }
  if (!bad.empty())
    throw InputError(std::move(bad));
}

Overrides parse_overrides(const std::vector<std::string>& texts,
                          void (*check_roots)(const Overrides&)) {
  Overrides overrides;
  std::vector<Diagnostic> bad;
  for (const std::string& text : texts) {
    try {
      overrides.push_back(parse_override(text));
    } catch (const InputError& e) {
      bad.insert(bad.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  try {
    check_roots(overrides);
  } catch (const InputError& e) {
    bad.insert(bad.end(), e.diagnostics().begin(), e.diagnostics().end());
  }
  if (!bad.empty())
    throw InputError(std::move(bad));
  return overrides;
}

}  // namespace podsim::config
