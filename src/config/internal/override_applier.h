// Applying `--set PATH=VALUE` overrides (config/overrides.h) to a parsed
// input message, and telling which override set a field a rule complains
// about.
//
// Internal to src/config (it uses protobuf reflection). Paths are resolved
// through the message's descriptor one segment at a time:
//  - a singular message on the way is created when absent (the fields set
//    inside it are the only ones it has); in a oneof, that selects the
//    member and drops the member the input had;
//  - `name[i]` on the way indexes a repeated message, which must hold
//    element i or have length i: then an element (every field at its
//    default) is appended, so overrides in index order add torus
//    dimensions, mesh axes, faults or replicas, and later overrides of
//    that index set the new element's fields;
//  - the last segment is a scalar, enum or string field: `name=v` sets a
//    singular one, `name=[a, b]` replaces a whole repeated one, `name[i]=v`
//    one element of it (i equal to the list's length appends one).
#pragma once

#include <google/protobuf/message.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/internal/field_path.h"
#include "config/overrides.h"

namespace podsim::config::internal {

// What one override set, for diagnostics.
struct AppliedOverride {
  FieldPath target;                  // the field set, relative to the message: "torus.dims[0].size"
  bool whole_list = false;           // target is a repeated field set as a list
  std::optional<FieldPath> created;  // the outermost message the override brought into being
  std::string text;                  // "topology.torus.dims[0].size=4": to_string(Override)
};

// Applies, in order, every override whose path starts with `root` + "."
// ("topology", "workload") to `message`, with that prefix removed; the others
// are left for another input. `source` names the input in messages about its
// contents ("torus.dims has 2 elements in FILE"). Throws InputError (file
// "--set", field the override's path) listing every override that cannot be
// applied: a path that does not parse, an unknown field (with the nearest
// valid paths, by edit distance over overridable_paths()), an index past the
// end (naming the size), a message where a value is needed, a value of the
// wrong type or out of its type's range. Work: O(path depth + value length)
// per override, plus O(schema x elements held) to suggest paths for a bad one.
std::vector<AppliedOverride> apply_overrides(const Overrides& overrides, std::string_view root,
                                             const std::string& source,
                                             google::protobuf::Message& message);
// The same for the overrides of any of `roots` (a serve file's replica 1
// takes "topology" and "replicas[1].topology"), in command-line order, each
// reported under its own root.
std::vector<AppliedOverride> apply_overrides(const Overrides& overrides, const OverrideRoots& roots,
                                             const std::string& source,
                                             google::protobuf::Message& message);

// The overrides of `overrides` (any root) whose path starts with `root` + ".",
// as "path=value" (to_string), in order.
std::vector<std::string> override_texts(const Overrides& overrides, std::string_view root);
std::vector<std::string> override_texts(const Overrides& overrides, const OverrideRoots& roots);

// What a diagnostic about `path` says of the overrides behind it.
struct OverrideNote {
  std::string text;                // appended to the message; "" when no override is involved
  bool replaces_position = false;  // the input does not hold the value: drop its line:column
};

// From the last of `applied` that set `path` (or, for a list, the whole list
// or an element of it): " (set by --set PATH=VALUE)", replacing the position;
// else from the last that created a message enclosing `path`: " (in FIELD,
// which --set PATH=VALUE created)", replacing the position; else, for a rule
// on a field the input holds beside overridden ones (rules compare fields of
// one message: a dimension's size and its wraparound), every override of a
// field of the same message, not at the top level: " (with --set A=1, --set
// B=2)", keeping the position. O(applied x depth).
OverrideNote override_note(const std::vector<AppliedOverride>& applied, const FieldPath& path);

}  // namespace podsim::config::internal
