#include "json_value.h"

#include <cstdlib>
#include <stdexcept>

namespace podsim::testing {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  JsonValue document() {
    JsonValue v = value();
    skip_space();
    if (at_ != s_.size()) {
      fail("trailing characters");
    }
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(at_));
  }
  void skip_space() {
    while (at_ < s_.size() &&
           (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' || s_[at_] == '\t')) {
      ++at_;
    }
  }
  char peek() {
    skip_space();
    if (at_ >= s_.size()) {
      fail("unexpected end");
    }
    return s_[at_];
  }
  void expect(char c) {
    if (peek() != c) {
      fail(std::string("expected '") + c + "'");
    }
    ++at_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(at_, word.size()) == word) {
      at_ += word.size();
      return true;
    }
    return false;
  }

  JsonValue value() {
    const char c = peek();
    if (c == '{') {
      return object();
    }
    if (c == '[') {
      return array();
    }
    if (c == '"') {
      return JsonValue(string());
    }
    if (literal("true")) {
      return JsonValue(true);
    }
    if (literal("false")) {
      return JsonValue(false);
    }
    if (literal("null")) {
      return JsonValue();
    }
    return number();
  }

  JsonValue object() {
    expect('{');
    JsonValue::Object o;
    if (peek() == '}') {
      ++at_;
      return JsonValue(std::move(o));
    }
    for (;;) {
      if (peek() != '"') {
        fail("expected a key");
      }
      std::string k = string();
      expect(':');
      if (!o.emplace(k, value()).second) {
        fail("duplicate key '" + k + "'");
      }
      if (peek() == ',') {
        ++at_;
        continue;
      }
      expect('}');
      return JsonValue(std::move(o));
    }
  }

  JsonValue array() {
    expect('[');
    JsonValue::Array a;
    if (peek() == ']') {
      ++at_;
      return JsonValue(std::move(a));
    }
    for (;;) {
      a.push_back(value());
      if (peek() == ',') {
        ++at_;
        continue;
      }
      expect(']');
      return JsonValue(std::move(a));
    }
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    while (at_ < s_.size() && s_[at_] != '"') {
      const char c = s_[at_++];
      if (static_cast<unsigned char>(c) < 0x20) {
        fail("control character in a string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= s_.size()) {
        fail("unfinished escape");
      }
      const char e = s_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (at_ + 4 > s_.size()) {
            fail("short \\u escape");
          }
          const std::string hex(s_.substr(at_, 4));
          char* end = nullptr;
          const unsigned long cp = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) {
            fail("bad \\u escape");
          }
          at_ += 4;
          append_utf8(out, static_cast<unsigned>(cp));
          break;
        }
        default:
          fail("bad escape");
      }
    }
    if (at_ >= s_.size()) {
      fail("unterminated string");
    }
    ++at_;
    return out;
  }

  // The JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  JsonValue number() {
    const size_t begin = at_;
    auto digits = [this] {
      const size_t from = at_;
      while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') {
        ++at_;
      }
      return at_ - from;
    };
    if (at_ < s_.size() && s_[at_] == '-') {
      ++at_;
    }
    const size_t int_start = at_;
    const size_t n = digits();
    if (n == 0 || (n > 1 && s_[int_start] == '0')) {
      fail("bad number");
    }
    if (at_ < s_.size() && s_[at_] == '.') {
      ++at_;
      if (digits() == 0) {
        fail("bad fraction");
      }
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) {
        ++at_;
      }
      if (digits() == 0) {
        fail("bad exponent");
      }
    }
    return JsonValue(std::strtod(std::string(s_.substr(begin, at_ - begin)).c_str(), nullptr));
  }

  std::string_view s_;
  size_t at_ = 0;
};

template <typename T>
const T& get(const auto& v, const char* what) {
  if (const T* p = std::get_if<T>(&v)) {
    return *p;
  }
  throw std::runtime_error(std::string("JSON value is not ") + what);
}

}  // namespace

bool JsonValue::as_bool() const {
  return get<bool>(v_, "a bool");
}
double JsonValue::as_number() const {
  return get<double>(v_, "a number");
}
const std::string& JsonValue::as_string() const {
  return get<std::string>(v_, "a string");
}
const JsonValue::Array& JsonValue::as_array() const {
  return get<Array>(v_, "an array");
}
const JsonValue::Object& JsonValue::as_object() const {
  return get<Object>(v_, "an object");
}

bool JsonValue::has(const std::string& key) const {
  return as_object().count(key) != 0;
}

const JsonValue& JsonValue::operator[](const std::string& key) const {
  const auto& o = as_object();
  const auto it = o.find(key);
  if (it == o.end()) {
    throw std::runtime_error("JSON object has no key '" + key + "'");
  }
  return it->second;
}

JsonValue parse_json(std::string_view text) {
  return Parser(text).document();
}

}  // namespace podsim::testing
