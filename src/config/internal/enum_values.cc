#include "config/internal/enum_values.h"

namespace podsim::config::internal {

namespace pb = google::protobuf;

std::string value_names(const pb::EnumDescriptor& e, bool skip_zero) {
  std::string out;
  for (int i = 0; i < e.value_count(); ++i) {
    if (skip_zero && e.value(i)->number() == 0)
      continue;
    if (!out.empty())
      out += ", ";
    out += e.value(i)->name();
  }
  return out;
}

bool known_value(const pb::EnumDescriptor& e, int value, const FieldPath& path, IssueList& issues) {
  if (e.FindValueByNumber(value) != nullptr)
    return true;
  issues.add(
      path, "unknown value " + std::to_string(value) + ": must be one of " + value_names(e, false));
  return false;
}

bool set_and_known(const pb::EnumDescriptor& e, int value, const FieldPath& path,
                   IssueList& issues) {
  if (value == 0) {
    issues.add(path, "must be set: one of " + value_names(e, true));
    return false;
  }
  return known_value(e, value, path, issues);
}

}  // namespace podsim::config::internal
