#include "workload/k8s_manifest.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/input_error.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

const std::string kExamples = kubesim::testing::source_dir() + "/examples/multitenant/manifests/";

// Reads `text` and expects an InputError at `line` whose message contains `what`.
void expect_error(const std::string& text, int line, const std::string& what, const std::string& suffix = "") {
  const testing::ScratchDir dir;
  const std::string path = dir.write("manifest" + suffix + ".yaml", text);
  ResourceNames names;
  testing::expect_input_error([&] { read_manifest_file(path, names); }, path, line, what);
}

TEST(K8sManifest, StudyQuotas) {
  ResourceNames names;
  Manifests m;
  for (const char* t : {"tenant1", "tenant2", "tenant3"})
    read_manifest_file(kExamples + t + "-quota.yaml", names, m);
  ASSERT_EQ(m.quotas.size(), 3u);
  EXPECT_EQ(m.namespaces, (std::vector<std::string>{"default", "tenant1", "tenant2", "tenant3"}));
  const std::int64_t cpu[] = {128'000, 64'000, 32'000};
  const std::int64_t mem[] = {512'000'000'000, 256'000'000'000, 128'000'000'000};
  for (std::size_t i = 0; i < 3; ++i) {
    const ResourceQuota& q = m.quotas[i];
    EXPECT_EQ(q.name, "tenant" + std::to_string(i + 1));
    EXPECT_EQ(q.ns.value(), i + 1);
    ASSERT_EQ(q.items.size(), 4u);
    EXPECT_EQ(q.items[0].name, "limits.cpu");
    EXPECT_EQ(q.items[0].kind, QuotaItem::Kind::kLimits);
    EXPECT_EQ(q.items[0].slot, kCpu);
    EXPECT_EQ(q.items[0].hard, cpu[i]);
    EXPECT_EQ(q.items[1].name, "limits.memory");
    EXPECT_EQ(q.items[1].kind, QuotaItem::Kind::kLimits);
    EXPECT_EQ(q.items[1].slot, kMemory);
    EXPECT_EQ(q.items[1].hard, mem[i]);
    EXPECT_EQ(q.items[2].name, "requests.cpu");
    EXPECT_EQ(q.items[2].kind, QuotaItem::Kind::kRequests);
    EXPECT_EQ(q.items[2].hard, cpu[i]);
    EXPECT_EQ(q.items[3].name, "requests.memory");
    EXPECT_EQ(q.items[3].kind, QuotaItem::Kind::kRequests);
    EXPECT_EQ(q.items[3].slot, kMemory);
    EXPECT_EQ(q.items[3].hard, mem[i]);
    EXPECT_EQ(q.items[3].used, 0);
  }
}

TEST(K8sManifest, StudyPriorityClass) {
  ResourceNames names;
  Manifests m = read_manifest_file(kExamples + "backfill-priority-class.yaml", names);
  ASSERT_EQ(m.priority_classes.size(), 1u);
  EXPECT_EQ(m.priority_classes[0].name, "backfill");
  EXPECT_EQ(m.priority_classes[0].value, -9999);
  EXPECT_FALSE(m.priority_classes[0].global_default);
  EXPECT_EQ(m.priority_classes[0].preemption_policy, PreemptionPolicy::kPreemptLowerPriority);
  EXPECT_TRUE(m.jobs.empty());
}

TEST(K8sManifest, QuotaItemKinds) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("manifest.yaml", R"(apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: team}
spec:
  hard:
    pods: "10"
    count/pods: 20
    cpu: 1500m
    memory: 1Gi
    requests.nvidia.com/gpu: 4
    services: 5
    requests.storage: 10Gi
)");
  ResourceNames names;
  Manifests m = read_manifest_file(path, names);
  ASSERT_EQ(m.quotas.size(), 1u);
  const auto& items = m.quotas[0].items;
  ASSERT_EQ(items.size(), 7u);
  const int gpu = names.find("nvidia.com/gpu");
  ASSERT_GE(gpu, 3);
  // sorted by name
  EXPECT_EQ(items[0].name, "count/pods");
  EXPECT_EQ(items[0].kind, QuotaItem::Kind::kPods);
  EXPECT_EQ(items[0].hard, 20);
  EXPECT_EQ(items[1].name, "cpu");
  EXPECT_EQ(items[1].kind, QuotaItem::Kind::kRequests);
  EXPECT_EQ(items[1].hard, 1500);
  EXPECT_EQ(items[2].name, "memory");
  EXPECT_EQ(items[2].kind, QuotaItem::Kind::kRequests);
  EXPECT_EQ(items[2].hard, 1LL << 30);
  EXPECT_EQ(items[3].name, "pods");
  EXPECT_EQ(items[3].kind, QuotaItem::Kind::kPods);
  EXPECT_EQ(items[3].hard, 10);
  EXPECT_EQ(items[4].name, "requests.nvidia.com/gpu");
  EXPECT_EQ(items[4].kind, QuotaItem::Kind::kRequests);
  EXPECT_EQ(items[4].slot, gpu);
  EXPECT_EQ(items[4].hard, 4);
  EXPECT_EQ(items[5].name, "requests.storage");
  EXPECT_EQ(items[5].kind, QuotaItem::Kind::kOther);
  EXPECT_EQ(items[6].name, "services");
  EXPECT_EQ(items[6].kind, QuotaItem::Kind::kOther);
  EXPECT_EQ(items[6].hard, 5);
}

// The notebook's Job, as the Python client would have sent it.
TEST(K8sManifest, StudyJob) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("manifest.yaml", R"(---
apiVersion: v1
kind: Namespace
metadata: {name: tenant1}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: tenant1-burst-1
  namespace: tenant1
  labels: {job_name: tenant1-burst-1}
  annotations:
    kubesim.io/submit-at: "90"
    kubesim.io/fail-probability: "0.25"
    kubesim.io/exit-code: "3"
spec:
  template:
    metadata:
      name: tenant1-burst-pod-1
      labels: {pod_name: tenant1-burst-pod-1}
    spec:
      restartPolicy: Never
      schedulerName: default-scheduler
      containers:
        - name: burst-sleep-tenant1
          image: busybox:1.36
          imagePullPolicy: Never
          command: ["sleep"]
          args: ["180"]
          resources:
            requests: {cpu: "4", memory: 8G}
            limits: {cpu: "4", memory: 8G}
)");
  ResourceNames names;
  Manifests m = read_manifest_file(path, names);
  EXPECT_EQ(m.namespaces, (std::vector<std::string>{"default", "tenant1"}));
  ASSERT_EQ(m.jobs.size(), 1u);
  const ManifestJob& mj = m.jobs[0];
  EXPECT_EQ(mj.kind, "Job");
  EXPECT_EQ(mj.line, 6);
  EXPECT_EQ(mj.file, path);
  const WorkloadJob& j = mj.job;
  EXPECT_TRUE(j.as_job);
  EXPECT_EQ(j.name, "tenant1-burst-1");
  EXPECT_EQ(j.ns.value(), 1u);
  EXPECT_EQ(j.parallelism, 1);
  EXPECT_EQ(j.completions, 1);
  EXPECT_EQ(j.backoff_limit, 6);
  EXPECT_EQ(j.run_time, Duration::seconds(180));
  EXPECT_EQ(j.submit, SimTime::at(Duration::seconds(90)));
  ASSERT_TRUE(mj.submit_at.has_value());
  EXPECT_DOUBLE_EQ(j.failure.probability, 0.25);
  EXPECT_EQ(j.failure.exit_code, 3);
  EXPECT_FALSE(j.failure.after.has_value());
  EXPECT_EQ(j.walltime, Duration());
  const PodTemplate& t = mj.spec;
  ASSERT_EQ(t.containers.size(), 1u);
  EXPECT_EQ(t.containers[0].name, "burst-sleep-tenant1");
  EXPECT_EQ(t.containers[0].requests[kCpu], 4000);
  EXPECT_EQ(t.containers[0].requests[kMemory], 8'000'000'000);
  EXPECT_EQ(t.containers[0].limits, t.containers[0].requests);
  EXPECT_EQ(t.containers[0].requested_mask, (1u << kCpu) | (1u << kMemory));
  EXPECT_EQ(t.containers[0].limited_mask, (1u << kCpu) | (1u << kMemory));
  EXPECT_EQ(t.requests[kCpu], 4000);  // finalized
  EXPECT_EQ(t.scheduler_name, "default-scheduler");
  EXPECT_EQ(t.termination_grace_period_seconds, 30);
  EXPECT_EQ(t.labels, (Labels{{"batch.kubernetes.io/job-name", "tenant1-burst-1"},
                              {"job-name", "tenant1-burst-1"},
                              {"pod_name", "tenant1-burst-pod-1"}}));

  // The same job as batch_job_template builds it has the same effective request.
  PodTemplate study = batch_job_template(4000, 8'000'000'000);
  EXPECT_EQ(study.requests, t.requests);
  EXPECT_EQ(study.nonzero_requests, t.nonzero_requests);

  Workload w;
  w.namespaces = m.namespaces;
  append_manifest_jobs(std::move(m.jobs), w, SimTime::at(Duration::seconds(5)));
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].id, "tenant1/tenant1-burst-1");
  EXPECT_EQ(w.jobs[0].pod_template, 0u);
  EXPECT_EQ(w.jobs[0].submit, SimTime::at(Duration::seconds(90)));  // annotated: kept
  EXPECT_EQ(w.templates.size(), 1u);
}

