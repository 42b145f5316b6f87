// The programs' operator new (sim/huge_page_new.cc, linked into this test as
// into podsim) backs a large block with huge pages where the system allows.
#include "sim/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace podsim::sim {
namespace {

// The kB of huge pages in the mapping of /proc/self/smaps that holds `p`,
// or -1 if it was not found.
long huge_kb_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0;
    std::uintptr_t hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stol(line.substr(14));
    }
  }
  return -1;
}

bool transparent_huge_pages_offered() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(enabled, modes);
  return modes.find("[always]") != std::string::npos ||
         modes.find("[madvise]") != std::string::npos;
}

TEST(HugePages, ALargeBlockFromNewIsBackedByHugePages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer keeps its own operator new";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer keeps its own operator new";
#endif
#endif
  if (!transparent_huge_pages_offered()) {
    GTEST_SKIP() << "this system's transparent huge pages are off";
  }
  constexpr std::size_t kBytes = 16 * kHugePageBytes;
  const auto block = std::make_unique<char[]>(kBytes);  // written: zeroed
  ASSERT_GT(huge_kb_at(block.get() + kBytes / 2), 0);
}

bool sanitizer_keeps_its_new() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
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
