// The HLO reader's cursor over the text: trivia (whitespace, /*...*/ and //
// comments), names, integers, quoted strings, and raw balanced spans for the
// values the parser keeps as text or skips. Every read is O(length read);
// nothing recurses. Errors are ParseErrors at the cursor's line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace podsim::hlo {

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  // Skips whitespace and comments; returns the next character ('\0' at the end).
  char peek();
  // The character at the cursor, trivia not skipped ('\0' at the end).
  char peek_raw() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  char peek_raw(size_t ahead) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool at_end() { return peek() == '\0'; }
  // After trivia: consumes `c` / `s` when next, and says whether it did.
  bool consume(char c);
  bool consume(std::string_view s);
  // After trivia: consumes `c` or fails with "expected 'c' <context><subject>".
  // The message is built only on failure: the hot path allocates nothing.
  void expect(char c, std::string_view context, std::string_view subject = {});

  // After trivia: a name, `%` optional ([A-Za-z0-9_.$-]), returned without
  // the `%`; empty when none is next (nothing consumed).
  std::string_view name();
  // As name() but fails with "expected <what><subject>" when none is next.
  std::string_view expect_name(std::string_view what, std::string_view subject = {});
  // After trivia: an optionally signed decimal integer; nullopt when none is
  // next; fails when it does not fit in int64.
  std::optional<int64_t> integer();
  int64_t expect_integer(std::string_view what, std::string_view subject = {});
  // After trivia, at '"': the string's content (escapes left as written).
  std::string_view quoted_string(std::string_view what);
  // After trivia: a raw attribute value, up to a ',' or whitespace outside
  // brackets, an unmatched closing bracket, or the end; brackets ( { [ and
  // quotes balanced. Fails on an unterminated bracket or string.
  std::string_view raw_value(std::string_view what);
  // At an opening bracket: the span through its matching closer.
  std::string_view balanced(std::string_view what);
  // The raw text up to (not including) the first ')' outside brackets and
  // strings, e.g. a constant's literal; fails at the end of the text.
  std::string_view raw_until_close(std::string_view what, std::string_view subject = {});

  uint32_t offset() const { return static_cast<uint32_t>(pos_); }
  void seek(uint32_t offset) { pos_ = offset; }
  std::string_view text() const { return text_; }
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& message) const;
  // "expected <what><subject>, found '<next character>'".
  [[noreturn]] void fail_expected(std::string_view what, std::string_view subject);
  [[noreturn]] void fail_at(size_t offset, const std::string& message) const;

 private:
  // Scans a balanced span from pos_ (at an opening bracket or quote) and
  // leaves pos_ after it.
  void scan_balanced(std::string_view what, std::string_view subject = {});

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
};

bool is_name_char(char c);

}  // namespace podsim::hlo
