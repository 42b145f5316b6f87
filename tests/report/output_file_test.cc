// AtomicFile (report/output_file.h): the destination appears whole or not
// at all, and an interrupt between the first write and the rename leaves no
// ".NAME.tmp.<pid>" behind (issue 12: a SIGINT while a trace was written
// left it). What is at the destination is kept (issue 27): a device or FIFO
// is written in place, never replaced (as root, `--out /dev/null` made
// /dev/null a regular file); a link is followed; a file keeps its mode and
// hard links; several outputs change together or not at all.
#include "report/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace podsim::report {
namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("podsim_output_file_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
      ++n;
    return n;
  }
};

// Whether `dir` takes a file without a name (O_TMPFILE, and /proc to name
// it later): AtomicFile's temporaries then never appear in the directory.
bool takes_anonymous_files(const fs::path& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return false;
  ::close(fd);
  return ::access("/proc/self/fd", X_OK) == 0;
#else
  return false;
#endif
}

TEST(AtomicFile, AppearsOnlyOnCommit) {
  Scratch s;
  const fs::path out = s.dir / "out.json";
  {
    AtomicFile f(out);
    f.write(std::string(3 << 20, 'x'));  // past the buffer: on disk already
    EXPECT_FALSE(fs::exists(out));
    // The temporary has no name where the file system allows (issue 27).
    EXPECT_EQ(s.entries(), takes_anonymous_files(s.dir) ? 0U : 1U);
  }
  EXPECT_EQ(s.entries(), 0U);  // dropped uncommitted: gone
  write_file_atomically(out, "{}");
  std::ifstream in(out);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{}");
  EXPECT_EQ(s.entries(), 1U);
}

TEST(AtomicFile, AnInterruptRemovesTheTemporary) {
  for (const int sig : {SIGINT, SIGTERM}) {
    Scratch s;
    const fs::path out = s.dir / "trace.json";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      AtomicFile f(out);
      f.write(std::string(1 << 20, 'x'));
      ::raise(sig);  // mid-write, as a Ctrl-C would
      ::_exit(0);    // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << "the process still ends as interrupted";
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(s.entries(), 0U) << "no temporary and no destination left behind";
  }
}

