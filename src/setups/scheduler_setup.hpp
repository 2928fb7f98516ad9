// Scheduler setups: named ways to schedule a run, as people install them on a real cluster
// (kube-scheduler's default profile; later scheduler-plugins as its chart installs it,
// YuniKorn, Kueue in front of kube-scheduler, Fluxion, the HPC batch policies). `kubesim run
// --scheduler NAME` and `kubesim compare --schedulers A,B,...` pick them by name. A setup
// installs its scheduler models (SimulationInputs::scheduler / other_schedulers) and points
// every pod of the workload at its scheduler, as the study did by changing schedulerName.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/simulation.hpp"

namespace kubesim {

struct SetupOptions {
  std::string config_file;  // the setup's own configuration file; empty: its default
};

struct SchedulerSetup {
  std::string name;            // e.g. "default-scheduler"
  std::string description;
  std::string scheduler_name;  // the spec.schedulerName its scheduler serves
  std::function<void(SimulationInputs&, const SetupOptions&)> install;
};

// Every setup, in a fixed order.
const std::vector<SchedulerSetup>& scheduler_setups();
// Throws InputError naming the known setups when there is none of that name.
const SchedulerSetup& find_setup(const std::string& name);
// Installs `setup` and sets every workload pod template's schedulerName to its scheduler.
void apply_setup(const SchedulerSetup& setup, SimulationInputs& inputs, const SetupOptions& options);

}  // namespace kubesim
