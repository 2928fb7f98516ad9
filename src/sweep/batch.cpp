#include "sweep/batch.hpp"

#include <algorithm>

namespace kubesim {

namespace {

// A word for /bin/sh: single-quoted, inner quotes as '\''.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A YAML double-quoted scalar.
std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string sweep_job_name(const SweepPlan& plan) {
  std::string name = "kubesim-sweep-";
  for (char c : plan.name) {
    const char l = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    const bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (ok) {
      name += l;
    } else if (name.back() != '-') {
      name += '-';
    }
  }
  // A Job's pods are named <job>-<index>-<5 chars> and carry the job-name label: keep the
  // name well inside the 63-character label limit (upstream's Job validation).
  if (name.size() > 48) name.resize(48);
  while (name.back() == '-') name.pop_back();
  return name;
}

std::string slurm_array_script(const SweepPlan& plan, const std::string& kubesim, const std::string& plan_path,
                               const std::string& out, const SlurmOptions& o) {
  std::string s = "#!/bin/sh\n";
  s += "# kubesim sweep " + plan.name + ": " + std::to_string(plan.cells.size()) + " cells in " + std::to_string(plan.chunks()) +
       " array tasks of " + std::to_string(plan.cells_per_task) + "; task i runs chunk i.\n";
  s += "#SBATCH --job-name=" + sweep_job_name(plan) + "\n";
  s += "#SBATCH --array=0-" + std::to_string(plan.chunks() - 1) + "\n";
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --output=" + out + "/slurm/task-%a.log\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) s += "#SBATCH --time=" + o.time + "\n";
  s += "exec " + shell_quote(kubesim) + " sweep " + shell_quote(plan_path) + " --out " + shell_quote(out) +
       " --cells \"$SLURM_ARRAY_TASK_ID\" --cells-per-task " + std::to_string(plan.cells_per_task) + " -j 1 --quiet\n";
  return s;
}

std::string k8s_indexed_job(const SweepPlan& plan, const std::string& plan_path, const std::string& out,
                            const std::string& default_host_path) {
  const std::size_t completions = plan.chunks();
  const std::size_t parallelism = plan.kubernetes.parallelism ? plan.kubernetes.parallelism : std::min<std::size_t>(completions, 4);
  const std::string name = sweep_job_name(plan);
  std::string y;
  y += "# kubesim sweep " + plan.name + ": " + std::to_string(plan.cells.size()) + " cells, " + std::to_string(plan.cells_per_task) +
       " per completion index.\n";
  y += "# Index i runs chunk i; the volume holds the plan, its inputs and the output folder.\n";
  y += "# Afterwards: kubesim sweep merge " + out + " (in the volume's folder).\n";
  y += "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\n  labels:\n    app.kubernetes.io/name: kubesim-sweep\n";
  y += "spec:\n  completionMode: Indexed\n  completions: " + std::to_string(completions) + "\n  parallelism: " +
       std::to_string(parallelism) + "\n  backoffLimit: 6\n";
  y += "  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: kubesim-sweep\n";
  // kubesim serve needs a run time for a pod; a real cluster ignores the annotation.
  y += "      annotations:\n        kubesim.io/duration: \"" + std::to_string(plan.cells_per_task) + "\"\n";
  y += "    spec:\n      restartPolicy: Never\n      containers:\n      - name: sweep\n        image: " + yaml_quote(plan.kubernetes.image) + "\n";
  y += "        workingDir: " + yaml_quote(plan.kubernetes.mount_path) + "\n";
  y += "        command: [\"kubesim\"]\n";
  // The kubelet expands $(JOB_COMPLETION_INDEX) from the env the Job controller adds.
  y += "        args: [\"sweep\", " + yaml_quote(plan_path) + ", \"--out\", " + yaml_quote(out) +
       ", \"--cells\", \"$(JOB_COMPLETION_INDEX)\", \"--cells-per-task\", \"" + std::to_string(plan.cells_per_task) +
       "\", \"-j\", \"1\", \"--quiet\"]\n";
  y += "        resources:\n          requests: {cpu: \"1\", memory: 1Gi}\n          limits: {cpu: \"1\", memory: 1Gi}\n";
  y += "        volumeMounts:\n        - name: sweep\n          mountPath: " + yaml_quote(plan.kubernetes.mount_path) + "\n";
  y += "      volumes:\n      - name: sweep\n";
  if (!plan.kubernetes.claim_name.empty()) {
    y += "        persistentVolumeClaim:\n          claimName: " + yaml_quote(plan.kubernetes.claim_name) + "\n";
  } else {
    const std::string host = plan.kubernetes.host_path.empty() ? default_host_path : plan.kubernetes.host_path;
    y += "        hostPath:\n          path: " + yaml_quote(host) + "\n          type: Directory\n";
  }
  return y;
}

}  // namespace kubesim
