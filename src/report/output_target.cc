#include "report/output_target.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "report/output_file.h"

namespace podsim::report {
namespace fs = std::filesystem;

namespace {

// As the kernel's own limit on links followed in one lookup (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

[[noreturn]] void refuse(const fs::path& path, const std::string& why) {
  throw OutputError(path.string() + ": cannot write output: " + why);
}

// Whether a link target leads into the kernel's view of open descriptors,
// whose names are not paths a temporary could be renamed over.
bool names_open_descriptor(const fs::path& p) {
  const std::string s = p.lexically_normal().string();
  return s.starts_with("/proc/") || s.starts_with("/dev/fd/");
}

struct Followed {
  fs::path file;
  bool through_descriptor = false;
};

// Follows symbolic links one at a time, so a dangling link still yields the
// file it names and a link into /proc is noticed before the kernel's magic
// makes it look like an ordinary file.
Followed follow_links(const fs::path& named) {
  Followed f{named, names_open_descriptor(fs::absolute(named))};
  for (int i = 0; i <= kMaxLinks; ++i) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(f.file, ec);
    if (ec || !fs::is_symlink(st))
      return f;
    const fs::path target = fs::read_symlink(f.file, ec);
    if (ec)
      refuse(named, "cannot read the symbolic link " + f.file.string() + ": " + ec.message());
    f.file = target.is_absolute() ? target : f.file.parent_path() / target;
    if (names_open_descriptor(f.file))
      f.through_descriptor = true;
  }
  refuse(named, "too many levels of symbolic links");
}

}  // namespace

OutputTarget resolve_output(const fs::path& path) {
  if (path.empty())
    refuse(path, "empty file name");
  OutputTarget t;
  t.file = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT)
      refuse(path, std::strerror(err));
    // Nothing there yet (or a dangling link): created where the links lead.
    t.file = follow_links(path).file;
    return t;
  }
  if (S_ISDIR(st.st_mode))
    refuse(path, "it is a directory");
  if (S_ISBLK(st.st_mode))
    refuse(path,
           "it is a block device; podsim writes results to regular files, character "
           "devices (such as /dev/null) and FIFOs only");
  if (S_ISSOCK(st.st_mode))
    refuse(path, "it is a socket");
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    t.kind = OutputKind::kInPlace;
    return t;
  }
  if (!S_ISREG(st.st_mode))
    refuse(path, "not a regular file, character device or FIFO");
  const Followed f = follow_links(path);
  if (f.through_descriptor) {
    // `--out /dev/stdout > file` or `>> file`: the descriptor's own file.
    t.kind = OutputKind::kInPlace;
    t.append = true;
    return t;
  }
  t.file = f.file;
  t.exists = true;
  t.mode = st.st_mode & 07777;
  t.uid = st.st_uid;
  t.gid = st.st_gid;
  t.kind = st.st_nlink > 1 ? OutputKind::kRewrite : OutputKind::kReplace;
  return t;
}

bool is_character_device(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace podsim::report
