// The discrete-event queue: events run in (time, phase, sequence) order, so events at the
// same instant run phase by phase and, within a phase, in the order they were posted (FIFO,
// as in ns-3). Payloads are small typed values (a std::variant), stored inline. Events posted
// for a later time wait in a heap; those posted for the current instant (three in four on the
// NASA trace: watch deliveries and the reactions to them at zero latency) go to a FIFO per
// phase, which keeps them in order at O(1) instead of the heap's O(log n).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
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
inline constexpr std::size_t kPhaseCount = static_cast<std::size_t>(Phase::kScheduler) + 1;

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
    const auto p = static_cast<std::uint8_t>(phase);
    KUBESIM_ASSERT(p < kPhaseCount);
    Entry e{time, (std::uint64_t{p} << 56) | seq_++, std::move(payload)};
    if (time == instant_) {
      // At the current instant (most pushes: reactions at zero latency): after every entry
      // of this phase queued so far, so its phase's FIFO keeps them in order.
      fifos_[p].items.push_back(std::move(e));
      fifo_phases_ |= 1u << p;
      ++fifo_size_;
      return;
    }
    heap_.push_back(std::move(e));
    sift_up(heap_.size() - 1);
  }
  // The `order` the next push with this phase will get: every entry pushed before it orders
  // below it (at the same time and phase), every entry pushed from then on at or above it.
  std::uint64_t next_order(Phase phase) const { return (std::uint64_t{static_cast<std::uint8_t>(phase)} << 56) | seq_; }
  bool empty() const { return heap_.empty() && fifo_size_ == 0; }
  std::size_t size() const { return heap_.size() + fifo_size_; }
  const Entry& top() const {
    const std::size_t p = next_fifo();
    return p < kPhaseCount ? fifos_[p].front() : heap_.front();
  }
  Entry pop() {
    if (const std::size_t p = next_fifo(); p < kPhaseCount) {
      Fifo& f = fifos_[p];
      Entry out = std::move(f.items[f.head]);
      --fifo_size_;
      if (++f.head == f.items.size()) {
        f.items.clear();  // keeps its capacity
        f.head = 0;
        fifo_phases_ &= ~(1u << p);
      }
      return out;
    }
    Entry out = std::move(heap_.front());
    heap_.front() = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    // The FIFOs hold one instant's entries: a new instant starts once they are drained.
    if (fifo_phases_ == 0) instant_ = out.time;
    return out;
  }

 private:
  // One phase's entries at `instant_`, in posting order, from `head` on.
  struct Fifo {
    std::vector<Entry> items;
    std::size_t head = 0;
    const Entry& front() const { return items[head]; }
  };

  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.order < b.order);
  }
  // The phase whose FIFO holds the next entry, or kPhaseCount when the heap's top is next. Of
  // the FIFOs, the earliest phase's front comes first: they all are at `instant_`.
  std::size_t next_fifo() const {
    if (fifo_phases_ == 0) return kPhaseCount;
    const auto p = static_cast<std::size_t>(std::countr_zero(fifo_phases_));
    return heap_.empty() || before(fifos_[p].front(), heap_.front()) ? p : kPhaseCount;
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
  // The time of the last entry popped from the heap with the FIFOs empty: the simulation's
  // current instant, whose pushes go to the FIFOs instead of the heap.
  SimTime instant_ = SimTime::never();
  std::array<Fifo, kPhaseCount> fifos_;  // by phase
  std::uint32_t fifo_phases_ = 0;  // bit p: fifos_[p] holds entries
  std::size_t fifo_size_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace kubesim
