// The `prefix` column of a trace (docs/serving.md, "Trace files"): what a
// request's leading tokens are, for prefix caching. Segments separated by
// '/', each `id:end` (the request's tokens [the previous segment's end, end)
// are stream `id`'s tokens at those positions) or, last only, `id` alone
// (the stream runs on to the request's end: its whole prompt and output).
// Ids are letters, digits, '_', '-' and '.'; ends strictly increase, each
// in [1, 2 x kMaxRequestTokens]. Empty: nothing named.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::config {

struct PrefixSegment {
  std::string_view stream;  // a view into the parsed text
  uint32_t end = 0;         // kOpenPrefixEnd: to the request's end
};

inline constexpr uint32_t kOpenPrefixEnd = std::numeric_limits<uint32_t>::max();

// Splits `text` into `out` (cleared); returns what is wrong, empty when it
// is well formed.
std::string parse_prefix(std::string_view text, std::vector<PrefixSegment>& out);

// An SLO class name: letters, digits, '_' and '-', 1 to 64 characters.
bool valid_slo_class(std::string_view name);

}  // namespace podsim::config
