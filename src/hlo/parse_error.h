// The error the HLO reader throws for bad input: file, line, column and what
// was expected there. It derives from std::runtime_error, as
// config::InputError does; the layer depends on nothing else, so a caller
// that reports input errors (exit 2) converts it, e.g. into a
// config::Diagnostic {file, "", line, column, message}.
#pragma once

#include <stdexcept>
#include <string>

namespace podsim::hlo {

class ParseError : public std::runtime_error {
 public:
  // what(): "model.hlo:12:34: expected ')' to close the operand list of
  // %fusion.3" (line and column omitted when 0).
  ParseError(std::string file, int line, int column, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

}  // namespace podsim::hlo
