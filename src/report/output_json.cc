#include "report/output_json.h"

#include <google/protobuf/util/json_util.h>

#include <stdexcept>

namespace podsim::report {

void append_json(const google::protobuf::Message& message, const JsonStyle& style,
                 std::string& out) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = style.indent;
  options.always_print_primitive_fields = style.all_fields;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    throw std::runtime_error("cannot write " + message.GetDescriptor()->name() +
                             " as JSON: " + status.ToString());
  }
  // The indented form ends in a newline of its own; the one-line form does not.
  while (!json.empty() && json.back() == '\n') {
    json.pop_back();
  }
  out += json;
}

std::string to_json(const google::protobuf::Message& message, const JsonStyle& style) {
  std::string out;
  append_json(message, style, out);
  out += '\n';
  return out;
}

}  // namespace podsim::report
