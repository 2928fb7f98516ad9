// Volcano Jobs (batch.volcano.sh/v1alpha1) of the volcano setup's file, as vc-controller-manager's
// job controller turns them into a PodGroup and pods.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/controllers/job/job_controller_actions.go createOrUpdatePodGroup (minMember =
//     spec.minAvailable, queue, priorityClassName, minResources = calcPGMinResources: the
//     requests of the first minAvailable pods), syncJob (the pods of every task)
//   pkg/controllers/job/job_controller_util.go createJobPod (name <job>-<task>-<index>
//     (MakePodName), the task's template, schedulerName = the Job's unless the template sets
//     one, the annotation scheduling.k8s.io/group-name)
//   pkg/webhooks/admission/jobs/mutate/mutate_job.go (queue "default", schedulerName
//     "volcano", minAvailable = Σ replicas when unset)
// kubesim names the PodGroup after the Job (upstream: <job>-<uid>; kubesim has no UIDs; v1.7
// also looks the group up by the Job's name; minTaskMember = each task's minAvailable, else
// its replicas). Not modelled: lifecycle policies (rejected), plugins (svc, ssh, env),
// maxRetry.
#include <algorithm>

#include "core/yaml_input.hpp"
#include "sched/volcano/volcano.hpp"
#include "setups/volcano_setup.hpp"
#include "workload/k8s_manifest.hpp"

namespace kubesim {

namespace {

class VolcanoJobReader : YamlInput {
 public:
  VolcanoJobReader(const std::string& path, SimulationInputs& in, volcano::Config& config)
      : YamlInput(path), in_(in), config_(config) {
    manifests_.namespaces = in.workload.namespaces;
  }

  void job(const YAML::Node& d) {
    check_keys(d, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, {}, "Volcano Job");
    if (!d["metadata"] || !d["metadata"]["name"]) fail(d, "expected the Volcano Job to have metadata.name");
    const YAML::Node meta = d["metadata"];
    const std::string name = scalar(meta["name"], "metadata.name");
    if (!is_dns1123_label(name)) fail(meta["name"], "expected the Volcano Job's name to be a DNS-1123 label");
    const std::string ns = meta["namespace"] ? scalar(meta["namespace"], "metadata.namespace") : "default";
    const std::string w = "Volcano Job " + ns + "/" + name;
    if (!d["spec"]) fail(d, w + " has no spec");
    const YAML::Node spec = d["spec"];
    require_map(spec, w + ".spec");
    check_keys(spec, {"minAvailable", "queue", "schedulerName", "priorityClassName", "tasks"}, {"maxRetry", "ttlSecondsAfterFinished"},
               {"policies", "plugins", "volumes", "minSuccess", "runningEstimate"}, w + ".spec");
    const std::string queue = spec["queue"] ? scalar(spec["queue"], w + ".spec.queue") : "default";
    if (config_.find_queue(queue) < 0) fail(spec["queue"], w + " names queue \"" + queue + "\", which is not defined");
    const std::string scheduler = spec["schedulerName"] ? scalar(spec["schedulerName"], w + ".spec.schedulerName") : "volcano";
    if (!spec["tasks"]) fail(spec, "expected " + w + " to have tasks");
    require_list(spec["tasks"], w + ".spec.tasks");
    const std::size_t first = manifests_.jobs.size();
    std::int64_t replicas_total = 0;
    task_min_.clear();
    for (const YAML::Node& task : spec["tasks"]) replicas_total += this->task(task, d, name, ns, scheduler, w);
    volcano::PodGroupSpec g;
    g.name = name;
    g.ns = ns;
    g.queue = queue;
    g.min_member = static_cast<std::int32_t>(
        spec["minAvailable"] ? integer(spec["minAvailable"], w + ".spec.minAvailable", 0, replicas_total) : replicas_total);
    if (spec["priorityClassName"]) g.priority_class = scalar(spec["priorityClassName"], w + ".spec.priorityClassName");
    g.has_min_resources = true;
    g.min_task_member = task_min_;  // createOrUpdatePodGroup: each task's minAvailable, else its replicas
    std::sort(g.min_task_member.begin(), g.min_task_member.end());
    for (std::size_t i = first; i < first + static_cast<std::size_t>(g.min_member); ++i) g.min_resources += manifests_.jobs[i].spec.requests;
    const ManifestJob& pod0 = manifests_.jobs[first];
    g.created = pod0.submit_at.value_or(SimTime::zero());
    for (std::size_t i = first; i < manifests_.jobs.size(); ++i) {
      ManifestJob& mj = manifests_.jobs[i];
      mj.submit_at = g.created;
      mj.job.submit = g.created;
      if (!g.priority_class.empty() && mj.spec.priority_class_name.empty()) mj.spec.priority_class_name = g.priority_class;
    }
    for (const volcano::PodGroupSpec& other : config_.pod_groups)
      if (other.name == g.name && other.ns == g.ns) fail(d, "duplicate PodGroup " + ns + "/" + name + " (of " + w + ")");
    config_.pod_groups.push_back(std::move(g));
  }

