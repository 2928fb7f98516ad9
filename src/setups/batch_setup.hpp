// The HPC batch policies' setups (sched/batch/): fcfs, easy-backfill, conservative-backfill.
#pragma once

#include <cstdint>
#include <string>

#include "setups/scheduler_setup.hpp"

namespace kubesim {

// A setup whose scheduler (spec.schedulerName = `name`) is BatchScheduler with this
// reservation depth (0: FCFS, 1: EASY, BackfillSchedule::kAll: conservative).
SchedulerSetup batch_setup(const std::string& name, std::uint32_t depth, const std::string& description);

}  // namespace kubesim
