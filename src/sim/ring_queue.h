// A FIFO queue in a power-of-two ring buffer that grows by doubling.
//
// Used for the event queue's same-time fast path, where a burst of events at the
// current time (a collective fanning out to many chips) would otherwise pay a
// heap insertion each. push_back and pop_front are O(1) amortised; memory is
// capacity * sizeof(T) with capacity < 2 * the largest size reached.
#pragma once

#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace podsim::sim {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Precondition for front/back/pop_front: !empty().
  const T& front() const {
    assert(size_ > 0);
    return slots_[head_];
  }
  const T& back() const {
    assert(size_ > 0);
    return slots_[(head_ + size_ - 1) & mask()];
  }

  void push_back(const T& x) {
    if (size_ == slots_.size()) {
      grow();
    }
    slots_[(head_ + size_) & mask()] = x;
    ++size_;
  }

  T pop_front() {
    assert(size_ > 0);
    T x = std::move(slots_[head_]);
    head_ = (head_ + 1) & mask();
    --size_;
    return x;
  }

  // The i-th element from the front, 0 <= i < size().
  const T& operator[](std::size_t i) const {
    assert(i < size_);
    return slots_[(head_ + i) & mask()];
  }

  // Keeps the elements for which pred is false, in order: O(size).
  template <typename Pred>
  std::size_t remove_if(Pred pred) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      T& x = slots_[(head_ + i) & mask()];
      if (!pred(x)) {
        slots_[(head_ + kept) & mask()] = std::move(x);
        ++kept;
      }
    }
    const std::size_t removed = size_ - kept;
    size_ = kept;
    return removed;
  }

 private:
  std::size_t mask() const { return slots_.size() - 1; }

  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : 2 * slots_.size());
    for (std::size_t i = 0; i < size_; ++i) {
      bigger[i] = std::move(slots_[(head_ + i) & mask()]);
    }
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;  // size is zero or a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace podsim::sim