TEST(K8sManifest, PodWithSchedulingConstraints) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("manifest.yaml", R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  labels: {app: x}
spec:
  restartPolicy: Never
  priorityClassName: high
  terminationGracePeriodSeconds: 5
  activeDeadlineSeconds: 600
  nodeName: node-1
  nodeSelector: {disk: ssd}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: zone, operator: In, values: [a, b]}
              - {key: gen, operator: Gt, values: ["3"]}
            matchFields:
              - {key: metadata.name, operator: NotIn, values: [node-9]}
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference:
            matchExpressions: [{key: fast, operator: Exists}]
  tolerations:
    - {key: gpu, operator: Exists, effect: NoSchedule}
    - {key: k, value: v}
    - {operator: Exists}
  initContainers:
    - name: setup
      image: busybox
      command: ["sh", "-c", "sleep 1m"]
  containers:
    - name: a
      image: busybox
      command: ["/bin/sh", "-c", "sleep 30"]
      resources:
        limits: {cpu: 500m, nvidia.com/gpu: 1}
    - name: b
      image: busybox
      command: ["sleep", "45.5"]
)");
  ResourceNames names;
  Manifests m = read_manifest_file(path, names);
  ASSERT_EQ(m.jobs.size(), 1u);
  const ManifestJob& mj = m.jobs[0];
  EXPECT_EQ(mj.kind, "Pod");
  EXPECT_FALSE(mj.job.as_job);
  EXPECT_EQ(mj.job.ns.value(), 0u);  // default
  EXPECT_EQ(mj.job.run_time, Duration::seconds(60) + Duration::millis(45'500));  // init + longest
  EXPECT_EQ(mj.job.walltime, Duration::seconds(600));
  EXPECT_EQ(mj.job.submit, SimTime::zero());
  EXPECT_FALSE(mj.submit_at.has_value());
  const PodTemplate& t = mj.spec;
  EXPECT_EQ(t.labels, (Labels{{"app", "x"}}));
  EXPECT_EQ(t.priority_class_name, "high");
  EXPECT_EQ(t.termination_grace_period_seconds, 5);
  EXPECT_EQ(t.node_name, "node-1");
  EXPECT_EQ(t.node_selector, (Labels{{"disk", "ssd"}}));
  EXPECT_TRUE(t.has_affinity);
  ASSERT_EQ(t.affinity.required_terms.size(), 1u);
  ASSERT_EQ(t.affinity.required_terms[0].match_expressions.size(), 2u);
  EXPECT_EQ(t.affinity.required_terms[0].match_expressions[1].op, NodeSelectorRequirement::Operator::kGt);
  ASSERT_EQ(t.affinity.required_terms[0].match_fields.size(), 1u);
  EXPECT_EQ(t.affinity.required_terms[0].match_fields[0].values, (std::vector<std::string>{"node-9"}));
  ASSERT_EQ(t.affinity.preferred.size(), 1u);
  EXPECT_EQ(t.affinity.preferred[0].weight, 10);
  ASSERT_EQ(t.tolerations.size(), 3u);
  EXPECT_EQ(t.tolerations[0].op, Toleration::Operator::kExists);
  EXPECT_EQ(t.tolerations[0].effect, TaintEffect::kNoSchedule);
  EXPECT_EQ(t.tolerations[1].op, Toleration::Operator::kEqual);
  EXPECT_EQ(t.tolerations[1].value, "v");
  EXPECT_FALSE(t.tolerations[1].effect.has_value());
  EXPECT_TRUE(t.tolerations[2].key.empty());
  ASSERT_EQ(t.containers.size(), 2u);
  ASSERT_EQ(t.init_containers.size(), 1u);
  // Limits without requests default the requests (SetDefaults_Pod).
  const int gpu = names.find("nvidia.com/gpu");
  ASSERT_GE(gpu, 3);
  EXPECT_EQ(t.containers[0].requests[kCpu], 500);
  EXPECT_EQ(t.containers[0].requests[static_cast<std::size_t>(gpu)], 1);
  EXPECT_EQ(t.containers[0].requested_mask, t.containers[0].limited_mask);
  EXPECT_EQ(t.containers[1].requested_mask, 0u);
  EXPECT_EQ(t.requests[kCpu], 500);
}

TEST(K8sManifest, JobDefaultsAndDuration) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("manifest.yaml", R"(apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: ns1
  annotations: {kubesim.io/duration: "2m", kubesim.io/fail-probability: "1", kubesim.io/fail-after: "10"}
spec:
  parallelism: 2
  completions: 4
  backoffLimit: 0
  ttlSecondsAfterFinished: 100
  template:
    metadata:
      annotations: {kubesim.io/duration: "30"}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: app:latest}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb, namespace: ns2}
