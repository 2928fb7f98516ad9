// What each Kubernetes scheduler setup is told about a rigid parallel job (a Batsim job of
// `res` = P machines without a Batkube cpu: WorkloadJob::machines = P > 1, run as P pods, one
// per machine; control/kubelet.hpp: its ranks work only once all of them run). Each setup
// gets the gang metadata its real counterpart reads, as a user submitting an MPI-style job to
// that cluster would write it:
// - scheduler-plugins (Coscheduling, v0.26 / release-1.26 chart): a PodGroup
//   (scheduling.x-k8s.io/v1alpha1) named after the job in its namespace, minMember = P,
//   created with the job, and the pod label scheduling.x-k8s.io/pod-group = its name
//   (scheduler-plugins apis/scheduling/v1alpha1/types.go PodGroupLabel; the PodGroup of
//   pkg/coscheduling/README.md's example: minMember, no minResources, so ranks are reserved
//   as nodes come free and a group that cannot complete is rejected in PostFilter);
// - YuniKorn (1.5, gang scheduling): one task group per job, "ranks", minMember = P and
//   minResource = one rank's requests, in the annotations yunikorn.apache.org/task-groups and
//   yunikorn.apache.org/task-group-name of every rank (yunikorn-site docs/user_guide/
//   gang_scheduling.md "Annotations"; the shim's pkg/cache/utils.go
//   GetTaskGroupsFromAnnotation); the application is the job (applicationId = its name, set
//   by install_yunikorn); the scheduling policy is left at its defaults (Soft, 15 min);
// - Kueue (v0.9): the job becomes what Kueue admits, a suspended batch/v1 Job with
//   parallelism = completions = P, completionMode Indexed (one completion index per rank) and
//   backoffLimit 0 (a rank that fails fails the job, as in Batsim), whose Workload has one
//   PodSet of count min(parallelism, completions) = P (kueue pkg/controller/jobs/job/
//   job_controller.go PodSets); admission is all or nothing for the PodSet's total request.
//   A job of one machine becomes a Job of parallelism 1, so that every job of the trace goes
//   through Kueue's quota. The queue-name label and suspend are then set by install_kueue.
// kube-scheduler's default profile gets nothing: it places the ranks one by one.
#pragma once

#include <string>
#include <vector>

#include "sched/kube/plugins/coscheduling/coscheduling.hpp"
#include "workload/workload.hpp"

namespace kubesim {

// The object name of the job's pods (ranks add "-<rank>"), PodGroup, application or Job:
// the job's own name, else "<workload name>-<id>" (engine/simulation.cpp submit).
std::string parallel_job_name(const Workload& w, const WorkloadJob& j);
inline bool is_parallel_job(const WorkloadJob& j) { return j.machines > 1 && !j.as_job; }

// The PodGroups of the workload's parallel jobs, in job order.
std::vector<PodGroupObject> parallel_job_pod_groups(const Workload& w);

// Each of these changes only the parallel jobs whose pods have spec.schedulerName
// `scheduler_name` (the setup's), giving each its own template where it adds metadata.
// The pod-group label.
void label_parallel_job_pod_groups(Workload& w, const std::string& scheduler_name);
// The task-group annotations.
inline constexpr const char* kParallelJobTaskGroup = "ranks";
void annotate_parallel_job_task_groups(Workload& w, const ResourceNames& names, const std::string& scheduler_name);
// The Indexed Jobs described above (jobs of one machine included).
void parallel_jobs_as_indexed_jobs(Workload& w, const std::string& scheduler_name);

}  // namespace kubesim
