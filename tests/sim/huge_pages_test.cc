// The programs' operator new (sim/huge_page_new.cc, linked into this test as
// into podsim) backs a large block with huge pages where the system allows.
#include "sim/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "huge_page_probe.h"

namespace podsim::sim {
namespace {

using podsim::testing::huge_kb_at;
using podsim::testing::sanitizer_keeps_its_new;
using podsim::testing::transparent_huge_pages_offered;

TEST(HugePages, ALargeBlockFromNewIsBackedByHugePages) {
  if (sanitizer_keeps_its_new()) {
    GTEST_SKIP() << "AddressSanitizer keeps its own operator new";
  }
  if (!transparent_huge_pages_offered()) {
    GTEST_SKIP() << "this system's transparent huge pages are off";
  }
  constexpr std::size_t kBytes = 16 * kHugePageBytes;
  const auto block = std::make_unique<char[]>(kBytes);  // written: zeroed
  ASSERT_GT(huge_kb_at(block.get() + kBytes / 2), 0);
}

// Over-aligned records take operator new's aligned form: the flow model's.
struct alignas(64) Record {
  char bytes[128];
};

TEST(HugePages, ALargeOverAlignedBlockIsBackedByHugePagesToo) {
  if (sanitizer_keeps_its_new()) {
    GTEST_SKIP() << "AddressSanitizer keeps its own operator new";
  }
  if (!transparent_huge_pages_offered()) {
    GTEST_SKIP() << "this system's transparent huge pages are off";
  }
  std::vector<Record> records(16 * kHugePageBytes / sizeof(Record));  // written: zeroed
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(records.data()) % alignof(Record), 0u);
  EXPECT_GT(huge_kb_at(records.data() + records.size() / 2), 0);
}

TEST(HugePages, ALargeBlockStartsOnAHugePageBoundary) {
  if (sanitizer_keeps_its_new()) {
    GTEST_SKIP() << "AddressSanitizer keeps its own operator new";
  }
  // So that its first and last 2 MiB can be huge as well as those between.
  const auto plain = std::make_unique<char[]>(3 * kHugePageBytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(plain.get()) % kHugePageBytes, 0u);
  std::vector<Record> aligned(3 * kHugePageBytes / sizeof(Record));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned.data()) % kHugePageBytes, 0u);
}

TEST(HugePages, SmallOverAlignedBlocksKeepTheirAlignment) {
  struct alignas(256) Wide {
    char bytes[8];
  };
  for (int i = 0; i < 64; ++i) {
    const auto w = std::make_unique<Wide>();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.get()) % 256, 0u);
  }
}

TEST(HugePages, AdviceOnBlocksSmallerThanAHugePageIsHarmless) {
  const auto block = std::make_unique<char[]>(kHugePageBytes - 1);
  advise_huge_pages(block.get(), kHugePageBytes - 1);
  advise_huge_pages(block.get() + 1, 0);
  advise_huge_pages(nullptr, 0);
  block[kHugePageBytes - 2] = 1;
  EXPECT_EQ(block[kHugePageBytes - 2], 1);
}

}  // namespace
}  // namespace podsim::sim
