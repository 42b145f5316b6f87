// Transparent huge pages for a process's large allocations.
//
// A run on a large pod allocates arrays of tens of MiB: the pod's link
// tables, per-link outputs, and in a full run millions of records (flow
// records, queue entries and their slots, a collective's per-member
// counters) read in an order unrelated to their addresses. With 4 KiB
// pages, writing such an array first takes a page fault per 4 KiB, and a
// random read of it a TLB miss (a few thousand entries cover a few MiB): a
// page walk before the cache miss, and a prefetch that waits for it.
// Backed by 2 MiB pages, both go away.
//
// advise_huge_pages() asks Linux for that (madvise(MADV_HUGEPAGE), honoured
// when the system's transparent huge pages are "always" or "madvise",
// Debian's default) over the 2 MiB pages a block spans wholly; given before
// the block is first written, its pages are huge from their first fault.
// Elsewhere than Linux it does nothing. The programs (podsim, the
// benchmarks) link podsim_huge_pages, whose operator new gives the advice
// for every allocation of 2 MiB or more, aligned to 2 MiB, over-aligned
// types' included (huge_page_new.cc). net::ZeroedArray, from calloc, asks
// for its own block: a full run writes all of it, and a symmetric run that
// touches a few records maps a few 2 MiB pages (measured: no change in peak
// memory on the 262,144-chip all-reduce).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace podsim::sim {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Advises huge pages for the 2 MiB pages lying wholly inside [data, data +
// bytes). A hint: a refusal changes nothing and is ignored.
inline void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last > first) {
    static_cast<void>(madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE));
  }
#else
  static_cast<void>(data);
  static_cast<void>(bytes);
#endif
}

}  // namespace podsim::sim
