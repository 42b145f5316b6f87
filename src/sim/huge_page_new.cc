// The programs' operator new: malloc, plus huge pages for large blocks
// (sim/huge_pages.h). Linked into executables only (podsim_huge_pages), never
// into a library: replacing the global operator new is the program's choice.
//
// Replaced: operator new(size_t) and its aligned form (size_t,
// align_val_t), and the plain, sized and aligned operator deletes; the
// standard library's array and nothrow forms call these. A block of 2 MiB or
// more starts on a 2 MiB boundary, so that every 2 MiB page of it can be
// huge (from malloc it would start 16 bytes into a small page, and its first
// and last 2 MiB would stay small). Without the aligned form, over-aligned
// records (the flow model's, cache-line aligned: 25 MB in flight on a full
// 32x32x32 torus) would get none. Under AddressSanitizer the sanitizer's
// operator new stays, so that it can still match new with delete.
#include <algorithm>
#include <cstddef>
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
namespace {

// A block of `bytes` at `align` (a power of two, at least a pointer's size);
// one of 2 MiB or more starts on a 2 MiB boundary and is advised huge.
void* allocate(std::size_t bytes, std::size_t align) {
  const bool huge = bytes >= podsim::sim::kHugePageBytes;
  void* p = nullptr;
  if (posix_memalign(&p, huge ? std::max(align, podsim::sim::kHugePageBytes) : align,
                     bytes == 0 ? 1 : bytes) != 0) {
    throw std::bad_alloc();
  }
  if (huge) {
    podsim::sim::advise_huge_pages(p, bytes);
  }
  return p;
}

}  // namespace

void* operator new(std::size_t bytes) {
  if (bytes >= podsim::sim::kHugePageBytes) {
    return allocate(bytes, alignof(std::max_align_t));
  }
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}

// Over-aligned types (the flow model's cache-line aligned records).
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  return allocate(bytes, std::max(static_cast<std::size_t>(alignment), sizeof(void*)));
}

void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#endif
