// Output that is written whole or not at all.
//
// Results go to a temporary file beside the destination, which is renamed
// into place only when everything was written, so a failed run (bad input, a
// crash, a full disk) never leaves a half-written file behind. A long sweep
// streams its rows into the temporary file as they finish (AtomicFile), so
// its memory does not grow with its output.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "report/interrupt_cleanup.h"

namespace podsim::report {

// An output file could not be written (no such directory, no permission, disk
// full). The CLI treats it as bad usage (exit 2): the user named the path.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file written in pieces and put in place by commit(). Until then the
// destination is untouched; destroying an uncommitted AtomicFile removes the
// temporary file. Every failure throws OutputError naming the destination,
// after removing the temporary file.
class AtomicFile {
 public:
  // Opens ".NAME.tmp.<pid>" in the destination's directory.
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view contents);
  // Flushes, closes and renames the temporary file into place. Once.
  void commit();

  const std::filesystem::path& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what);

  std::filesystem::path path_;
  std::filesystem::path tmp_;
  std::ofstream out_;
  bool committed_ = false;
  std::unique_ptr<InterruptCleanup> cleanup_;  // removes tmp_ on SIGINT
};

// Writes `contents` to `path` atomically (one AtomicFile).
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace podsim::report
