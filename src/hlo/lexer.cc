#include "hlo/lexer.h"

#include <limits>
#include <vector>

#include "hlo/parse_error.h"

namespace podsim::hlo {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-' || c == '$';
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string quote_char(char c) {
  if (c == '\0') {
    return "end of input";
  }
  std::string out = "'";
  out += c;
  out += '\'';
  return out;
}

}  // namespace

char Lexer::peek() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (is_space(c)) {
      ++pos_;
    } else if (c == '/' && peek_raw(1) == '*') {
      const size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) {
        fail("unterminated /* comment");
      }
      pos_ = end + 2;
    } else if (c == '/' && peek_raw(1) == '/') {
      const size_t end = text_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? text_.size() : end;
    } else {
      return c;
    }
  }
  return '\0';
}

bool Lexer::consume(char c) {
  if (peek() == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool Lexer::consume(std::string_view s) {
  peek();
  if (text_.substr(pos_, s.size()) == s) {
    pos_ += s.size();
    return true;
  }
  return false;
}

void Lexer::expect(char c, std::string_view context, std::string_view subject) {
  const char next = peek();
  if (next != c) {
    std::string what = quote_char(c);
    what += ' ';
    what += context;
    fail_expected(what, subject);
  }
  ++pos_;
}

std::string_view Lexer::name() {
  peek();
  size_t start = pos_;
  if (peek_raw() == '%') {
    ++start;
  }
  size_t end = start;
  while (end < text_.size() && is_name_char(text_[end])) {
    ++end;
  }
  if (end == start) {
    return {};
  }
  pos_ = end;
  return text_.substr(start, end - start);
}

std::string_view Lexer::expect_name(std::string_view what, std::string_view subject) {
  const std::string_view n = name();
  if (n.empty()) {
    fail_expected(what, subject);
  }
  return n;
}

std::optional<int64_t> Lexer::integer() {
  peek();
  size_t p = pos_;
  bool negative = false;
  if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) {
    negative = text_[p] == '-';
    ++p;
  }
  if (p >= text_.size() || text_[p] < '0' || text_[p] > '9') {
    return std::nullopt;
  }
  // Accumulate negatively so that INT64_MIN fits.
  int64_t value = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  while (p < text_.size() && text_[p] >= '0' && text_[p] <= '9') {
    const int digit = text_[p] - '0';
    if (value < (kMin + digit) / 10) {
      fail("integer does not fit in 64 bits");
    }
    value = value * 10 - digit;
    ++p;
  }
  if (!negative) {
    if (value == kMin) {
      fail("integer does not fit in 64 bits");
    }
    value = -value;
  }
  pos_ = p;
  return value;
}

int64_t Lexer::expect_integer(std::string_view what, std::string_view subject) {
  const std::optional<int64_t> v = integer();
  if (!v) {
    fail_expected(what, subject);
  }
  return *v;
}

std::string_view Lexer::quoted_string(std::string_view what) {
  if (peek() != '"') {
    std::string message = "expected a quoted string for ";
    message += what;
    fail(message);
  }
  const size_t start = pos_ + 1;
  size_t p = start;
  while (p < text_.size() && text_[p] != '"') {
    p += text_[p] == '\\' ? 2 : 1;
  }
  if (p >= text_.size()) {
    std::string message = "unterminated string in ";
    message += what;
    fail(message);
  }
  pos_ = p + 1;
  return text_.substr(start, p - start);
}

void Lexer::scan_balanced(std::string_view what, std::string_view subject) {
  // An explicit stack of the expected closers: bounded memory, no recursion.
  std::vector<char> closers;
  const size_t start = pos_;
  do {
    if (pos_ >= text_.size()) {
      std::string message = "unterminated ";
      message += closers.empty() ? std::string("value") : quote_char(text_[start]);
      message += " in ";
      message += what;
      message += subject;
      fail_at(start, message);
    }
    const char c = text_[pos_];
    if (c == '"') {
      quoted_string(what);  // (an unterminated string names `what` alone)
      continue;
    }
    if (c == '(' || c == '{' || c == '[') {
      closers.push_back(c == '(' ? ')' : c == '{' ? '}' : ']');
    } else if (c == ')' || c == '}' || c == ']') {
      if (closers.empty() || closers.back() != c) {
        std::string message = "unbalanced ";
        message += quote_char(c);
        message += " in ";
        message += what;
        message += subject;
        fail(message);
      }
      closers.pop_back();
    }
    ++pos_;
  } while (!closers.empty());
}

std::string_view Lexer::balanced(std::string_view what) {
  peek();
  const size_t start = pos_;
  scan_balanced(what);
  return text_.substr(start, pos_ - start);
}

std::string_view Lexer::raw_value(std::string_view what) {
  peek();
  const size_t start = pos_;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '(' || c == '{' || c == '[' || c == '"') {
      scan_balanced(what);
    } else if (c == ',' || c == ')' || c == '}' || c == ']' || is_space(c)) {
      break;
    } else {
      ++pos_;
    }
  }
  return text_.substr(start, pos_ - start);
}

std::string_view Lexer::raw_until_close(std::string_view what, std::string_view subject) {
  const size_t start = pos_;
  while (pos_ < text_.size() && text_[pos_] != ')') {
    const char c = text_[pos_];
    if (c == '(' || c == '{' || c == '[' || c == '"') {
      scan_balanced(what, subject);
    } else if (c == '}' || c == ']') {
      std::string message = "unbalanced ";
      message += quote_char(c);
      message += " in ";
      message += what;
      message += subject;
      fail(message);
    } else {
      ++pos_;
    }
  }
  if (pos_ >= text_.size()) {
    std::string message = "expected ')' to close ";
    message += what;
    message += subject;
    message += ", found end of input";
    fail(message);
  }
  return text_.substr(start, pos_ - start);
}

void Lexer::fail_expected(std::string_view what, std::string_view subject) {
  std::string message = "expected ";
  message += what;
  message += subject;
  message += ", found ";
  message += quote_char(peek());
  fail(message);
}

void Lexer::fail(const std::string& message) const {
  fail_at(pos_, message);
}

void Lexer::fail_at(size_t offset, const std::string& message) const {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  throw ParseError(file_, line, static_cast<int>(offset - line_start) + 1, message);
}

}  // namespace podsim::hlo
