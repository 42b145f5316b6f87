// A d-ary min-heap stored in one std::vector (no node allocations).
//
// Element i's children are d*i+1 .. d*i+d. A wider node makes the tree shallower
// (log_d n levels), so pop touches fewer levels but compares more children per
// level; push (sift-up) only gets cheaper. Which arity wins depends on element
// size and cache behaviour, so it is a template parameter, measured in
// kernel_benchmark (BM_HeapHold) and tested for every arity with one typed suite.
//
// Complexity: push O(log_d n) (O(1) on average for random keys), pop
// O(d log_d n), top O(1), remove_if O(n). Memory: n * sizeof(T) plus vector slack.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace podsim::sim {

template <typename T, std::size_t Arity, typename Less = std::less<T>>
class DaryHeap {
  static_assert(Arity >= 2, "a heap node needs at least two children");

 public:
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  void reserve(std::size_t n) { items_.reserve(n); }
  void clear() { items_.clear(); }

  // The smallest element. Precondition: !empty().
  const T& top() const {
    assert(!items_.empty());
    return items_.front();
  }

  void push(const T& x) {
    items_.push_back(x);
    sift_up(items_.size() - 1);
  }

  // Removes and returns the smallest element. Precondition: !empty().
  T pop() {
    assert(!items_.empty());
    T result = items_.front();
    T last = items_.back();
    items_.pop_back();
    if (!items_.empty()) {
      sift_down(std::move(last));
    }
    return result;
  }

  // Drops every element for which pred is true, then restores the heap: O(n).
  template <typename Pred>
  std::size_t remove_if(Pred pred) {
    const auto it = std::remove_if(items_.begin(), items_.end(), pred);
    const auto removed = static_cast<std::size_t>(items_.end() - it);
    items_.erase(it, items_.end());
    // Floyd's bottom-up construction: sift down every parent, last parent first.
    if (items_.size() > 1) {
      for (std::size_t i = (items_.size() - 2) / Arity + 1; i-- > 0;) {
        sift_down_from(i);
      }
    }
    return removed;
  }

  // The heap property at every node: O(n). For tests and debug checks.
  bool is_valid() const {
    for (std::size_t i = 1; i < items_.size(); ++i) {
      if (less_(items_[i], items_[(i - 1) / Arity])) {
        return false;
      }
    }
    return true;
  }

  // Unordered view of the elements (for validation and purging by the owner).
  const std::vector<T>& items() const { return items_; }

 private:
  void sift_up(std::size_t i) {
    T x = std::move(items_[i]);
    while (i > 0) {
      const std::size_t parent = (i - 1) / Arity;
      if (!less_(x, items_[parent])) {
        break;
      }
      items_[i] = std::move(items_[parent]);
      i = parent;
    }
    items_[i] = std::move(x);
  }

  // Places x, which replaces the removed root, by moving the hole down.
  void sift_down(T x) { items_[place_down(0, x)] = std::move(x); }

  void sift_down_from(std::size_t i) {
    T x = std::move(items_[i]);
    items_[place_down(i, x)] = std::move(x);
  }

  // Moves the smaller children of the hole at i up until x fits; returns x's index.
  std::size_t place_down(std::size_t i, const T& x) {
    const std::size_t n = items_.size();
    for (;;) {
      const std::size_t first = i * Arity + 1;
      if (first >= n) {
        return i;
      }
      const std::size_t end = std::min(first + Arity, n);
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (less_(items_[c], items_[best])) {
          best = c;
        }
      }
      if (!less_(items_[best], x)) {
        return i;
      }
      items_[i] = std::move(items_[best]);
      i = best;
    }
  }

  std::vector<T> items_;
  [[no_unique_address]] Less less_;
};

}  // namespace podsim::sim
