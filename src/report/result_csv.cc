#include "report/result_csv.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <charconv>
#include <cmath>

#include "report/table.h"

namespace podsim::report {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

using Path = std::vector<const FieldDescriptor*>;

// The columns of a kind: the leaves outside the rows field, then the leaves
// under it (relative to one element).
struct Layout {
  std::vector<Path> leaves;
  Path rows;                     // the (csv_rows) field's path; empty when none
  std::vector<Path> row_leaves;  // relative to one element of it
};

bool included(const FieldDescriptor* f, std::string_view kind) {
  const auto& options = f->options();
  if (options.GetExtension(podsim::json_only)) {
    return false;
  }
  const std::string& only = options.GetExtension(podsim::csv_kind);
  return only.empty() || only == kind;
}

void walk(const Descriptor* d, std::string_view kind, Path& prefix, std::vector<Path>& leaves,
          Layout* layout) {
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (!included(f, kind)) {
      continue;
    }
    prefix.push_back(f);
    if (layout != nullptr && f->options().GetExtension(podsim::csv_rows)) {
      layout->rows = prefix;
      Path inner;
      walk(f->message_type(), kind, inner, layout->row_leaves, nullptr);
    } else if (f->type() == FieldDescriptor::TYPE_MESSAGE) {
      walk(f->message_type(), kind, prefix, leaves, layout);
    } else {
      leaves.push_back(prefix);
    }
    prefix.pop_back();
  }
}

Layout walk_layout(std::string_view kind) {
  Layout layout;
  Path prefix;
  walk(podsim::Result::descriptor(), kind, prefix, layout.leaves, &layout);
  return layout;
}

// The layout of a kind. Those of the two kinds csv_kind() gives are walked
// once (a sweep renders thousands of rows; the walk reads every field's
// options) and kept, immutable, for the life of the process.
const Layout& layout_of(std::string_view kind, Layout& scratch) {
  static const Layout serving = walk_layout("serving");
  static const Layout op_list = walk_layout("op_list");
  if (kind == "serving")
    return serving;
  if (kind == "op_list")
    return op_list;
  scratch = walk_layout(kind);
  return scratch;
}

std::string name_of(const Path& prefix, const Path& path) {
  std::string name;
  for (const Path* p : {&prefix, &path}) {
    for (const FieldDescriptor* f : *p) {
      name += (name.empty() ? "" : ".") + f->name();
    }
  }
  return name;
}

std::string number(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "Infinity" : "-Infinity";
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// Element `index` of `f` in `m` (index < 0: the singular field) as a cell.
std::string scalar(const Message& m, const FieldDescriptor* f, int index) {
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
      return number(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return number(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
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
void collect(const Message& m, const Path& path, size_t at, std::vector<std::string>& out) {
  const FieldDescriptor* f = path[at];
  const Reflection* r = m.GetReflection();
  const bool last = at + 1 == path.size();
  if (f->is_repeated()) {
    for (int i = 0; i < r->FieldSize(m, f); ++i) {
      if (last) {
        out.push_back(scalar(m, f, i));
      } else {
        collect(r->GetRepeatedMessage(m, f, i), path, at + 1, out);
      }
    }
    return;
  }
  if (last) {
    out.push_back(scalar(m, f, -1));
  } else {
    collect(r->GetMessage(m, f), path, at + 1, out);
  }
}

std::string cell(const Message& m, const Path& path) {
  std::vector<std::string> values;
  collect(m, path, 0, values);
  std::string joined;
  for (size_t i = 0; i < values.size(); ++i) {
    joined += (i == 0 ? "" : ";") + values[i];
  }
  return joined;
}

// The message that holds the rows field, and the field itself.
const Message& rows_parent(const Message& root, const Path& rows) {
  const Message* m = &root;
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    m = &m->GetReflection()->GetMessage(*m, rows[i]);
  }
  return *m;
}

}  // namespace

std::string_view csv_kind(const podsim::Result& r) {
  return r.inputs().workload().form() == "op_list" ? "op_list" : "serving";
}

std::vector<std::string> csv_columns(std::string_view kind) {
  Layout scratch;
  const Layout& layout = layout_of(kind, scratch);
  std::vector<std::string> names;
  for (const Path& p : layout.leaves) {
    names.push_back(name_of({}, p));
  }
  for (const Path& p : layout.row_leaves) {
    names.push_back(name_of(layout.rows, p));
  }
  return names;
}

std::vector<std::vector<std::string>> csv_rows(const podsim::Result& r) {
  Layout scratch;
  const Layout& layout = layout_of(csv_kind(r), scratch);
  std::vector<std::string> common;
  for (const Path& p : layout.leaves) {
    common.push_back(cell(r, p));
  }
  if (layout.rows.empty()) {
    return {common};
  }
  const Message& parent = rows_parent(r, layout.rows);
  const FieldDescriptor* field = layout.rows.back();
  const int n = parent.GetReflection()->FieldSize(parent, field);
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < n; ++i) {
    const Message& element = parent.GetReflection()->GetRepeatedMessage(parent, field, i);
    std::vector<std::string> row = common;
    for (const Path& p : layout.row_leaves) {
      row.push_back(cell(element, p));
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    common.resize(common.size() + layout.row_leaves.size());
    rows.push_back(std::move(common));
  }
  return rows;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0)
      line += ',';
    line += csv_escape(cells[i]);
  }
  line += '\n';
  return line;
}

void render_result_csv(const podsim::Result& r, std::ostream& out) {
  Table t(csv_columns(csv_kind(r)));
  for (auto& row : csv_rows(r)) {
    t.add_row(std::move(row));
  }
  t.render_csv(out);
}

}  // namespace podsim::report
