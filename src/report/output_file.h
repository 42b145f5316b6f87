// Output that is written whole or not at all, without losing what is there.
//
// Results go to a temporary file beside the destination, which is put in
// place only when everything was written, so a failed run (bad input, a
// crash, a full disk) never leaves a half-written file behind. The temporary
// has no name until then (O_TMPFILE), so no way the process ends, SIGKILL
// included, leaves it behind; where the file system or /proc lacks what that
// needs it is ".NAME.tmp.<pid>", removed on exit and on the signals of
// report/interrupt_cleanup.h. A long sweep
// streams its rows into the temporary file as they finish (AtomicFile), so
// its memory does not grow with its output. What is at the destination
// decides how it is put in place (report/output_target.h): a regular file is
// replaced keeping its mode, owner and hard links; a symbolic link is
// followed; a character device (/dev/null) or FIFO is written in place.
//
// A command with several outputs finishes every one before it puts any in
// place (commit_together), and an interrupt arriving while they are put in
// place waits until all are: the outputs change together or not at all.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "report/interrupt_cleanup.h"
#include "report/output_target.h"

namespace podsim::report {

// An output file could not be written (no such directory, no permission, disk
// full, a directory in the way). The CLI treats it as bad usage (exit 2): the
// user named the path.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file written in pieces and put in place by commit(). Until then the
// destination is untouched (a device or FIFO is written as the pieces come:
// it holds nothing to lose); destroying an uncommitted AtomicFile removes the
// temporary file. Every failure throws OutputError naming the destination,
// after removing the temporary file.
class AtomicFile {
 public:
  // Decides where the output goes and opens a temporary without a name in
  // that file's directory (or ".NAME.tmp.<pid>" beside it, or the device or
  // FIFO itself; a FIFO's open waits for a reader).
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view contents);
  // Writes out, closes and puts the file in place. Once.
  void commit();

  // The path as the user named it.
  const std::filesystem::path& path() const { return path_; }

 private:
  friend void commit_together(std::span<AtomicFile* const> files);

  // Everything that can fail for want of space or permission: write out,
  // carry the old file's mode and owner over, give an anonymous temporary
  // the name it is renamed from, close (a rewrite's stays open for its copy).
  void finish();
  // Rename (or copy into a hard-linked file); called with interrupts held.
  void publish();
  void flush_buffer();
  [[noreturn]] void fail(const std::string& what);

  std::filesystem::path path_;
  OutputTarget target_;
  // The temporary's name: empty when written in place, and for an anonymous
  // temporary until finish() links it.
  std::filesystem::path tmp_;
  bool anonymous_ = false;  // O_TMPFILE
  int fd_ = -1;
  std::string buffer_;  // pieces gathered into large writes
  bool finished_ = false;
  bool committed_ = false;
  std::unique_ptr<InterruptCleanup> cleanup_;  // removes tmp_ on SIGINT and the like
};

// Finishes every file, then puts them all in place with interrupts held, so
// a failure (disk full on the second) or a Ctrl-C leaves every destination
// as it was or every one new. Throws OutputError after removing every
// temporary when any file cannot be finished.
void commit_together(std::span<AtomicFile* const> files);

// Writes `contents` to `path` atomically (one AtomicFile).
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace podsim::report
