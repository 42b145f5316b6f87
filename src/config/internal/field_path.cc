#include "config/internal/field_path.h"

namespace podsim::config::internal {

FieldPath FieldPath::operator()(std::string_view name, int index) const {
  FieldPath extended = *this;
  extended.segments_.push_back(Segment{std::string(name), index});
  return extended;
}

std::string FieldPath::to_string() const {
  std::string out;
  for (const Segment& s : segments_) {
    if (!out.empty())
      out += '.';
    out += s.name;
    if (s.index >= 0)
      out += '[' + std::to_string(s.index) + ']';
  }
  return out;
}

}  // namespace podsim::config::internal
