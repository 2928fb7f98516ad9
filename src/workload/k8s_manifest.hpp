// Reads plain Kubernetes manifests (multi-document YAML, `kind: List` too) into model
// objects: Namespace, ResourceQuota, PriorityClass, PodDisruptionBudget, batch/v1 Job and
// core/v1 Pod. Every other kind is an error naming the kind and the line.
//
// Defaults and validation follow upstream (k8s.io/kubernetes v1.26):
//   pkg/apis/core/v1/defaults.go      terminationGracePeriodSeconds 30, schedulerName
//                                     default-scheduler, restartPolicy Always, requests
//                                     default to limits (SetDefaults_Pod)
//   pkg/apis/batch/v1/defaults.go     parallelism/completions 1, backoffLimit 6
//   pkg/apis/core/validation/validation.go   requests <= limits, extended resources need a
//                                     limit equal to the request, node selector operators,
//                                     tolerations, activeDeadlineSeconds > 0, DNS-1123 names
//   pkg/apis/batch/validation/validation.go  a Job's restartPolicy is OnFailure or Never
//   pkg/apis/scheduling/validation    PriorityClass value <= 1e9 unless system-
//   pkg/apis/policy/validation        PDB: not both minAvailable and maxUnavailable, 0..100%
//   pkg/quota/v1/evaluator/core/pods.go    the pod quota names (QuotaItem::Kind)
// Unknown fields are errors (as kubectl's strict field validation), except a list of real
// API fields that do not change scheduling (image, env, volumes, probes, ...), which are
// accepted and ignored. Fields that would change scheduling but are not modelled
// (podAffinity, topologySpreadConstraints, quota scopes, restartPolicy OnFailure, ...)
// are errors saying "not supported".
//
// Run time (the simulator needs one per pod): annotation `kubesim.io/duration` (seconds,
// on the Pod, the Job or its pod template), else each container's `sleep N` command:
// command ["sleep","N"], command ["sleep"] + args ["N"], or ["sh","-c","sleep N"] (N with
// an optional s/m/h/d suffix as busybox sleep accepts); the pod runs the sum of its init
// containers' sleeps plus the longest container sleep. Other kubesim annotations:
//   kubesim.io/submit-at         submission time in seconds (Job or Pod metadata)
//   kubesim.io/fail-probability  FailureModel::probability, 0..1
//   kubesim.io/exit-code         FailureModel::exit_code, 1..255
//   kubesim.io/fail-after        FailureModel::after, seconds
// Errors throw InputError(file, line, "expected ...") with the line of the offending node.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/objects.hpp"
#include "model/resources.hpp"
#include "workload/workload.hpp"

namespace YAML {
class Node;
}

namespace kubesim {

// A Job or a bare Pod read from a manifest.
struct ManifestJob {
  PodTemplate spec;  // finalized; labels include job-name for Jobs
  // as_job, name, ns, parallelism, completions, backoff_limit, run_time, walltime
  // (activeDeadlineSeconds), failure and submit (0 when not annotated) are set; id and
  // pod_template are left to the caller (append_manifest_jobs sets them).
  WorkloadJob job;
  std::optional<SimTime> submit_at;  // kubesim.io/submit-at, when given
  std::string kind;                  // "Job" or "Pod"
  std::string file;
  int line = 0;  // where the object starts
};

// Everything read from one or more manifest files. Namespace ids index `namespaces`, whose
// entry 0 is "default"; every namespace an object names (or a Namespace object declares)
// is added in first-mention order.
struct Manifests {
  std::vector<std::string> namespaces{"default"};
  std::vector<PriorityClass> priority_classes;
  std::vector<ResourceQuota> quotas;  // items sorted by name
  std::vector<PodDisruptionBudget> pod_disruption_budgets;
  std::vector<ManifestJob> jobs;  // file order
  // file:line of each object above, parallel to its vector, for later error messages.
  std::vector<std::string> priority_class_where, quota_where, pdb_where;

  NamespaceId intern_namespace(const std::string& name);
  std::optional<NamespaceId> find_namespace(const std::string& name) const;
};

struct ManifestOptions {
  std::string default_namespace = "default";  // for objects without metadata.namespace
  bool only_default_namespace = false;        // namespaced objects must be in default_namespace
  bool only_jobs = false;                     // only Job and Pod kinds are allowed
  // An object sent to the HTTP API (`kubesim serve`): metadata may carry generateName and
  // null labels/annotations; a pod spec may carry the apiserver-set priority and
  // preemptionPolicy (ignored: admission resolves them again); a Pod or Job without a run
  // time (no annotation, no sleep command) and a Pod with restartPolicy Always run until
  // deleted (run_time = Duration::max()).
  bool api_object = false;
  // The GPU models of the cluster's nodes: when set, a pod's alibabacloud.com/gpu-card-model
  // naming another model is an error (file:line).
  const std::set<std::string>* gpu_models = nullptr;
};

// Reads every document of a YAML file (a missing file is an InputError naming it).
void read_manifest_file(const std::string& path, ResourceNames& names, Manifests& out,
                        const ManifestOptions& options = {});
// Reads one object (or a `kind: List`) given inline; `file` names the file it came from.
void read_manifest_node(const YAML::Node& object, const std::string& file, ResourceNames& names, Manifests& out,
                        const ManifestOptions& options = {});
// Convenience: a fresh Manifests from one file.
Manifests read_manifest_file(const std::string& path, ResourceNames& names);

// Appends `jobs` to `workload`: one PodTemplate per job, WorkloadJob::pod_template set,
// id = "<namespace>/<name>" unless already set, submit = submit_at or `default_submit`.
// Namespace ids must already index workload.namespaces (copy Manifests::namespaces first).
// Does not sort.
void append_manifest_jobs(std::vector<ManifestJob> jobs, Workload& workload, SimTime default_submit = SimTime::zero());

// Parses a `sleep` duration as busybox sleep does: a non-negative decimal number with an
// optional suffix s, m, h or d. nullopt if it is not one.
std::optional<Duration> parse_sleep_duration(const std::string& text);

}  // namespace kubesim
