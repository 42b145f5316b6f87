// Protobuf binary wire format with diagnostics.
//
// Internal to src/config (it includes protobuf headers). Generic over the
// message type: topology and workload files share it.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"

namespace podsim::config::internal {

struct ParsedBinary {
  // False when the bytes are not a valid message; `out` must then not be used.
  bool wire_ok = false;
  // One diagnostic when !wire_ok, else one per unknown field found anywhere in
  // the message tree (field = path of the message that holds it): protobuf
  // keeps unknown fields silently, but for podsim they are mistakes (a file
  // written for another schema or version).
  std::vector<Diagnostic> errors;
};

// Parses `bytes` into `out` (which should be empty). Never throws for bad input.
ParsedBinary parse_binary_message(std::string_view bytes, const std::string& source_name,
                                  google::protobuf::Message& out);

}  // namespace podsim::config::internal
