// Cosim with programs on simulated time (--scheduler-command): the writes they send while one
// instant lasts take effect in a fixed order, not in the order the server's threads happen to
// take them.
//
// Why: kube-scheduler binds pods from one goroutine per pod (schedule_one.go bindingCycle), so
// several bindings reach serve together over different connections, and which thread took
// the API lock first changed from run to run. That order is what its informer then delivers
// ("Add event for scheduled pod"), and its cache keeps each node's pods in that order
// (internal/cache/cache.go updatePod: remove, then add at the end); preemption sorts the
// victims of a node by priority and start time (util.MoreImportantPod) with an unstable sort
// from that order, so among pods bound at one instant, which one a preemptor evicted differed
// between two runs of scheduler-plugins' CapacityScheduling (issue 27), and every decision
// after it.
//
// How: a write (any request but GET) waits at the gate; the clock driver opens it only when
// every request in flight is a waiting write and every thread of the programs is blocked
// (clock.hpp, the rule of the shimmed clock), i.e. when the programs can send nothing more
// before they get answers. The writes that arrived are then done one at a time in the order
// of (method, path, body), each under the server's lock as before. Reads are answered at once
// (they change nothing, and see the writes of earlier batches only).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kubesim::api {

class WriteGate {
 public:
  void enable() { enabled_ = true; }
  bool enabled() const { return enabled_; }
  // Under the server's lock held by `lock`: waits until this write's turn comes (true), or
  // `stopping` is set (false: the server is shutting down).
  bool wait_turn(std::unique_lock<std::mutex>& lock, std::string key, const bool& stopping);
  // The write whose turn it was has acted; the next one goes.
  void done();
  // Writes that arrived and are not done yet.
  std::size_t waiting() const { return arrived_.size() + (batch_.size() - next_); }
  // Whether writes arrived that no opening has ordered yet.
  bool has_arrivals() const { return !arrived_.empty(); }
  // Orders the writes that arrived and lets them go in turn (no-op while a batch still runs).
  void open();
  void wake_all() { cv_.notify_all(); }

 private:
  struct Arrival {
    std::string key;  // method, path and body
    std::uint64_t id;
  };
  bool enabled_ = false;
  std::vector<Arrival> arrived_;
  std::vector<std::uint64_t> batch_;  // ids in their turn order
  std::size_t next_ = 0;              // the index in batch_ whose turn it is
  std::uint64_t ids_ = 0;
  std::condition_variable cv_;
};

}  // namespace kubesim::api