// SIGKILL cannot be caught (mpirun sends it a second after SIGTERM): only a
// temporary without a name is sure to go with the process (issue 27).
TEST(AtomicFile, AKilledProcessLeavesNothing) {
  Scratch s;
  if (!takes_anonymous_files(s.dir))
    GTEST_SKIP() << "no O_TMPFILE here: the named temporary is left by SIGKILL";
  for (const bool existing : {false, true}) {
    const fs::path out = s.dir / "rows.csv";
    if (existing)
      std::ofstream(out) << "old\n";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      AtomicFile f(out);
      f.write(std::string(3 << 20, 'x'));
      ::raise(SIGKILL);
      ::_exit(0);  // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(s.entries(), existing ? 1U : 0U) << "nothing but what was there";
    if (existing) {
      std::ifstream in(out);
      EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "old\n");
    }
  }
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A device node of our own (never the machine's /dev/null): root only, and
// not inside every container; the test is skipped where mknod is refused.
bool make_device(const fs::path& p, mode_t type, unsigned major, unsigned minor) {
  return ::mknod(p.c_str(), type | 0666, makedev(major, minor)) == 0;
}

TEST(AtomicFile, ACharacterDeviceIsWrittenInPlaceNotReplaced) {
  Scratch s;
  const fs::path null = s.dir / "null";
  if (!make_device(null, S_IFCHR, 1, 3))
    GTEST_SKIP() << "mknod refused here (not root?)";
  write_file_atomically(null, "a result nobody keeps\n");
  EXPECT_TRUE(fs::is_character_file(null)) << "still the device, not a regular file";
  EXPECT_EQ(s.entries(), 1U) << "no temporary beside it";
}

TEST(AtomicFile, AFullDeviceFailsWithoutReplacingIt) {
  Scratch s;
  const fs::path full = s.dir / "full";
  if (!make_device(full, S_IFCHR, 1, 7))
    GTEST_SKIP() << "mknod refused here (not root?)";
  EXPECT_THROW(write_file_atomically(full, "x"), OutputError);
  EXPECT_TRUE(fs::is_character_file(full));
}

TEST(AtomicFile, ABlockDeviceDirectoryOrSocketIsRefused) {
  Scratch s;
  EXPECT_THROW(write_file_atomically(s.dir, "x"), OutputError);
  const fs::path disk = s.dir / "disk";
  if (make_device(disk, S_IFBLK, 7, 200)) {
    try {
      write_file_atomically(disk, "x");
      ADD_FAILURE() << "wrote onto a block device";
    } catch (const OutputError& e) {
      EXPECT_NE(std::string(e.what()).find("block device"), std::string::npos) << e.what();
    }
    EXPECT_EQ(fs::status(disk).type(), fs::file_type::block);
  }
}

TEST(AtomicFile, AFifoReaderGetsTheOutput) {
  Scratch s;
  const fs::path fifo = s.dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_atomically(fifo, std::string(3 << 20, 'r'));  // larger than the pipe and the buffer
  reader.join();
  EXPECT_EQ(got, std::string(3 << 20, 'r'));
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(s.entries(), 1U);
}

TEST(AtomicFile, ASymlinkIsFollowedToTheFileItNames) {
  Scratch s;
  fs::create_directories(s.dir / "real");
  const fs::path file = s.dir / "real" / "result.csv";
  const fs::path link = s.dir / "link.csv";
  spit(file, "old");
  fs::create_symlink("real/result.csv", link);
  write_file_atomically(link, "new");
  EXPECT_TRUE(fs::is_symlink(link)) << "the link stays a link";
  EXPECT_EQ(slurp(file), "new");
  // A dangling link: the file it names is created.
  const fs::path dangling = s.dir / "dangling.csv";
  fs::create_symlink("real/later.csv", dangling);
  write_file_atomically(dangling, "made");
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(slurp(s.dir / "real" / "later.csv"), "made");
  // A chain of links, and a loop.
  fs::create_symlink("link.csv", s.dir / "link2.csv");
  write_file_atomically(s.dir / "link2.csv", "again");
  EXPECT_EQ(slurp(file), "again");
  fs::create_symlink("loop_b", s.dir / "loop_a");
  fs::create_symlink("loop_a", s.dir / "loop_b");
  EXPECT_THROW(write_file_atomically(s.dir / "loop_a", "x"), OutputError);
}

TEST(AtomicFile, ARewrittenFileKeepsItsModeAndHardLinks) {
  Scratch s;
  const fs::path file = s.dir / "private.json";
  const fs::path other = s.dir / "other_name.json";
  spit(file, "old");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  fs::create_hard_link(file, other);
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  write_file_atomically(file, "new");
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_EQ(after.st_mode & 07777, 0600U) << "a private result stays private";
  EXPECT_EQ(after.st_ino, before.st_ino) << "hard links keep naming one file";
  EXPECT_EQ(after.st_nlink, 2U);
  EXPECT_EQ(slurp(other), "new");
  EXPECT_EQ(s.entries(), 2U) << "no temporary left";

  // Without other links the file is replaced by rename, mode kept.
  const fs::path single = s.dir / "single.csv";
  spit(single, "old");
  ASSERT_EQ(::chmod(single.c_str(), 0640), 0);
  write_file_atomically(single, "new");
  struct stat st {};
  ASSERT_EQ(::stat(single.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640U);
  EXPECT_EQ(slurp(single), "new");
}

TEST(AtomicFile, SeveralOutputsChangeTogetherOrNotAtAll) {
  Scratch s;
  const fs::path a = s.dir / "a.csv";
  const fs::path b = s.dir / "b.csv";
  spit(a, "old a");
  spit(b, "old b");
  {
    AtomicFile fa(a);
    AtomicFile fb(b);
    fa.write("new a");
    fb.write("new b");
    const std::array<AtomicFile*, 2> both{&fa, &fb};
    commit_together(both);
  }
  EXPECT_EQ(slurp(a), "new a");
  EXPECT_EQ(slurp(b), "new b");

  // The second cannot be finished (a full device): the first stays old too.
  const fs::path full = s.dir / "full";
  if (!make_device(full, S_IFCHR, 1, 7))
    GTEST_SKIP() << "mknod refused here (not root?)";
  {
    AtomicFile fa(a);
    AtomicFile ff(full);
    fa.write("newer a");
    ff.write("lost");
    const std::array<AtomicFile*, 2> both{&fa, &ff};
    EXPECT_THROW(commit_together(both), OutputError);
  }
  EXPECT_EQ(slurp(a), "new a");
  EXPECT_EQ(s.entries(), 3U) << "no temporary left";
}

TEST(AtomicFile, AnInterruptWhileOutputsArePutInPlaceWaitsForThem) {
  Scratch s;
  const fs::path marker = s.dir / "after_the_renames";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    {
      AtomicFile f(s.dir / "out.csv");  // installs the handler
      f.write("x");
      const HeldInterrupts held;
      ::raise(SIGTERM);
      spit(marker, "reached");  // the signal has not ended the process yet
    }
    ::_exit(0);  // not reached: the held signal is delivered above
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(s.dir / "out.csv"));
  EXPECT_EQ(s.entries(), 1U) << "the uncommitted temporary was removed";
}

}  // namespace
}  // namespace podsim::report
