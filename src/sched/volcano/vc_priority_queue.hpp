// Volcano's util.PriorityQueue (pkg/scheduler/util/priority_queue.go): a heap that pops the
// element its less function puts first. Every order the model uses is total (jobs end on
// their UIDs, tasks on their pod ids, queues on their index), so the pop order does not
// depend on the heap's layout.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace kubesim::volcano {

template <class T, class Less>
class PriorityQueue {
 public:
  explicit PriorityQueue(Less less, std::vector<T> items = {}) : less_(std::move(less)), items_(std::move(items)) {
    std::make_heap(items_.begin(), items_.end(), order());
  }
  bool empty() const { return items_.empty(); }
  void push(T v) {
    items_.push_back(std::move(v));
    std::push_heap(items_.begin(), items_.end(), order());
  }
  T pop() {
    std::pop_heap(items_.begin(), items_.end(), order());
    T v = std::move(items_.back());
    items_.pop_back();
    return v;
  }

 private:
  auto order() const {
    return [this](const T& a, const T& b) { return less_(b, a); };
  }
  Less less_;
  std::vector<T> items_;
};

}  // namespace kubesim::volcano
