#include "config/trace_prefix.h"

#include <charconv>

#include "config/serve_spec.h"

namespace podsim::config {
namespace {

bool id_char(char c, bool dot) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || (dot && c == '.');
}

}  // namespace

std::string parse_prefix(std::string_view text, std::vector<PrefixSegment>& out) {
  out.clear();
  if (text.empty())
    return {};
  constexpr uint64_t kMaxEnd = 2 * uint64_t{kMaxRequestTokens};
  size_t pos = 0;
  while (true) {
    const size_t slash = text.find('/', pos);
    const std::string_view seg =
        text.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    const bool last = slash == std::string_view::npos;
    const size_t colon = seg.find(':');
    const std::string_view id = seg.substr(0, colon);
    const std::string where =
        "segment " + std::to_string(out.size() + 1) + " \"" + std::string(seg) + "\"";
    if (id.empty())
      return where + ": expected a stream id before ':' or '/'";
    for (const char c : id)
      if (!id_char(c, true))
        return where + ": a stream id is letters, digits, '_', '-' and '.'";
    PrefixSegment s{id, kOpenPrefixEnd};
    if (colon != std::string_view::npos) {
      const std::string_view num = seg.substr(colon + 1);
      uint64_t end = 0;
      const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), end);
      if (num.empty() || ec != std::errc() || p != num.data() + num.size() || end < 1 ||
          end > kMaxEnd)
        return where + ": expected an end in [1, " + std::to_string(kMaxEnd) + "] after ':'";
      s.end = static_cast<uint32_t>(end);
      if (!out.empty() && s.end <= out.back().end)
        return where + ": ends must increase (the one before ends at " +
               std::to_string(out.back().end) + ")";
    } else if (!last) {
      return where + ": only the last segment may leave out its end (id:end)";
    }
    out.push_back(s);
    if (last)
      return {};
    pos = slash + 1;
  }
}

bool valid_slo_class(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return false;
  for (const char c : name)
    if (!id_char(c, false))
      return false;
  return true;
}

}  // namespace podsim::config
