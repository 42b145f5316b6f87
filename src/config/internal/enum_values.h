// Checks shared by the validators of enum fields: binary input (and text
// written as a number) may carry a value the schema does not define, which
// proto3 keeps and podsim rejects; messages list the values that are allowed.
//
// Internal to src/config: it reads protobuf enum descriptors.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>

#include "config/internal/issue_list.h"

namespace podsim::config::internal {

// "BF16, FP32, ...": the names of an enum's values in schema order, the zero
// value left out when `skip_zero` (it means "unset"). O(values).
std::string value_names(const google::protobuf::EnumDescriptor& e, bool skip_zero);

// True when `value` is one of the enum's values; otherwise adds an issue
// under `path` that lists them and returns false.
bool known_value(const google::protobuf::EnumDescriptor& e, int value, const FieldPath& path,
                 IssueList& issues);

// True when `value` is set (not the zero value) and known; otherwise adds
// "must be set: one of ..." or the unknown-value issue and returns false.
bool set_and_known(const google::protobuf::EnumDescriptor& e, int value, const FieldPath& path,
                   IssueList& issues);

}  // namespace podsim::config::internal
