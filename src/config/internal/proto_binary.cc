#include "config/internal/proto_binary.h"

#include <google/protobuf/unknown_field_set.h>

#include <limits>

#include "config/internal/field_path.h"

namespace podsim::config::internal {
namespace {

namespace pb = google::protobuf;

const char* wire_type_name(pb::UnknownField::Type type) {
  switch (type) {
    case pb::UnknownField::TYPE_VARINT:
      return "varint";
    case pb::UnknownField::TYPE_FIXED32:
      return "fixed32";
    case pb::UnknownField::TYPE_FIXED64:
      return "fixed64";
    case pb::UnknownField::TYPE_LENGTH_DELIMITED:
      return "length-delimited";
    case pb::UnknownField::TYPE_GROUP:
      return "group";
  }
  return "unknown";
}

// Depth-first over every set message field. O(fields in the message tree).
void report_unknown_fields(const pb::Message& message, const FieldPath& path,
                           const std::string& source, std::vector<Diagnostic>& out) {
  const pb::Reflection& reflection = *message.GetReflection();
  const pb::UnknownFieldSet& unknown = reflection.GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const pb::UnknownField& field = unknown.field(i);
    Diagnostic d;
    d.file = source;
    d.field = path.to_string();
    d.message = "unknown field number " + std::to_string(field.number()) + " (" +
                wire_type_name(field.type()) + "): " + message.GetDescriptor()->full_name() +
                " has no such field";
    out.push_back(std::move(d));
  }
  std::vector<const pb::FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const pb::FieldDescriptor* f : fields) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    if (!f->is_repeated()) {
      report_unknown_fields(reflection.GetMessage(message, f), path(f->name()), source, out);
      continue;
    }
    for (int i = 0; i < reflection.FieldSize(message, f); ++i) {
      report_unknown_fields(reflection.GetRepeatedMessage(message, f, i), path(f->name(), i),
                            source, out);
    }
  }
}

}  // namespace

ParsedBinary parse_binary_message(std::string_view bytes, const std::string& source_name,
                                  pb::Message& out) {
  ParsedBinary result;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !out.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    Diagnostic d;
    d.file = source_name;
    d.message = "not a valid binary " + out.GetDescriptor()->full_name() +
                " message (malformed wire format or a file of another kind)";
    result.errors.push_back(std::move(d));
    return result;
  }
  result.wire_ok = true;
  report_unknown_fields(out, FieldPath(), source_name, result.errors);
  return result;
}

}  // namespace podsim::config::internal
