// InterruptCleanup (report/interrupt_cleanup.h): every signal that ends a
// process by default and that mpirun may send or forward to a rank (SIGHUP,
// SIGUSR1, SIGUSR2, SIGALRM; SIGINT and SIGTERM are in output_file_test)
// removes a registered temporary, and the process still ends by that signal
// (issue 27: a sweep under mpirun left ".OUT.tmp.PID" behind).
#include "report/interrupt_cleanup.h"

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

TEST(InterruptCleanup, SignalsMpirunForwardsRemoveTheTemporary) {
  for (const int sig : {SIGHUP, SIGUSR1, SIGUSR2, SIGALRM}) {
    const fs::path tmp =
        fs::temp_directory_path() /
        ("podsim_interrupt_cleanup_" + std::to_string(::getpid()) + "_" + std::to_string(sig));
    std::ofstream(tmp) << "partial";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const InterruptCleanup cleanup(tmp);
      ::raise(sig);
      ::_exit(0);  // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << "signal " << sig << ": still ends by the signal";
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_FALSE(fs::exists(tmp)) << "signal " << sig << " left " << tmp;
    std::error_code ignored;
    fs::remove(tmp, ignored);
  }
}

}  // namespace
}  // namespace podsim::report
