// Running a sweep on a batch system: chunk i of the plan's cells (cellsPerTask each) is one
// Slurm array task or one Kubernetes completion index, and runs
// `kubesim sweep PLAN --out OUT --cells i --cells-per-task K -j 1`. All tasks write into
// OUT/cells/ on a shared filesystem; `kubesim sweep merge OUT` merges.
#pragma once

#include <string>

#include "sweep/plan.hpp"

namespace kubesim {

struct SlurmOptions {
  std::string partition;  // #SBATCH --partition, when given
  std::string time;       // #SBATCH --time, when given
};

// The sbatch script of one job array: task i runs chunk i. Paths must be absolute (tasks run
// on other nodes, in another directory).
std::string slurm_array_script(const SweepPlan& plan, const std::string& kubesim, const std::string& plan_path,
                               const std::string& out, const SlurmOptions& options);

// A batch/v1 Job with completionMode Indexed, completions = chunks, parallelism from the plan
// (default min(chunks, 4)): each pod runs chunk $(JOB_COMPLETION_INDEX) with the plan and OUT
// on a volume (the plan's claimName, else its hostPath, else `default_host_path`) mounted
// at mountPath, its working directory; `plan_path` and `out` are relative to that folder.
std::string k8s_indexed_job(const SweepPlan& plan, const std::string& plan_path, const std::string& out,
                            const std::string& default_host_path);

// The name of the plan's Job: "kubesim-sweep-" + the plan name as a DNS-1123 label.
std::string sweep_job_name(const SweepPlan& plan);

}  // namespace kubesim
