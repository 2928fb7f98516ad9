// A workload: jobs with submission times, each run as one pod built from a shared template.
// Readers (Batsim JSON, SWF) produce it; the simulation submits it; writers report on it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "model/objects.hpp"

namespace kubesim {

// How a job's container ends, drawn per pod from a seeded stream: with `probability` the
// container exits with `exit_code` after `after` (or after its normal run time when unset).
struct FailureModel {
  double probability = 0;
  std::int32_t exit_code = 1;
  std::optional<Duration> after;
};

struct WorkloadJob {
  std::string id;          // Batsim job id without the workload prefix ("1", "982")
  std::string name;        // object name of the pod or Job; empty: "<workload name>-<id>"
  NamespaceId ns = NamespaceId(0);  // index into Workload::namespaces
  // Submitted as a batch/v1 Job whose controller creates the pods; otherwise as a bare pod.
  bool as_job = false;
  std::int32_t parallelism = 1;
  std::int32_t completions = 1;
  std::int32_t backoff_limit = 6;
  bool indexed = false;  // Jobs: spec.completionMode Indexed
  bool suspend = false;  // Jobs: created with spec.suspend (e.g. for Kueue to admit)
  Labels job_labels;     // Jobs: metadata.labels
  FailureModel failure;
  std::string profile;     // Batsim profile name
  SimTime submit;          // subtime
  Duration run_time;       // the delay profile: how long the container runs
  Duration walltime;       // Batsim walltime / SWF requested time; zero = none (-1 in Batsim)
  std::int64_t requested_resources = 1;  // Batsim res (requested_number_of_resources)
  // Batsim's job semantics: the job needs this many whole machines at once and runs as that
  // many pods, one per node (each requesting the template's cpu, one core). Zero: one pod
  // with the template's request (a Batkube `cpu` job, Kubernetes manifests).
  std::uint32_t machines = 0;
  std::uint32_t pod_template = 0;        // index into Workload::templates
  std::int32_t exit_code = 0;            // profile "ret"

  // The pods the job asks for: its P machines, a Job's max(completions, parallelism) (retries
  // after failures create more), else one.
  std::size_t pods_asked() const {
    if (machines > 0) return machines;
    return as_job ? static_cast<std::size_t>(std::max(completions, parallelism)) : 1;
  }
};

// Jobs a reader could not use, counted by reason (e.g. "run time <= 0"); never silent.
struct SkippedJobs {
  std::vector<std::pair<std::string, std::uint64_t>> by_reason;  // in first-seen order
  void add(const std::string& reason);
  std::uint64_t total() const;
};

// The pod template of a batch job as Batkube built it: one container "main" whose requests
// equal its limits (cpu in millicores, memory in bytes when given).
PodTemplate batch_job_template(std::int64_t cpu_milli, std::optional<std::int64_t> memory_bytes,
                               std::string scheduler_name = "default-scheduler");

struct Workload {
  std::string name = "w0";  // Batsim workload name, as Batsim names the first workload
  std::string source;       // file it was read from
  // Namespace names; a job's `ns` indexes this list. Entry 0 is always "default".
  std::vector<std::string> namespaces{"default"};
  std::vector<PodTemplate> templates;
  std::vector<WorkloadJob> jobs;  // sorted by (submit, file order)
  SkippedJobs skipped;
  // jobs.csv's metadata column, by job index: what a Batsim scheduler set with SET_JOB_METADATA
  // during the run (batsim_server/); null, or an empty string: "". Shared, so the scheduler's
  // server and the Simulation's copy of the workload see the same vector.
  std::shared_ptr<std::vector<std::string>> job_metadata;
};

}  // namespace kubesim
