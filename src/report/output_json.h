// JSON of podsim's output messages (proto/podsim/trace.proto,
// topology_report.proto, comparison.proto), printed by Protobuf's own JSON
// printer: podsim writes no JSON by hand.
//
// Keys are the proto field names (preserve_proto_field_names), in field-
// number order. Protobuf writes doubles in the shortest of %.15g and %.17g
// that reads back to the same value, 64-bit integers as strings (so the
// schemas use 32-bit integers and doubles for numbers), and escapes '<', '>'
// and control characters as \uXXXX. The same message gives the same bytes on
// every run: the schemas have no maps.
#pragma once

#include <google/protobuf/message.h>

#include <string>

namespace podsim::report {

struct JsonStyle {
  bool indent = false;  // false: one line; true: one key a line (Protobuf indents by one space)
  // Also write fields without presence that hold their default (0, "", []);
  // `optional` fields are written only when set, either way.
  bool all_fields = false;
};

// Appends `message` as JSON to `out`, without a trailing newline. Throws
// std::runtime_error if Protobuf refuses (strings that are not UTF-8).
void append_json(const google::protobuf::Message& message, const JsonStyle& style,
                 std::string& out);

// `message` as one JSON document ending in a newline.
std::string to_json(const google::protobuf::Message& message, const JsonStyle& style);

}  // namespace podsim::report
