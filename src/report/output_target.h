// Where an output really goes, decided once before the first byte is written.
//
// A user names an output with a path; what is there decides how it is
// written without losing anything:
//   - nothing, or a regular file: a temporary beside the file is renamed over
//     it once complete (AtomicFile), keeping an existing file's mode and, for
//     root, its owner;
//   - a regular file with other hard links: the complete temporary is copied
//     into the file, so every name keeps seeing the new contents;
//   - a symbolic link: followed, by hand, to the file it names (dangling: the
//     file is created there), so the link itself stays a link;
//   - a character device (/dev/null, a terminal) or a FIFO: written in place,
//     never replaced; there are no old contents to protect;
//   - an open descriptor's name (/dev/stdout, /dev/fd/N, /proc/self/fd/N):
//     written in place through the descriptor's file, appending, as the
//     shell's redirection set it up;
//   - a directory, block device or socket: refused.
#pragma once

#include <filesystem>
#include <string>

namespace podsim::report {

enum class OutputKind {
  kReplace,  // temporary beside `file`, renamed over it
  kRewrite,  // temporary beside `file`, copied into it (hard links kept)
  kInPlace,  // opened and written directly (device, FIFO, open descriptor)
};

struct OutputTarget {
  OutputKind kind = OutputKind::kReplace;
  // The file written: the path as named for in-place writes, else the file
  // its symbolic links lead to.
  std::filesystem::path file;
  bool exists = false;  // a regular file is there now (its mode and owner are kept)
  unsigned mode = 0;    // permission bits of the existing file
  unsigned uid = 0;
  unsigned gid = 0;
  bool append = false;  // in place through an open descriptor's name
};

// Decides how `path` is written. Throws OutputError naming `path` for a
// directory, block device, socket, a loop of links or a status that cannot
// be read. Does not create or open anything.
OutputTarget resolve_output(const std::filesystem::path& path);

// Whether `path` names a character device (writing to it loses nothing, so
// several outputs may share it: `--out /dev/null --trace /dev/null`).
bool is_character_device(const std::filesystem::path& path);

}  // namespace podsim::report
