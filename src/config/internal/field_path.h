// A path to a field inside an input message, such as torus.dims[2].size.
//
// Internal to src/config. Validators name the offending field with a FieldPath;
// the text-format front end turns the same path into a line:column through the
// parser's location tree, so paths are structured (name + index per segment)
// rather than strings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace podsim::config::internal {

class FieldPath {
 public:
  struct Segment {
    std::string name;  // the field's name in the .proto schema
    int index = -1;    // position within a repeated field; -1 for a singular field
  };

  FieldPath() = default;

  // A copy of this path extended by one singular field (or one element of a
  // repeated field, when `index` >= 0).
  FieldPath operator()(std::string_view name, int index = -1) const;

  const std::vector<Segment>& segments() const { return segments_; }
  bool empty() const { return segments_.empty(); }

  // "torus.dims[2].size"; "" for the root.
  std::string to_string() const;

 private:
  std::vector<Segment> segments_;
};

}  // namespace podsim::config::internal
