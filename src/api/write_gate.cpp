#include "api/write_gate.hpp"

#include <algorithm>

namespace kubesim::api {

bool WriteGate::wait_turn(std::unique_lock<std::mutex>& lock, std::string key, const bool& stopping) {
  const std::uint64_t id = ++ids_;
  arrived_.push_back(Arrival{std::move(key), id});
  cv_.wait(lock, [&] { return stopping || (next_ < batch_.size() && batch_[next_] == id); });
  return !stopping;
}

void WriteGate::done() {
  ++next_;
  cv_.notify_all();
}

void WriteGate::open() {
  if (next_ < batch_.size() || arrived_.empty()) return;
  // Equal keys are equal requests: their order changes nothing but which client hears of a
  // conflict; the arrival id settles it.
  std::sort(arrived_.begin(), arrived_.end(),
            [](const Arrival& a, const Arrival& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; });
  batch_.clear();
  for (const Arrival& a : arrived_) batch_.push_back(a.id);
  arrived_.clear();
  next_ = 0;
  cv_.notify_all();
}

}  // namespace kubesim::api
