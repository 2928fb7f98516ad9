// Who decides where and when the rigid parallel jobs of BatchScheduler's machine mode run: by
// default batsched's algorithms modelled in-process (MachineSchedule); with an external
// decider, a real Batsim scheduler over Batsim's protocol (batsim_server/). The calls are
// those batsched's main loop makes: one per Batsim message, with the jobs that ended and
// were released since the previous one.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/time.hpp"
#include "sched/batch/machine_schedule.hpp"

namespace kubesim {

class MachineDecider {
 public:
  virtual ~MachineDecider() = default;
  // As MachineSchedule::make_decisions. `requested_call`: the call is (also) the one asked for
  // by an earlier CALL_ME_LATER (Batsim's REQUESTED_CALL event).
  virtual void make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                              const std::vector<std::pair<std::uint32_t, MachineSchedule::Job>>& released,
                              bool requested_call, std::vector<MachineSchedule::Start>& starts,
                              std::vector<std::uint32_t>& rejects) = 0;
  // The earliest call asked for (CALL_ME_LATER, a decision dated later, the end of a busy
  // scheduler's wait) and not yet made; never: none.
  virtual SimTime requested_call() const { return SimTime::never(); }
  // Appends the running jobs to kill now (Batsim's KILL_JOB), decided by the last call; their
  // ends come back as `ended` of a later call.
  virtual void take_kills(std::vector<std::uint32_t>& kills) { (void)kills; }
};

}  // namespace kubesim
