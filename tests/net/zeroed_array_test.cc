// net::ZeroedArray: zeroed without being written, pages nobody touches left
// unmapped, and, where the system offers them, huge pages for the ones a run
// writes (sim/huge_pages.h).
#include "net/zeroed_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "huge_page_probe.h"
#include "sim/huge_pages.h"

namespace podsim::net {
namespace {

struct alignas(64) Record {
  uint64_t words[8];
};

TEST(ZeroedArray, StartsZeroedAlignedAndKeepsWrites) {
  ZeroedArray<Record> a(1000);
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&a[0]) % alignof(Record), 0u);
  for (const Record& r : a) {
    for (const uint64_t w : r.words)
      ASSERT_EQ(w, 0u);
  }
  a[999].words[7] = 42;
  ZeroedArray<Record> b(std::move(a));
  EXPECT_EQ(b[999].words[7], 42u);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST(ZeroedArray, ALargeArrayThatARunWritesIsBackedByHugePages) {
  if (podsim::testing::sanitizer_keeps_its_new()) {
    GTEST_SKIP() << "AddressSanitizer's allocator serves calloc";
  }
  if (!podsim::testing::transparent_huge_pages_offered()) {
    GTEST_SKIP() << "this system's transparent huge pages are off";
  }
  // 16 huge pages' worth; one record written in the middle.
  ZeroedArray<Record> a(16 * sim::kHugePageBytes / sizeof(Record));
  Record& middle = a[a.size() / 2];
  middle.words[0] = 1;
  EXPECT_GT(podsim::testing::huge_kb_at(&middle), 0);
}

}  // namespace
}  // namespace podsim::net
