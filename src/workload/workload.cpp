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

PodTemplate batch_job_template(std::int64_t cpu_milli, std::optional<std::int64_t> memory_bytes,
                               std::string scheduler_name) {
  PodTemplate t;
  Container c;
  c.name = "main";
  c.requests[kCpu] = cpu_milli;
  c.requested_mask = 1u << kCpu;
  if (memory_bytes) {
    c.requests[kMemory] = *memory_bytes;
    c.requested_mask |= 1u << kMemory;
  }
  c.limits = c.requests;  // Batkube set requests and limits to the same values
  c.limited_mask = c.requested_mask;
  t.containers.push_back(std::move(c));
  t.scheduler_name = std::move(scheduler_name);
  t.finalize();
  return t;
}

std::uint64_t SkippedJobs::total() const {
  std::uint64_t n = 0;
  for (const auto& entry : by_reason) n += entry.second;
  return n;
}

}  // namespace kubesim
