// How a pod's life ended, as the run's outputs report it (jobs.csv, the tenant summary).
#pragma once

#include "model/objects.hpp"

namespace kubesim {

// A pod meant to run until its owner deletes it (run_time max: a BSP task, a server) that its
// owner deleted after it started: that deletion is its normal end, not a failure (the tenant
// summary counts it completed, jobs.csv COMPLETED_SUCCESSFULLY). A separate header, not a Pod
// member, so that the many files that include model/objects.hpp need not be rebuilt.
inline bool ended_by_owner(const Pod& p) {
  return p.run_time == Duration::max() && p.disruption == DisruptionReason::kDeletionByUser && !p.started.is_never() &&
         p.terminating();
}

}  // namespace kubesim
