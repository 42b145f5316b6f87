// Output that is written whole or not at all.
//
// Results are rendered into memory first; commit() writes them to a temporary
// file beside the destination and renames it into place, so a failed run (bad
// input, a crash, a full disk) never leaves a half-written file behind.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace podsim::report {

// An output file could not be written (no such directory, no permission, disk
// full). The CLI treats it as bad usage (exit 2): the user named the path.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `contents` to `path` atomically (temp file in the same directory, then
// rename). Throws OutputError naming the path on any I/O failure, after
// removing the temporary file.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace podsim::report
