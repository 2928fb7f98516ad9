// Setups whose scheduler is an outside policy (sched/external_policy/policy_scheduler.hpp): a
// Python class given to `kubesim run --policy NAME=FILE:CLASS` or kubesim.run(policies=...),
// or a Gymnasium agent. They are named like the built-in setups and chosen the same way
// (--scheduler, a scenario's schedulers:, compare's list), passed as the `extra` setups of
// find_setup / parse_setup_choices / install_setups.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sched/external_policy/policy_scheduler.hpp"
#include "setups/scheduler_setup.hpp"

namespace kubesim {

// Makes the policy of one run (each run gets its own, so runs stay independent); may return
// null for a scheduler stepped from outside (the Gymnasium environment).
using PolicyFactory = std::function<std::shared_ptr<SchedulingPolicy>()>;

// A setup named `name` scheduling the pods of spec.schedulerName `name` with the policy that
// `make` returns; its bindings take the latency model's bind latency. Takes no configuration file.
SchedulerSetup policy_setup(const std::string& name, PolicyFactory make, const std::string& description);

// The run's scheduler setups when policies are declared: `given` (a --scheduler list or a
// scenario's schedulers:) if it names one of `policies`, else the policies themselves (one
// policy: every pod goes to it; several: each pod's schedulerName picks).
std::vector<SetupChoice> with_policies(std::vector<SetupChoice> given, const std::vector<SchedulerSetup>& policies);

}  // namespace kubesim
