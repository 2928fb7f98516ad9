// The `kueue` setup: Kueue (sched/kueue/) admits the workload's Jobs in front of
// kube-scheduler's default profile, which schedules their pods.
#pragma once

#include "setups/scheduler_setup.hpp"

namespace kubesim {

// Reads options.config_file (ClusterQueue / LocalQueue / ResourceFlavor / Configuration
// YAML; required), installs kube-scheduler's default profile and the Kueue controller, and
// creates every workload Job of a namespace that has a LocalQueue suspended and labelled
// kueue.x-k8s.io/queue-name=<the namespace's first LocalQueue in the file> (what a user
// submitting to Kueue writes; Kueue's webhook would suspend it).
void install_kueue(SimulationInputs& inputs, const SetupOptions& options);

}  // namespace kubesim
