#include "report/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace podsim::report {
namespace fs = std::filesystem;

namespace {

// Pieces are gathered up to this size before a write(2): a sweep's rows are
// a few hundred bytes each.
constexpr size_t kBufferBytes = size_t{1} << 20;

fs::path directory_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// The pid keeps two podsim processes writing the same file from sharing a temp name.
fs::path temp_beside(const fs::path& file) {
  const fs::path dir = directory_of(file);
  std::string name = ".";
  name += file.filename().string();
  name += ".tmp.";
  name += std::to_string(::getpid());
  return dir / name;
}

std::string errno_text() {
  return std::strerror(errno);
}

// Writes all of `data`, retrying after signals and short writes. False on error (errno set).
bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Opens a new temporary; a stale one of a dead process with this pid is
// removed first. O_EXCL: never through a link someone left under that name.
int open_temporary(const fs::path& tmp) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
    ::unlink(tmp.c_str());
  }
  return -1;
}

// A file with no name in `dir` (O_TMPFILE): the kernel frees it with the
// last descriptor, so no way a process ends (SIGKILL included) leaves it
// behind. It gets a name at commit through /proc/self/fd (linkat with
// AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH). -1 where either is missing
// (a file system without O_TMPFILE, no /proc): the caller then writes a
// named temporary.
int open_anonymous(const fs::path& dir) {
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", X_OK) != 0)
    return -1;
  int fd = -1;
  do {
    fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
  } while (fd < 0 && errno == EINTR);
  return fd;
#else
  (void)dir;
  return -1;
#endif
}

// Names the anonymous file `fd` `name` (a stale file of a dead process with
// this pid under that name is removed first). False on error (errno set).
bool link_anonymous(int fd, const fs::path& name) {
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
      return true;
    if (errno != EEXIST)
      return false;
    ::unlink(name.c_str());
  }
  return false;
}

}  // namespace

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)), target_(resolve_output(path_)) {
  if (target_.kind == OutputKind::kInPlace) {
    const int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (target_.append ? O_APPEND : 0);
    do {
      fd_ = ::open(path_.c_str(), flags);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0)
      fail(errno_text());
    return;
  }
  buffer_.reserve(kBufferBytes);
  fd_ = open_anonymous(directory_of(target_.file));
  if (fd_ >= 0) {
    anonymous_ = true;
    return;
  }
  tmp_ = temp_beside(target_.file);
  cleanup_ = std::make_unique<InterruptCleanup>(tmp_);
  fd_ = open_temporary(tmp_);
  if (fd_ < 0)
    fail(errno_text());
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0)
    ::close(fd_);
  if (!committed_ && !tmp_.empty())
    ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const std::string& what) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty())
    ::unlink(tmp_.c_str());
  committed_ = true;  // nothing left to clean up
  throw OutputError(path_.string() + ": cannot write output: " + what);
}

void AtomicFile::flush_buffer() {
  if (!buffer_.empty() && !write_all(fd_, buffer_.data(), buffer_.size()))
    fail(errno_text());
  buffer_.clear();
}

void AtomicFile::write(std::string_view contents) {
  if (committed_ || finished_)
    throw std::logic_error("AtomicFile::write after commit: " + path_.string());
  if (buffer_.size() + contents.size() > kBufferBytes) {
    flush_buffer();
    if (contents.size() >= kBufferBytes) {
      if (!write_all(fd_, contents.data(), contents.size()))
        fail(errno_text());
      return;
    }
  }
  buffer_.append(contents);
}

void AtomicFile::finish() {
  if (committed_ || finished_)
    throw std::logic_error("AtomicFile::commit twice: " + path_.string());
  flush_buffer();
  if (target_.exists) {
    // The new file is the old one's successor: same permissions (a 0600
    // result stays private) and, where we may, the same owner.
    if (::geteuid() == 0 && ::fchown(fd_, target_.uid, target_.gid) != 0)
      fail(errno_text());
    if (::fchmod(fd_, target_.mode) != 0)
      fail(errno_text());
  }
  if (anonymous_ && target_.kind == OutputKind::kReplace) {
    // The name it is renamed from; registered first, so an interrupt from
    // here on removes it.
    tmp_ = temp_beside(target_.file);
    cleanup_ = std::make_unique<InterruptCleanup>(tmp_);
    if (!link_anonymous(fd_, tmp_)) {
      const int err = errno;
      tmp_.clear();  // never linked: nothing of ours to remove
      errno = err;
      fail("cannot name the finished output beside it: " + errno_text());
    }
  }
  // A rewrite copies from the descriptor, left open for publish() (an
  // anonymous file has no name to open again).
  if (target_.kind == OutputKind::kRewrite) {
    finished_ = true;
    return;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR)
    fail("close failed: " + errno_text());
  finished_ = true;
}

namespace {

// Copies the whole of `from` (a descriptor open for reading) over the
// contents of `to` in place (O_TRUNC, same inode), so every hard link of `to`
// sees the new contents. False on error (errno set).
bool copy_into(int from, const fs::path& to) {
  if (::lseek(from, 0, SEEK_SET) != 0)
    return false;
  const int out = ::open(to.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (out < 0)
    return false;
  std::vector<char> block(size_t{1} << 16);
  bool ok = true;
  for (;;) {
    const ssize_t n = ::read(from, block.data(), block.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    if (!write_all(out, block.data(), static_cast<size_t>(n))) {
      ok = false;
      break;
    }
  }
  const int err = errno;
  if (::close(out) != 0)
    ok = false;
  else
    errno = err;
  return ok;
}

}  // namespace

void AtomicFile::publish() {
  switch (target_.kind) {
    case OutputKind::kInPlace:
      break;
    case OutputKind::kReplace:
      if (::rename(tmp_.c_str(), target_.file.c_str()) != 0)
        fail(errno_text());
      break;
    case OutputKind::kRewrite: {
      if (!copy_into(fd_, target_.file))
        fail(errno_text());
      const int fd = fd_;
      fd_ = -1;
      ::close(fd);  // read only since finish()
      if (!tmp_.empty())
        ::unlink(tmp_.c_str());
      break;
    }
  }
  committed_ = true;
}

void AtomicFile::commit() {
  AtomicFile* self = this;
  commit_together(std::span<AtomicFile* const>(&self, 1));
}

void commit_together(std::span<AtomicFile* const> files) {
  for (AtomicFile* f : files) {
    try {
      f->finish();
    } catch (...) {
      // Nothing is put in place: the others' temporaries go too.
      for (AtomicFile* other : files) {
        if (other != f && !other->committed_ && !other->tmp_.empty()) {
          ::unlink(other->tmp_.c_str());
          other->committed_ = true;
        }
      }
      throw;
    }
  }
  const HeldInterrupts held;
  for (AtomicFile* f : files)
    f->publish();
}

void write_file_atomically(const fs::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace podsim::report
