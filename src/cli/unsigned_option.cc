#include "cli/unsigned_option.h"

#include <charconv>
#include <limits>

#include "cli/context.h"

namespace podsim::cli {

uint64_t unsigned_option(const boost::program_options::variables_map& vm, const std::string& name,
                         uint64_t max) {
  const std::string text = vm[name].as<std::string>();
  uint64_t value = 0;
  // from_chars takes no sign and no spaces: "-5", "+5", " 5" and "5x" all fail.
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > max) {
    throw UsageError("--" + name + ": expected a whole number from 0 to " + std::to_string(max) +
                     ", got '" + text + "'");
  }
  return value;
}

}  // namespace podsim::cli
