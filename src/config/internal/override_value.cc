#include "config/internal/override_value.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <variant>

#include "config/internal/enum_values.h"
#include "config/internal/issue_list.h"

namespace podsim::config::internal {
namespace {

namespace pb = google::protobuf;
using Cpp = pb::FieldDescriptor::CppType;

using Scalar =
    std::variant<int64_t, uint64_t, double, bool, std::string, const pb::EnumValueDescriptor*>;

// A value converted to a field's type, or the reason it cannot be.
struct Converted {
  std::optional<Scalar> value;
  std::string error;
};

Converted fail(std::string error) {
  return Converted{std::nullopt, std::move(error)};
}

// Reads a quoted string starting at text[*pos] (a quote) into `out`;
// advances *pos past the closing quote. Returns "" or the error.
std::string read_quoted(std::string_view text, size_t* pos, std::string& out) {
  const char quote = text[*pos];
  for (size_t i = *pos + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == quote) {
      *pos = i + 1;
      return {};
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == text.size())
      break;
    switch (text[i]) {
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case '\'':
        out += '\'';
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      default:
        return "unknown escape \\" + std::string(1, text[i]) + " in " + quoted(text);
    }
  }
  return "unterminated quoted string " + std::string(text);
}

Converted to_string_value(std::string_view text) {
  if (text.empty() || (text[0] != '"' && text[0] != '\''))
    return Converted{Scalar(std::string(text)), {}};
  std::string out;
  size_t pos = 0;
  std::string error = read_quoted(text, &pos, out);
  if (error.empty() && pos != text.size())
    error = "text after the closing quote in " + std::string(text);
  if (!error.empty())
    return fail(error);
  return Converted{Scalar(std::move(out)), {}};
}

// Whole numbers in decimal, checked against [min, max] of the field's type.
template <typename T>
Converted to_integer(std::string_view text, std::string_view type) {
  const std::string range = "out of range for " + std::string(type) + " (" +
                            std::to_string(std::numeric_limits<T>::min()) + " to " +
                            std::to_string(std::numeric_limits<T>::max()) + ")";
  const bool negative = !text.empty() && text[0] == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return fail(quoted(text) + " is not a whole number (" + std::string(type) + ")");
  if (negative && std::is_unsigned_v<T>)
    return fail(std::string(text) + " is " + range);
  T value{};
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    return fail(std::string(text) + " is " + range);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return fail(quoted(text) + " is not a whole number (" + std::string(type) + ")");
  if constexpr (std::is_unsigned_v<T>)
    return Converted{Scalar(uint64_t{value}), {}};
  else
    return Converted{Scalar(int64_t{value}), {}};
}

Converted to_floating(std::string_view text, bool single) {
  const std::string_view type = single ? "float" : "double";
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc() && single && std::isfinite(value) &&
       std::abs(value) > std::numeric_limits<float>::max())) {
    return fail(std::string(text) + " is out of range for " + std::string(type));
  }
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    return fail(quoted(text) + " is not a number (" + std::string(type) + ")");
  return Converted{Scalar(value), {}};
}

Converted to_bool(std::string_view text) {
  if (text == "true" || text == "True" || text == "1")
    return Converted{Scalar(true), {}};
  if (text == "false" || text == "False" || text == "0")
    return Converted{Scalar(false), {}};
  return fail(quoted(text) + " is not a bool: write true or false");
}

Converted to_enum(std::string_view text, const pb::EnumDescriptor& e) {
  if (const pb::EnumValueDescriptor* v = e.FindValueByName(std::string(text)))
    return Converted{Scalar(v), {}};
  const bool number =
      !text.empty() && text.find_first_not_of("-0123456789") == std::string_view::npos;
  return fail(quoted(text) + " is not a " + e.full_name() + " value" +
              (number ? " (enum values are written by name)" : "") + ": one of " +
              value_names(e, false));
}

Converted convert(const pb::FieldDescriptor& field, std::string_view text) {
  switch (field.cpp_type()) {
    case Cpp::CPPTYPE_INT32:
      return to_integer<int32_t>(text, "int32");
    case Cpp::CPPTYPE_INT64:
      return to_integer<int64_t>(text, "int64");
    case Cpp::CPPTYPE_UINT32:
      return to_integer<uint32_t>(text, "uint32");
    case Cpp::CPPTYPE_UINT64:
      return to_integer<uint64_t>(text, "uint64");
    case Cpp::CPPTYPE_DOUBLE:
      return to_floating(text, false);
    case Cpp::CPPTYPE_FLOAT:
      return to_floating(text, true);
    case Cpp::CPPTYPE_BOOL:
      return to_bool(text);
    case Cpp::CPPTYPE_STRING:
      return to_string_value(text);
    case Cpp::CPPTYPE_ENUM:
      return to_enum(text, *field.enum_type());
    case Cpp::CPPTYPE_MESSAGE:
      break;
  }
  return fail("is a message, not a value");
}

