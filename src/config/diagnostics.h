// Diagnostics for bad input files: what is wrong, where, and in which field.
//
// Every loader in src/config reports bad input by throwing InputError with one
// Diagnostic per problem it found (all of them, not just the first), so a user
// fixes a file in one pass. Only main() turns an InputError into an exit code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace podsim::config {

struct Diagnostic {
  std::string file;   // as the user named it, or "<embedded:...>"; may be empty
  std::string field;  // field path such as "torus.dims[1].size"; empty when unknown
  int line = 0;       // 1-based; 0 when unknown (binary input, missing fields)
  int column = 0;     // 1-based; 0 when unknown
  std::string message;

  // "topologies/x.textproto:12:5: torus.dims[1].size: must be >= 1, got 0".
  // The line:column part appears only when the line is known, the field part
  // only when the field is known.
  std::string to_string() const;
};

// Bad input: one or more diagnostics. what() is every diagnostic's
// to_string(), joined by newlines.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  explicit InputError(Diagnostic diagnostic);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// The largest input file read whole (docs/inputs.md, "Limits"): topologies,
// workloads, sweeps and profiles are kilobytes; measured op tables and result
// CSVs may be large, but not unbounded (/dev/zero).
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{64} << 20;
inline constexpr uint64_t kMaxTableFileBytes = uint64_t{1} << 30;

// What a file may hold: any bytes (Protobuf binary), or text, where a NUL
// byte means the file is not what was asked for (CSV tables: /dev/zero or a
// binary file is refused at its first block, not after a gigabyte).
enum class FileContents { kAnyBytes, kText };

// Reads a whole file as bytes, at most `max_bytes` of them. Throws
// InputError naming the file when it does not exist, is a directory, cannot
// be read, is larger (a regular file's size is checked before reading; a
// device or pipe is read no further than the limit), or, for kText, holds a
// NUL byte.
std::string read_file_to_string(const std::filesystem::path& path,
                                uint64_t max_bytes = kMaxInputFileBytes,
                                FileContents contents = FileContents::kAnyBytes);

// Why `path` cannot be an input file that a serve or sweep file names: "no
// such file: P", "P is a directory", "P is a character device, not a
// file", ...; empty for a regular file (links followed).
std::string input_file_problem(const std::filesystem::path& path);

}  // namespace podsim::config
