#include "report/message_csv.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "podsim/result.pb.h"
#include "report/table.h"

namespace podsim::report {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

using FieldPath = std::vector<const FieldDescriptor*>;

bool in_kind(const FieldDescriptor* f, std::string_view kind) {
  const auto& options = f->options();
  if (options.GetExtension(podsim::json_only))
    return false;
  const std::string& only = options.GetExtension(podsim::csv_kind);
  return only.empty() || only == kind;
}

// The leaves under `d` into `leaves`; the (csv_rows) field, when `rows` is
// given, into `rows` and its leaves into `row_leaves`.
void walk_fields(const Descriptor* d, std::string_view kind, FieldPath& prefix,
                 std::vector<FieldPath>& leaves, FieldPath* rows,
                 std::vector<FieldPath>* row_leaves) {
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (!in_kind(f, kind))
      continue;
    prefix.push_back(f);
    if (rows != nullptr && f->options().GetExtension(podsim::csv_rows)) {
      *rows = prefix;
      FieldPath inner;
      walk_fields(f->message_type(), kind, inner, *row_leaves, nullptr, nullptr);
    } else if (f->type() == FieldDescriptor::TYPE_MESSAGE) {
      walk_fields(f->message_type(), kind, prefix, leaves, rows, row_leaves);
    } else {
      leaves.push_back(prefix);
    }
    prefix.pop_back();
  }
}

std::string dotted(const FieldPath& prefix, const FieldPath& path) {
  std::string name;
  for (const FieldPath* p : {&prefix, &path}) {
    for (const FieldDescriptor* f : *p) {
      if (!name.empty())
        name += '.';
      name += f->name();
    }
  }
  return name;
}

std::string shortest(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// Element `index` of `f` in `m` (index < 0: the singular field) as a cell.
std::string leaf_cell(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
    case FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return shortest(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return shortest(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f))->name();
    case FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
    case FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
  return "";
}

// Every value the leaf `path[at..]` holds under `m`, in element order.
void leaf_values(const Message& m, const FieldPath& path, size_t at,
                 std::vector<std::string>& out) {
  const FieldDescriptor* f = path[at];
  const Reflection* r = m.GetReflection();
  const bool last = at + 1 == path.size();
  if (f->is_repeated()) {
    for (int i = 0; i < r->FieldSize(m, f); ++i) {
      if (last)
        out.push_back(leaf_cell(m, f, i));
      else
        leaf_values(r->GetRepeatedMessage(m, f, i), path, at + 1, out);
    }
    return;
  }
  if (last)
    out.push_back(leaf_cell(m, f, -1));
  else
    leaf_values(r->GetMessage(m, f), path, at + 1, out);
}

std::string joined_cell(const Message& m, const FieldPath& path) {
  std::vector<std::string> values;
  leaf_values(m, path, 0, values);
  std::string joined;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0)
      joined += ';';
    joined += values[i];
  }
  return joined;
}

}  // namespace

MessageCsv::MessageCsv(const Descriptor* root, std::string_view kind) {
  FieldPath prefix;
  walk_fields(root, kind, prefix, leaves_, &rows_, &row_leaves_);
}

std::vector<std::string> MessageCsv::columns() const {
  std::vector<std::string> names;
  names.reserve(leaves_.size() + row_leaves_.size());
  for (const FieldPath& p : leaves_)
    names.push_back(dotted({}, p));
  for (const FieldPath& p : row_leaves_)
    names.push_back(dotted(rows_, p));
  return names;
}

std::vector<std::vector<std::string>> MessageCsv::rows(const Message& m) const {
  std::vector<std::string> common;
  common.reserve(leaves_.size() + row_leaves_.size());
  for (const FieldPath& p : leaves_)
    common.push_back(joined_cell(m, p));
  if (rows_.empty())
    return {common};
  const Message* parent = &m;
  for (size_t i = 0; i + 1 < rows_.size(); ++i)
    parent = &parent->GetReflection()->GetMessage(*parent, rows_[i]);
  const FieldDescriptor* field = rows_.back();
  const Reflection* r = parent->GetReflection();
  const int n = r->FieldSize(*parent, field);
  std::vector<std::vector<std::string>> out;
  for (int i = 0; i < n; ++i) {
    const Message& element = r->GetRepeatedMessage(*parent, field, i);
    std::vector<std::string> row = common;
    for (const FieldPath& p : row_leaves_)
      row.push_back(joined_cell(element, p));
    out.push_back(std::move(row));
  }
  if (out.empty()) {
    common.resize(common.size() + row_leaves_.size());
    out.push_back(std::move(common));
  }
  return out;
}

void MessageCsv::render(const Message& m, std::ostream& out) const {
  Table t(columns());
  for (auto& row : rows(m))
    t.add_row(std::move(row));
  t.render_csv(out);
}

std::string MessageCsv::render(const Message& m) const {
  std::ostringstream out;
  render(m, out);
  return out.str();
}

}  // namespace podsim::report
