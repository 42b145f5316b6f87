// The VALUE of `--set PATH=VALUE`: converted to the type of the field it
// sets, through the field's descriptor, or rejected with the reason.
//
// Internal to src/config. Numbers are decimal (doubles also in exponent form,
// "1e9"); whole numbers must fit the field's type (no wrapping of "-1" into a
// uint32); bools are true/false (or 1/0); enums are written by name; strings
// are bare (taken as written) or quoted with "" or '' (with the backslash
// escapes of docs/inputs.md, "Overrides"). A list is "[a, b, ...]": its elements are separated by
// commas and may be quoted to hold commas, brackets or spaces.
#pragma once

#include <google/protobuf/message.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::config::internal {

// Sets the scalar, enum or string `field` of `message` to `text`: the singular
// field when `index` < 0, element `index` of a repeated field otherwise
// (which must exist, or be the list's length: then the value is appended). Returns "" when set,
// else why not (and leaves `message` as it was).
std::string set_value(google::protobuf::Message& message,
                      const google::protobuf::FieldDescriptor& field, int index,
                      std::string_view text);

// Replaces the whole repeated scalar, enum or string `field` with the
// elements of `list` ("[a, b]"). Returns "" when set, else why not (and
// leaves `message` as it was).
std::string set_list(google::protobuf::Message& message,
                     const google::protobuf::FieldDescriptor& field, std::string_view list);

// "[a, \"b, c\", d]" -> {"a", "\"b, c\"", "d"} (quotes kept, spaces around
// elements dropped); "[]" -> {}. nullopt and `error` set when `text` is not a
// bracketed list or an element is empty. O(length).
std::optional<std::vector<std::string>> split_list(std::string_view text, std::string& error);

// "uint32", "double", "podsim.Phase" (an enum's full name): for messages.
std::string type_name(const google::protobuf::FieldDescriptor& field);

}  // namespace podsim::config::internal
