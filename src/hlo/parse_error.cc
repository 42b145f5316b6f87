#include "hlo/parse_error.h"

#include <utility>

namespace podsim::hlo {
namespace {

std::string format_error(const std::string& file, int line, int column,
                         const std::string& message) {
  std::string out = file.empty() ? std::string("<hlo>") : file;
  out += ':';
  if (line > 0) {
    out += std::to_string(line);
    out += ':';
    out += std::to_string(column);
    out += ':';
  }
  out += ' ';
  out += message;
  return out;
}

}  // namespace

ParseError::ParseError(std::string file, int line, int column, std::string message)
    : std::runtime_error(format_error(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

}  // namespace podsim::hlo