spec:
  maxUnavailable: 25%
  selector:
    matchLabels: {job-name: j}
    matchExpressions: [{key: tier, operator: NotIn, values: [web]}]
)");
  ResourceNames names;
  Manifests m = read_manifest_file(path, names);
  ASSERT_EQ(m.jobs.size(), 1u);
  const WorkloadJob& j = m.jobs[0].job;
  EXPECT_EQ(j.parallelism, 2);
  EXPECT_EQ(j.completions, 4);
  EXPECT_EQ(j.backoff_limit, 0);
  EXPECT_EQ(j.run_time, Duration::seconds(30));  // the template's annotation wins
  // The pods carry the template's annotations, not the Job's.
  EXPECT_EQ(m.jobs[0].spec.annotations, (Labels{{"kubesim.io/duration", "30"}}));
  EXPECT_DOUBLE_EQ(j.failure.probability, 1.0);
  EXPECT_EQ(j.failure.exit_code, 1);
  EXPECT_EQ(j.failure.after, Duration::seconds(10));
  EXPECT_EQ(m.namespaces, (std::vector<std::string>{"default", "ns1", "ns2"}));
  ASSERT_EQ(m.pod_disruption_budgets.size(), 1u);
  const PodDisruptionBudget& p = m.pod_disruption_budgets[0];
  EXPECT_EQ(p.ns.value(), 2u);
  EXPECT_FALSE(p.min_available.has_value());
  ASSERT_TRUE(p.max_unavailable.has_value());
  EXPECT_TRUE(p.max_unavailable->percent);
  EXPECT_EQ(p.max_unavailable->value, 25);
  EXPECT_EQ(p.selector.match_labels, (Labels{{"job-name", "j"}}));
  ASSERT_EQ(p.selector.match_expressions.size(), 1u);
  EXPECT_EQ(p.selector.match_expressions[0].op, NodeSelectorRequirement::Operator::kNotIn);
}

