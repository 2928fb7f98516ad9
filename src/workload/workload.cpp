#include "workload/workload.hpp"

namespace kubesim {

void SkippedJobs::add(const std::string& reason) {
  for (auto& [r, n] : by_reason) {
    if (r == reason) {
      ++n;
      return;
    }
  }
  by_reason.emplace_back(reason, 1);
}

std::uint64_t SkippedJobs::total() const {
  std::uint64_t n = 0;
  for (const auto& entry : by_reason) n += entry.second;
  return n;
}

}  // namespace kubesim
