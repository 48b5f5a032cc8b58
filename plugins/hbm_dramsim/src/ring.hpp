// A FIFO for a channel's read and write queues and its finished requests: push at the back, pop
// at the front, erase anywhere, read in order by index. One ring of slots that doubles when full
// (those queues hold at most trans_queue_size requests, the finished ones those of a few cycles,
// so it soon stops growing), instead of the std::deque it replaces, whose size is a computation
// over its nodes and which allocated and freed a node every few requests.
#pragma once

#include <cstddef>
#include <vector>

namespace tessera::hbm {

template <class T>
class Ring {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return slots_[(head_ + i) & mask_]; }
  const T& front() const { return slots_[head_]; }  // not empty
  void push_back(const T& value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & mask_] = value;
    ++size_;
  }
  // Not empty.
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  // Removes element i (< size()); the later ones move forward.
  void erase(size_t i) {
    for (; i + 1 < size_; ++i) slots_[(head_ + i) & mask_] = slots_[(head_ + i + 1) & mask_];
    --size_;
  }

 private:
  void grow() {
    std::vector<T> larger(slots_.empty() ? 16 : 2 * slots_.size());
    for (size_t i = 0; i < size_; ++i) larger[i] = (*this)[i];
    slots_.swap(larger);
    head_ = 0;
    mask_ = slots_.size() - 1;
  }

  std::vector<T> slots_;  // a power of two of them
  size_t head_ = 0, size_ = 0, mask_ = 0;
};

}  // namespace tessera::hbm
