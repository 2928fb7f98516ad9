// What the writers report on: the final object store, the workload that was submitted, and
// the order of completions. Built by the CLI after a run.
#pragma once

#include <string>
#include <vector>

#include "core/time.hpp"
#include "model/object_store.hpp"
#include "workload/workload.hpp"

namespace kubesim {

struct RunOutputs {
  const ObjectStore& store;
  const Workload& workload;
  const std::vector<PodId>& completion_order;  // pods in the order they became terminal
  const std::vector<PodId>& job_pods;          // workload job index -> its pod (invalid: never created)
  SimTime end_time;                            // simulated time when the run ended
  std::string version;                         // kubesim version, for schedule.csv's batsim_version
};

}  // namespace kubesim
