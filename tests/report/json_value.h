// A minimal JSON reader for tests: parses a whole document into a tree, so
// tests can check what podsim writes without trusting podsim's own writer.
// Recursive descent over RFC 8259 (numbers as double; \u escapes in the BMP
// become UTF-8). Throws std::runtime_error with the byte offset on bad input.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace podsim::testing {

class JsonValue {
 public:
  using Array = std::vector<JsonValue>;
  using Object = std::map<std::string, JsonValue>;

  JsonValue() = default;  // null
  explicit JsonValue(bool b) : v_(b) {}
  explicit JsonValue(double d) : v_(d) {}
  explicit JsonValue(std::string s) : v_(std::move(s)) {}
  explicit JsonValue(Array a) : v_(std::move(a)) {}
  explicit JsonValue(Object o) : v_(std::move(o)) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_number() const { return std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_array() const { return std::holds_alternative<Array>(v_); }
  bool is_object() const { return std::holds_alternative<Object>(v_); }

  // Accessors throw std::runtime_error on the wrong type or a missing key.
  bool as_bool() const;
  double as_number() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;
  bool has(const std::string& key) const;
  const JsonValue& operator[](const std::string& key) const;

 private:
  std::variant<std::monostate, bool, double, std::string, Array, Object> v_;
};

JsonValue parse_json(std::string_view text);

}  // namespace podsim::testing
