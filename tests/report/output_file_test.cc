// AtomicFile (report/output_file.h): the destination appears whole or not
// at all, and an interrupt between the first write and the rename leaves no
// ".NAME.tmp.<pid>" behind (issue 12: a SIGINT while a trace was written
// left it).
#include "report/output_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

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

TEST(AtomicFile, AppearsOnlyOnCommit) {
  Scratch s;
  const fs::path out = s.dir / "out.json";
  {
    AtomicFile f(out);
    f.write("{\"a\":");
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(s.entries(), 1U);  // the temporary
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

}  // namespace
}  // namespace podsim::report
