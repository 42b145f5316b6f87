// call_within (sweep/bounded_call.h), the watchdog that bounds MPI_Finalize
// (issue 27: a rank stopped after its last message held every other rank
// in MPI_Finalize forever): a call past its bound ends the process with
// exit 1 and the message; one within it returns, or throws, as it would.
#include "sweep/bounded_call.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace podsim::sweep {
namespace {

TEST(BoundedCall, ACallPastItsBoundEndsTheProcessWithTheMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(call_within(0.2, "podsim: rank 1: the job's other ranks did not end\n",
                          [] { std::this_thread::sleep_for(std::chrono::seconds(30)); }),
              ::testing::ExitedWithCode(1), "rank 1: the job's other ranks did not end");
}

TEST(BoundedCall, ACallWithinItsBoundReturnsOrThrowsAsItWould) {
  int calls = 0;
  call_within(30, "never\n", [&] { ++calls; });
  EXPECT_EQ(calls, 1);
  EXPECT_THROW(call_within(30, "never\n", [] { throw std::runtime_error("its own"); }),
               std::runtime_error);
  call_within(0, "never\n", [&] { ++calls; });  // no bound
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace podsim::sweep
