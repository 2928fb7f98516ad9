// The discrete-event queue: events run in (time, phase, sequence) order, so events at the
// same instant run phase by phase and, within a phase, in the order they were posted (FIFO,
// as in ns-3). Payloads are small typed values (a std::variant), stored inline in the heap.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/time.hpp"

namespace kubesim {

// Same-instant order between components. Lower runs first. The order models causality in a
// real cluster at zero latency: the kubelet reports before the API server's watchers hear
// of it, and the scheduler acts on everything it has heard at that instant.
enum class Phase : std::uint8_t {
  kArrival = 0,    // workload submissions (object creation)
  kKubelet = 1,    // container start/exit, status reports
  kApi = 2,        // API writes whose latency ended (bindings)
  kInformer = 3,   // watch events delivered to controllers and schedulers
  kController = 4, // controller work-queue syncs (Job controller, node lifecycle)
  kQueueTimer = 5, // scheduler queue flushes (backoffQ, unschedulable leftovers)
  kScheduler = 6,  // scheduling cycles
};

template <class Payload>
class EventQueue {
 public:
  struct Entry {
    SimTime time;
    std::uint64_t order;  // phase in the top 8 bits, posting sequence below
    Payload payload;
  };

  void push(SimTime time, Phase phase, Payload payload) {
    KUBESIM_ASSERT(seq_ < (std::uint64_t{1} << 56));
    heap_.push_back(Entry{time, (std::uint64_t{static_cast<std::uint8_t>(phase)} << 56) | seq_++, std::move(payload)});
    sift_up(heap_.size() - 1);
  }
  // The `order` the next push with this phase will get: every entry pushed before it orders
  // below it (at the same time and phase), every entry pushed from then on at or above it.
  std::uint64_t next_order(Phase phase) const { return (std::uint64_t{static_cast<std::uint8_t>(phase)} << 56) | seq_; }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Entry& top() const { return heap_.front(); }
  Entry pop() {
    Entry out = std::move(heap_.front());
    heap_.front() = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return out;
  }

 private:
  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.order < b.order);
  }
  void sift_up(std::size_t i) {
    Entry e = std::move(heap_[i]);
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = std::move(heap_[parent]);
      i = parent;
    }
    heap_[i] = std::move(e);
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    Entry e = std::move(heap_[i]);
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = std::move(heap_[best]);
      i = best;
    }
    heap_[i] = std::move(e);
  }

  std::vector<Entry> heap_;  // 4-ary min-heap: shallower than binary, fewer cache misses
  std::uint64_t seq_ = 0;
};

}  // namespace kubesim