// Sets (index >= 0: element `index`; index < 0: the singular field) or, when
// `add`, appends. The value has the field's type (convert() made it).
void store(pb::Message& m, const pb::FieldDescriptor& f, int index, bool add, const Scalar& v) {
  const pb::Reflection& r = *m.GetReflection();
  const bool element = index >= 0;
  switch (f.cpp_type()) {
    case Cpp::CPPTYPE_INT32: {
      const auto x = static_cast<int32_t>(std::get<int64_t>(v));
      add       ? r.AddInt32(&m, &f, x)
      : element ? r.SetRepeatedInt32(&m, &f, index, x)
                : r.SetInt32(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_INT64: {
      const int64_t x = std::get<int64_t>(v);
      add       ? r.AddInt64(&m, &f, x)
      : element ? r.SetRepeatedInt64(&m, &f, index, x)
                : r.SetInt64(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_UINT32: {
      const auto x = static_cast<uint32_t>(std::get<uint64_t>(v));
      add       ? r.AddUInt32(&m, &f, x)
      : element ? r.SetRepeatedUInt32(&m, &f, index, x)
                : r.SetUInt32(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_UINT64: {
      const uint64_t x = std::get<uint64_t>(v);
      add       ? r.AddUInt64(&m, &f, x)
      : element ? r.SetRepeatedUInt64(&m, &f, index, x)
                : r.SetUInt64(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_DOUBLE: {
      const double x = std::get<double>(v);
      add       ? r.AddDouble(&m, &f, x)
      : element ? r.SetRepeatedDouble(&m, &f, index, x)
                : r.SetDouble(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_FLOAT: {
      const auto x = static_cast<float>(std::get<double>(v));
      add       ? r.AddFloat(&m, &f, x)
      : element ? r.SetRepeatedFloat(&m, &f, index, x)
                : r.SetFloat(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_BOOL: {
      const bool x = std::get<bool>(v);
      add       ? r.AddBool(&m, &f, x)
      : element ? r.SetRepeatedBool(&m, &f, index, x)
                : r.SetBool(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_STRING: {
      const std::string& x = std::get<std::string>(v);
      add       ? r.AddString(&m, &f, x)
      : element ? r.SetRepeatedString(&m, &f, index, x)
                : r.SetString(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_ENUM: {
      const pb::EnumValueDescriptor* x = std::get<const pb::EnumValueDescriptor*>(v);
      add       ? r.AddEnum(&m, &f, x)
      : element ? r.SetRepeatedEnum(&m, &f, index, x)
                : r.SetEnum(&m, &f, x);
      break;
    }
    case Cpp::CPPTYPE_MESSAGE:
      break;
  }
}

}  // namespace

std::string set_value(pb::Message& message, const pb::FieldDescriptor& field, int index,
                      std::string_view text) {
  if (!text.empty() && text[0] == '[')
    return "is a single " + type_name(field) + ", not a list";
  Converted c = convert(field, text);
  if (!c.value)
    return c.error;
  // Element `size` of a list appends one (docs/inputs.md, "Overrides").
  const bool add = index >= 0 && index == message.GetReflection()->FieldSize(message, &field);
  store(message, field, index, add, *c.value);
  return {};
}

std::string set_list(pb::Message& message, const pb::FieldDescriptor& field,
                     std::string_view list) {
  std::string error;
  const auto elements = split_list(list, error);
  if (!elements)
    return error;
  std::vector<Scalar> values;
  for (size_t i = 0; i < elements->size(); ++i) {
    Converted c = convert(field, (*elements)[i]);
    if (!c.value)
      return "element " + std::to_string(i) + ": " + c.error;
    values.push_back(std::move(*c.value));
  }
  message.GetReflection()->ClearField(&message, &field);
  for (const Scalar& v : values)
    store(message, field, -1, true, v);
  return {};
}

std::optional<std::vector<std::string>> split_list(std::string_view text, std::string& error) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    error = "expected a list [a, b, ...], got " + quoted(text);
    return std::nullopt;
  }
  const std::string_view inner = text.substr(1, text.size() - 2);
  std::vector<std::string> out;
  constexpr std::string_view kSpaces = " \t";
  size_t i = inner.find_first_not_of(kSpaces);
  if (i == std::string_view::npos)
    return out;  // "[]" or "[ ]": an empty list
  while (true) {
    i = std::min(inner.find_first_not_of(kSpaces, i), inner.size());
    size_t end = i;
    if (i < inner.size() && (inner[i] == '"' || inner[i] == '\'')) {
      std::string ignored;
      const std::string e = read_quoted(inner, &end, ignored);
      if (!e.empty()) {
        error = e;
        return std::nullopt;
      }
    } else {
      end = std::min(inner.find(',', i), inner.size());
    }
    std::string_view element = inner.substr(i, end - i);
    element = element.substr(0, element.find_last_not_of(kSpaces) + 1);
    if (element.empty()) {
      error = "element " + std::to_string(out.size()) + " of " + std::string(text) + " is empty";
      return std::nullopt;
    }
    out.emplace_back(element);
    const size_t next = std::min(inner.find_first_not_of(kSpaces, end), inner.size());
    if (next == inner.size())
      return out;
    if (inner[next] != ',') {
      error = "expected ',' after element " + std::to_string(out.size() - 1) + " of " +
              std::string(text);
      return std::nullopt;
    }
    i = next + 1;
  }
}

std::string type_name(const pb::FieldDescriptor& field) {
  if (field.cpp_type() == Cpp::CPPTYPE_ENUM)
    return field.enum_type()->full_name();
  if (field.cpp_type() == Cpp::CPPTYPE_MESSAGE)
    return field.message_type()->full_name();
  return field.type_name();
}

}  // namespace podsim::config::internal