TEST(K8sManifest, InlineNodeAndOptions) {
  YAML::Node n = YAML::Load(
      "{apiVersion: v1, kind: ResourceQuota, metadata: {name: q}, spec: {hard: {pods: 3}}}");
  ResourceNames names;
  Manifests m;
  ManifestOptions o;
  o.default_namespace = "tenant9";
  read_manifest_node(n, "scenario.yaml", names, m, o);
  ASSERT_EQ(m.quotas.size(), 1u);
  EXPECT_EQ(m.namespaces[m.quotas[0].ns.value()], "tenant9");

  o.only_default_namespace = true;
  YAML::Node other = YAML::Load("{apiVersion: v1, kind: ResourceQuota, metadata: {name: q, namespace: x}}");
  EXPECT_THROW(read_manifest_node(other, "scenario.yaml", names, m, o), InputError);
  o = ManifestOptions{};
  o.only_jobs = true;
  EXPECT_THROW(read_manifest_node(n, "scenario.yaml", names, m, o), InputError);
}

TEST(K8sManifest, SleepDurations) {
  EXPECT_EQ(parse_sleep_duration("60"), Duration::seconds(60));
  EXPECT_EQ(parse_sleep_duration("1.5"), Duration::millis(1500));
  EXPECT_EQ(parse_sleep_duration("2m"), Duration::seconds(120));
  EXPECT_EQ(parse_sleep_duration("1h"), Duration::seconds(3600));
  EXPECT_EQ(parse_sleep_duration("1d"), Duration::seconds(86400));
  EXPECT_EQ(parse_sleep_duration("0"), Duration());
  EXPECT_FALSE(parse_sleep_duration("-1").has_value());
  EXPECT_FALSE(parse_sleep_duration("1e3").has_value());
  EXPECT_FALSE(parse_sleep_duration("inf").has_value());
  EXPECT_FALSE(parse_sleep_duration("").has_value());
  EXPECT_FALSE(parse_sleep_duration("s").has_value());
  EXPECT_FALSE(parse_sleep_duration("10x").has_value());
}

