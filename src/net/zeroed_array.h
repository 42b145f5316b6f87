// A fixed-size array whose memory the system hands over zeroed and which is
// never written at construction: pages nobody touches are never mapped.
//
// The flow model keeps a record per link of the pod, but a run touches only
// the links its transfers cross: a symmetric run on a 262,144-chip torus, the
// six links of its one class out of 1.5 million. A std::vector would write
// every record (and fault in every page: 100 MB there) before the first
// event; this array leaves them to calloc, which for large blocks maps fresh
// zero pages without writing them. Its block is advised huge
// (sim/huge_pages.h): a full run writes every record and then reads them at
// random, and a page nobody touches stays unmapped all the same (a touched
// one maps 2 MiB, not 4 KiB: on the 262,144-chip symmetric all-reduce the
// peak memory did not move). T must be an implicit-lifetime type (an
// aggregate, or trivially constructible and destructible) whose state with
// every byte zero is the state the caller wants to start from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include "sim/huge_pages.h"

namespace podsim::net {

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_destructible_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(std::size_t n) : size_(n) {
    if (n == 0) {
      return;
    }
    // Over-allocated by one alignment so the first element can be aligned.
    block_ = std::calloc(n * sizeof(T) + alignof(T), 1);
    if (block_ == nullptr) {
      throw std::bad_alloc();
    }
    const auto at = reinterpret_cast<std::uintptr_t>(block_);
    const std::uintptr_t aligned = (at + alignof(T) - 1) & ~(std::uintptr_t{alignof(T)} - 1);
    data_ = reinterpret_cast<T*>(aligned);
    sim::advise_huge_pages(block_, n * sizeof(T) + alignof(T));
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ZeroedArray(ZeroedArray&& other) noexcept
      : block_(std::exchange(other.block_, nullptr)),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  ZeroedArray& operator=(ZeroedArray&& other) noexcept {
    if (this != &other) {
      std::free(block_);
      block_ = std::exchange(other.block_, nullptr);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~ZeroedArray() { std::free(block_); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  void* block_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace podsim::net
