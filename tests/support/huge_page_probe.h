// What the system did with a block's pages, for the tests of huge-page
// advice (sim/huge_pages.h): Linux's /proc/self/smaps and its transparent
// huge page setting.
#pragma once

namespace podsim::testing {

// The kB of huge pages in the mapping of /proc/self/smaps that holds `p`,
// or -1 if it was not found.
long huge_kb_at(const void* p);

// Whether transparent huge pages are "always" or "madvise" here.
bool transparent_huge_pages_offered();

// Whether AddressSanitizer's operator new stands in for the programs' own
// (sim/huge_page_new.cc keeps it).
constexpr bool sanitizer_keeps_its_new() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace podsim::testing
