#include "config/diagnostics.h"

#include <cerrno>
#include <cstring>
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

namespace {

std::string limit_text(uint64_t max_bytes) {
  return std::to_string(max_bytes >> 20) + " MiB";
}

}  // namespace

std::string read_file_to_string(const std::filesystem::path& path, uint64_t max_bytes,
                                FileContents contents) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    throw InputError(file_problem(path, "cannot read file: no such file"));
  }
  if (std::filesystem::is_directory(status)) {
    throw InputError(file_problem(path, "cannot read file: it is a directory"));
  }
  if (std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes) {
      throw InputError(file_problem(
          path, "larger than the limit of " + limit_text(max_bytes) + " for this kind of input"));
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(file_problem(
        path, "cannot open file: " + std::error_code(errno, std::generic_category()).message()));
  }
  // In blocks, so that a device or pipe with no end stops at the limit.
  std::string contents_read;
  std::vector<char> block(1 << 16);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto n = static_cast<size_t>(in.gcount());
    if (contents == FileContents::kText) {
      if (const void* nul = std::memchr(block.data(), 0, n)) {
        const size_t at = contents_read.size() +
                          static_cast<size_t>(static_cast<const char*>(nul) - block.data());
        throw InputError(file_problem(path, "byte " + std::to_string(at + 1) +
                                                " is a NUL: not a text file (binary data, or "
                                                "a device such as /dev/zero)"));
      }
    }
    contents_read.append(block.data(), n);
    if (contents_read.size() > max_bytes) {
      throw InputError(file_problem(
          path, "larger than the limit of " + limit_text(max_bytes) + " for this kind of input"));
    }
  }
  if (in.bad()) {
    throw InputError(file_problem(path, "cannot read file: I/O error"));
  }
  return contents_read;
}

std::string input_file_problem(const std::filesystem::path& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  switch (st.type()) {
    case std::filesystem::file_type::regular:
      return {};
    case std::filesystem::file_type::not_found:
    case std::filesystem::file_type::none:
      return "no such file: " + path.string();
    case std::filesystem::file_type::directory:
      return path.string() + " is a directory, not a file";
    case std::filesystem::file_type::character:
      return path.string() + " is a character device, not a file";
    case std::filesystem::file_type::block:
      return path.string() + " is a block device, not a file";
    case std::filesystem::file_type::fifo:
      return path.string() + " is a FIFO, not a file";
    case std::filesystem::file_type::socket:
      return path.string() + " is a socket, not a file";
    default:
      return "cannot read " + path.string() + ": " +
             (ec ? ec.message() : std::string("not a regular file"));
  }
}

}  // namespace podsim::config