  void finish() {
    in_.workload.namespaces = manifests_.namespaces;
    append_manifest_jobs(std::move(manifests_.jobs), in_.workload);
    std::stable_sort(in_.workload.jobs.begin(), in_.workload.jobs.end(),
                     [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit < b.submit; });
  }

 private:
  // The task's pods (createJobPod), read as Pods; returns the replica count.
  std::int64_t task(const YAML::Node& t, const YAML::Node& job, const std::string& name, const std::string& ns,
                    const std::string& scheduler, const std::string& w) {
    require_map(t, w + ".spec.tasks[]");
    check_keys(t, {"name", "replicas", "template", "minAvailable"}, {"maxRetry", "dependsOn"}, {"policies", "topologyPolicy"},
               w + ".spec.tasks[]");
    if (!t["name"] || !t["template"]) fail(t, "expected a task of " + w + " to have a name and a template");
    const std::string task = scalar(t["name"], "task name");
    const std::int64_t replicas = t["replicas"] ? integer(t["replicas"], w + " task " + task + ".replicas", 0, 100000) : 1;
    const std::int64_t min_available =
        t["minAvailable"] ? integer(t["minAvailable"], w + " task " + task + ".minAvailable", 0, replicas) : replicas;
    task_min_.emplace_back(task, static_cast<std::int32_t>(min_available));
    const YAML::Node tmpl = t["template"];
    require_map(tmpl, w + " task " + task + ".template");
    for (std::int64_t i = 0; i < replicas; ++i) {
      YAML::Node pod(YAML::NodeType::Map);
      pod["apiVersion"] = "v1";
      pod["kind"] = "Pod";
      YAML::Node meta(YAML::NodeType::Map);
      meta["name"] = name + "-" + task + "-" + std::to_string(i);
      meta["namespace"] = ns;
      YAML::Node annotations(YAML::NodeType::Map);
      for (const YAML::Node& from : {job["metadata"]["annotations"], tmpl["metadata"] ? tmpl["metadata"]["annotations"] : YAML::Node()})
        if (from && from.IsMap())
          for (const auto& kv : from) annotations[kv.first.as<std::string>()] = kv.second;
      if (annotations.size() > 0) meta["annotations"] = annotations;
      if (tmpl["metadata"] && tmpl["metadata"]["labels"]) meta["labels"] = tmpl["metadata"]["labels"];
      pod["metadata"] = meta;
      pod["spec"] = tmpl["spec"];
      const std::size_t before = manifests_.jobs.size();
      read_manifest_node(pod, path(), in_.resource_names, manifests_);
      ManifestJob& mj = manifests_.jobs[before];
      if (!(tmpl["spec"] && tmpl["spec"]["schedulerName"])) mj.spec.scheduler_name = scheduler;
      set_label(mj.spec.annotations, volcano::kGroupNameAnnotation, name);
      set_label(mj.spec.annotations, volcano::kTaskSpecAnnotation, task);
      mj.line = line_of(job);
    }
    return replicas;
  }

  SimulationInputs& in_;
  volcano::Config& config_;
  Manifests manifests_;
  std::vector<std::pair<std::string, std::int32_t>> task_min_;  // the current Job's tasks' minimum
};

}  // namespace

void add_volcano_jobs(const std::string& path, SimulationInputs& in, volcano::Config& config) {
  const std::vector<YAML::Node> docs = load_yaml_documents(path);
  VolcanoJobReader reader(path, in, config);
  try {
    for (const YAML::Node& d : docs)
      if (d && d.IsMap() && d["kind"] && d["kind"].as<std::string>() == "Job" && d["apiVersion"] &&
          d["apiVersion"].as<std::string>() == volcano::kVolcanoJobApi)
        reader.job(d);
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e, "unexpected value: ");
  }
  reader.finish();
}

}  // namespace kubesim
