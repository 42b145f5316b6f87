#include "report/result_print.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <stdexcept>

namespace podsim::report {

std::optional<ResultFormat> parse_result_format(std::string_view name) {
  if (name == "table") {
    return ResultFormat::kTable;
  }
  if (name == "json") {
    return ResultFormat::kJson;
  }
  if (name == "csv") {
    return ResultFormat::kCsv;
  }
  if (name == "textproto") {
    return ResultFormat::kTextproto;
  }
  if (name == "binpb") {
    return ResultFormat::kBinpb;
  }
  return std::nullopt;
}

namespace {

std::string to_json(const podsim::Result& r, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.always_print_primitive_fields = true;
  options.always_print_enums_as_ints = false;
  options.preserve_proto_field_names = true;
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(r, &out, options);
  if (!status.ok()) {
    // Only a message with unknown Any types fails; Result has none.
    throw std::logic_error("cannot print the result as JSON: " + status.ToString());
  }
  return out;
}

}  // namespace

std::string result_to_json(const podsim::Result& r) {
  return to_json(r, true);
}

std::string result_to_json_line(const podsim::Result& r) {
  return to_json(r, false) + "\n";
}

std::string result_to_textproto(const podsim::Result& r) {
  return message_to_textproto(r);
}

std::string result_to_binpb(const podsim::Result& r) {
  return message_to_binpb(r);
}

std::string message_to_textproto(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::TextFormat::PrintToString(m, &out);
  return out;
}

std::string message_to_binpb(const google::protobuf::Message& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return out;
}

podsim::Result result_from_json(std::string_view json) {
  podsim::Result r;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &r);
  if (!status.ok()) {
    throw std::invalid_argument("not a podsim.Result in JSON: " + status.ToString());
  }
  return r;
}

}  // namespace podsim::report
