#include "config/diagnostics.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace podsim::config {
namespace {

std::string join_lines(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    if (!out.empty())
      out += '\n';
    out += d.to_string();
  }
  return out;
}

Diagnostic file_problem(const std::filesystem::path& path, std::string message) {
  Diagnostic d;
  d.file = path.string();
  d.message = std::move(message);
  return d;
}

}  // namespace

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0)
      out += ':' + std::to_string(column);
  }
  if (!out.empty())
    out += ": ";
  if (!field.empty())
    out += field + ": ";
  out += message;
  return out;
}

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

InputError::InputError(Diagnostic diagnostic)
    : InputError(std::vector<Diagnostic>{std::move(diagnostic)}) {}

std::string read_file_to_string(const std::filesystem::path& path, uint64_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    throw InputError(file_problem(path, "cannot read file: no such file"));
  }
  if (std::filesystem::is_directory(status)) {
    throw InputError(file_problem(path, "cannot read file: it is a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(file_problem(
        path, "cannot open file: " + std::error_code(errno, std::generic_category()).message()));
  }
  // In blocks, so that a device or pipe with no end stops at the limit.
  std::string contents;
  std::vector<char> block(1 << 16);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    contents.append(block.data(), static_cast<size_t>(in.gcount()));
    if (contents.size() > max_bytes) {
      throw InputError(file_problem(path, "larger than the limit of " +
                                              std::to_string(max_bytes >> 20) +
                                              " MiB for this kind of input"));
    }
  }
  if (in.bad()) {
    throw InputError(file_problem(path, "cannot read file: I/O error"));
  }
  return contents;
}

}  // namespace podsim::config
