// Output that is written whole or not at all.
//
// Results are rendered into memory first; commit() writes them to a temporary
// file beside the destination and renames it into place, so a failed run (bad
// input, a crash, a full disk) never leaves a half-written file behind.
#pragma once

#include <filesystem>
#include <string_view>

namespace podsim::report {

// Writes `contents` to `path` atomically (temp file in the same directory, then
// rename). Throws std::runtime_error naming the path on any I/O failure, after
// removing the temporary file.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace podsim::report