const char* kJobHead = R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
)";

TEST(K8sManifest, Errors) {
  expect_error("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n", 2, "Deployment");
  expect_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [}\n", 4, "malformed YAML");
  expect_error("apiVersion: batch/v2\nkind: Job\n", 1, "expected apiVersion batch/v1");
  expect_error(std::string(kJobHead) + "      containers: [{name: c, image: i, command: [sleep, '1']}]\n", 7,
               "the default Always is invalid");
  expect_error(std::string(kJobHead) +
                   "      restartPolicy: OnFailure\n      containers: [{name: c, image: i, command: [sleep, '1']}]\n",
               7, "OnFailure is not supported");
  expect_error(std::string(kJobHead) +
                   "      restartPolicy: Always\n      containers: [{name: c, image: i, command: [sleep, '1']}]\n",
               7, "Always is invalid");
  expect_error(std::string(kJobHead) + "      restartPolicy: Never\n      containers:\n        - name: c\n"
                                       "          image: i\n          command: [python, run.py]\n",
               9, "sleep N");
  expect_error(std::string(kJobHead) + "      restartPolicy: Never\n      containers:\n        - name: c\n"
                                       "          command: [sleep, '1']\n",
               9, "to have an image");
  expect_error(std::string(kJobHead) + "      restartPolicy: Never\n      containers:\n        - name: c\n"
                                       "          image: i\n          command: [sleep, '1']\n          resources:\n"
                                       "            requests: {cpu: 2}\n            limits: {cpu: 1}\n",
               13, "at most the cpu limit");
  expect_error(std::string(kJobHead) + "      restartPolicy: Never\n      containers:\n        - name: c\n"
                                       "          image: i\n          command: [sleep, '1']\n          resources:\n"
                                       "            requests: {cpu: 2 cores}\n",
               13, "2 cores");
  expect_error(std::string(kJobHead) + "      restartPolicy: Never\n      containers:\n        - name: c\n"
                                       "          image: i\n          comand: [sleep, '1']\n",
               11, "unknown key \"comand\"");
  expect_error(std::string(kJobHead) + "      restartPolicy: Never\n      affinity: {podAntiAffinity: {}}\n"
                                       "      containers: [{name: c, image: i, command: [sleep, '1']}]\n",
               8, "podAntiAffinity is not supported");
  expect_error("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 3\n  template: {}\n", 5,
               "work-queue");
  expect_error("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations: {kubesim.io/duraton: '5'}\n", 5,
               "unknown annotation");
  expect_error("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {pods: 1}\n  scopes: [BestEffort]\n",
               6, "scopes is not supported");
  expect_error("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard:\n    limits.nvidia.com/gpu: 1\n",
               6, "requests. prefix");
  expect_error("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n  minAvailable: 1\n"
               "  maxUnavailable: 1\n  selector: {}\n",
               6, "only one of");
  expect_error("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n  minAvailable: 120%\n"
               "  selector: {}\n",
               5, "percentage");
  expect_error("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: x}\nvalue: 2000000000\n", 4,
               "at most 1000000000");
  expect_error("apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\n", 3, "RFC 1123");
  expect_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i, command: [sleep, '1']}]\n",
               5, "restartPolicy Always (the default) is not supported");
  expect_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: Never\n  tolerations:\n"
               "    - {key: k, operator: Exists, value: v}\n  containers: [{name: c, image: i, command: [sleep, '1']}]\n",
               7, "value to be empty");
  expect_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: Never\n  containers:\n"
               "    - {name: c, image: i, command: [sleep, '1'], resources: {requests: {example.com/dev: 1}}}\n",
               7, "expected a limit for example.com/dev");
  expect_error("---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n---\n"
               "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 2\n",
               7, "duplicate PriorityClass \"a\"");
}

// Found by fuzz/manifest_yaml_fuzz: a document starting with a stray ',' made yaml-cpp 0.7's
// LoadAll loop forever (core/yaml_input.cpp load_all_yaml); now a syntax error at the ','.
TEST(K8sManifest, StrayCommaIsASyntaxErrorNotAHang) {
  expect_error(", unchanged.\napiVersion: v1\n", 1, "cannot start");
  expect_error("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n---\n,\n", 6,
               "cannot start");
  expect_error("!t ,\n", 1, "cannot start");
}

TEST(K8sManifest, MissingFile) {
  ResourceNames names;
  try {
    read_manifest_file("/nonexistent/kubesim.yaml", names);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/kubesim.yaml");
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

}  // namespace
}  // namespace kubesim
