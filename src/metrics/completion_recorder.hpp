// Records the order in which pods reach a terminal phase (Succeeded or Failed): Batsim
// appends a jobs.csv row as each job completes, so writers need this order.
#pragma once

#include <vector>

#include "model/object_store.hpp"

namespace kubesim {

class CompletionRecorder : public ChangeListener {
 public:
  void on_change(const Change& change) override;
  const std::vector<PodId>& completion_order() const { return completed_; }
  // Room for `pods` completions, so that a large run's order is never copied as it grows.
  void reserve(std::size_t pods) { completed_.reserve(pods); }

 private:
  std::vector<PodId> completed_;
};

}  // namespace kubesim
