// The programs' operator new: malloc, plus huge pages for large blocks
// (sim/huge_pages.h). Linked into executables only (podsim_huge_pages), never
// into a library: replacing the global operator new is the program's choice.
//
// Only operator new(size_t) and the plain and sized operator delete are
// replaced: the standard library's array and nothrow forms call them. The
// aligned forms keep their own allocation. Under AddressSanitizer the sanitizer's operator new
// stays, so that it can still match new with delete.
#include <cstdlib>
#include <new>

#include "sim/huge_pages.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PODSIM_KEEP_SANITIZER_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PODSIM_KEEP_SANITIZER_NEW 1
#endif

#ifndef PODSIM_KEEP_SANITIZER_NEW
void* operator new(std::size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  if (bytes >= podsim::sim::kHugePageBytes) {
    podsim::sim::advise_huge_pages(p, bytes);
  }
  return p;
}

void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#endif
