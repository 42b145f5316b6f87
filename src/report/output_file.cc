#include "report/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace podsim::report {
namespace fs = std::filesystem;

namespace {

// The pid keeps two podsim processes writing the same file from sharing a temp name.
fs::path temp_beside(const fs::path& path) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string name = ".";
  name += path.filename().string();
  name += ".tmp.";
  name += std::to_string(::getpid());
  return dir / name;
}

}  // namespace

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)), tmp_(temp_beside(path_)) {
  cleanup_ = std::make_unique<InterruptCleanup>(tmp_);
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_)
    fail(std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::error_code ignored;
    fs::remove(tmp_, ignored);
  }
}

void AtomicFile::fail(const std::string& what) {
  out_.close();
  std::error_code ignored;
  fs::remove(tmp_, ignored);
  committed_ = true;  // nothing left to clean up
  throw OutputError(path_.string() + ": cannot write output: " + what);
}

void AtomicFile::write(std::string_view contents) {
  if (committed_)
    throw std::logic_error("AtomicFile::write after commit: " + path_.string());
  out_.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out_)
    fail("write failed");
}

void AtomicFile::commit() {
  if (committed_)
    throw std::logic_error("AtomicFile::commit twice: " + path_.string());
  out_.flush();
  if (!out_)
    fail("write failed");
  out_.close();
  if (!out_)
    fail("close failed");
  std::error_code ec;
  fs::rename(tmp_, path_, ec);
  if (ec)
    fail(ec.message());
  committed_ = true;
}

void write_file_atomically(const fs::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace podsim::report
