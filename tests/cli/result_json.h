// Shared by the CLI tests: `podsim run --format json` read back with
// Protobuf's own JSON parser into podsim.Result, so a test checks the
// schema, not a key it found by text search.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>

#include "podsim/result.pb.h"

namespace podsim::cli::testing {

inline podsim::Result parse_result(const std::string& json) {
  podsim::Result r;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &r);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json.substr(0, 400);
  return r;
}

}  // namespace podsim::cli::testing
