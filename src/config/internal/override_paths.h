// The paths `--set` accepts, and the nearest valid ones to a path that is not.
//
// Internal to src/config: it walks protobuf descriptors and reflection, so
// every field of the schema is addressable without a hand-written list.
#pragma once

#include <google/protobuf/message.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/internal/field_path.h"

namespace podsim::config::internal {

// "torus.dims[0].link_bandwidth_gbps" -> its segments. Field names are
// letters, digits and '_'; an index is a decimal number in brackets. Returns
// nullopt and sets `error` for anything else (an empty segment, "dims[x]",
// "dims[0]x"). O(length).
std::optional<FieldPath> parse_field_path(std::string_view text, std::string& error);

// Every path an override may name under `message`, relative to it, in schema
// order: each scalar, enum and string field; each repeated scalar as a whole
// and each element it holds; the fields of every singular message, present
// or not (setting one creates it), and of each element a repeated message
// holds (no index past its end). O(schema fields x elements held).
std::vector<std::string> overridable_paths(const google::protobuf::Message& message);

// Levenshtein distance (insert, delete, substitute, each 1). O(|a| x |b|)
// time, O(|b|) memory.
size_t edit_distance(std::string_view a, std::string_view b);

// The `count` candidates nearest `text` by edit_distance(), nearest first,
// ties in candidate order. O(candidates x |text| x |candidate|).
std::vector<std::string> nearest(std::string_view text, const std::vector<std::string>& candidates,
                                 size_t count);

}  // namespace podsim::config::internal
