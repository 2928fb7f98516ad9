// The `volcano` setup: Volcano v1.7.0's vc-scheduler (sched/volcano/) schedules the pods of
// schedulerName volcano, with its podgroup controller; kube-scheduler keeps serving the
// default-scheduler pods, as on a cluster where Volcano is installed beside it.
#pragma once

#include "setups/scheduler_setup.hpp"

namespace kubesim {

// Reads options.config_file (sched/volcano/vc_config.hpp: volcano-scheduler.conf, Queues,
// PodGroups; empty: the release's default configuration and the default queue only) and
// installs the model. What a user submitting to Volcano writes, the setup writes for the
// workload: a pod of a namespace that has a Queue of the same name (the study's tenants) gets
// the annotation scheduling.volcano.sh/queue-name=<namespace>; a rigid parallel job (P
// machines) gets a PodGroup of its own name, minMember = minAvailable = P and minResources =
// P ranks' requests (what the Volcano Job controller gives a job of one task of P replicas,
// pkg/controllers/job/job_controller_actions.go createOrUpdatePodGroup), named by its ranks'
// annotation scheduling.k8s.io/group-name, in the namespace's queue.
// The file's Volcano Jobs (batch.volcano.sh/v1alpha1) are added to the workload as their pods
// (add_volcano_jobs, volcano_jobs.cpp) with their PodGroups.
void install_volcano(SimulationInputs& inputs, const SetupOptions& options);

namespace volcano {
struct Config;
}
// Reads the Volcano Jobs of `path`: each becomes a PodGroup in `config` and pods
// <job>-<task>-<index> in inputs.workload (submitted at the Job's kubesim.io/submit-at).
void add_volcano_jobs(const std::string& path, SimulationInputs& inputs, volcano::Config& config);

}  // namespace kubesim
