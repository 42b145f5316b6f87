// podsim.Result printed by Protobuf itself: JSON (google::protobuf::util's
// printer, proto field names, every field present even at its default), the
// text format, and the binary wire format. No map fields or Struct in the
// schema, so the bytes depend only on the message: equal results, equal files.
#pragma once

#include <google/protobuf/message.h>

#include <optional>
#include <string>
#include <string_view>

#include "podsim/result.pb.h"

namespace podsim::report {

// What `podsim run --format` accepts.
enum class ResultFormat { kTable, kJson, kCsv, kTextproto, kBinpb };

// "table", "json", "csv", "textproto" or "binpb"; nullopt for anything else.
std::optional<ResultFormat> parse_result_format(std::string_view name);

// Pretty-printed JSON (two-space indent), ending in a newline.
std::string result_to_json(const podsim::Result& r);
// The same JSON on one line, ending in a newline: a JSON Lines record.
std::string result_to_json_line(const podsim::Result& r);
// The text format, as protoc reads it.
std::string result_to_textproto(const podsim::Result& r);
// The binary wire format, serialized deterministically.
std::string result_to_binpb(const podsim::Result& r);

// The text and binary forms of any report message (podsim.output.ServeReport,
// CapacityReport), as the two above print a Result.
std::string message_to_textproto(const google::protobuf::Message& m);
std::string message_to_binpb(const google::protobuf::Message& m);

// Reads JSON written by result_to_json() (or by hand); throws
// std::invalid_argument with Protobuf's message when it does not parse.
podsim::Result result_from_json(std::string_view json);

}  // namespace podsim::report
