#include "api/json_codec.hpp"

#include <gtest/gtest.h>

#include "testing/builders.hpp"

#include "core/error.hpp"

namespace kubesim::api {
namespace {

using nlohmann::json;

TEST(ApiTimeFormatTest, FormatsRfc3339AndMicroTime) {
  TimeFormat tf;  // 2026-01-01T00:00:00Z
  EXPECT_EQ(tf.time(SimTime::zero()), "2026-01-01T00:00:00Z");
  EXPECT_EQ(tf.time(SimTime::at(Duration::millis(5'700))), "2026-01-01T00:00:05Z");  // truncated
  EXPECT_EQ(tf.micro_time(SimTime::at(Duration::micros(5'000'042))), "2026-01-01T00:00:05.000042Z");
  EXPECT_EQ(tf.time(SimTime::at(Duration::seconds(86'400 * 59 + 3'661))), "2026-03-01T01:01:01Z");
  TimeFormat epoch{0};
  EXPECT_EQ(epoch.time(SimTime::zero()), "1970-01-01T00:00:00Z");
  EXPECT_EQ(epoch.time(SimTime::at(Duration::seconds(951'782'400))), "2000-02-29T00:00:00Z");
}

TEST(ApiTimeFormatTest, ParsesRfc3339) {
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T00:00:00Z"), 1'767'225'600'000'000);
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T00:00:05.5Z"), 1'767'225'605'500'000);
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T00:00:05.123456789Z"), 1'767'225'605'123'456);
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T02:00:00+02:00"), 1'767'225'600'000'000);
  EXPECT_EQ(parse_rfc3339_micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_FALSE(parse_rfc3339_micros("2026-01-01 00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339_micros("2026-01-01T00:00:00"));
  EXPECT_FALSE(parse_rfc3339_micros("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339_micros("2026-01-01T00:00:00Zjunk"));
  TimeFormat tf;
  EXPECT_EQ(tf.from_unix_micros(*parse_rfc3339_micros(tf.micro_time(SimTime::at(Duration::micros(1234567))))),
            SimTime::at(Duration::micros(1234567)));
}

TEST(ApiUidTest, DeterministicAndDistinct) {
  EXPECT_EQ(object_uid("Pod", 3), object_uid("Pod", 3));
  EXPECT_NE(object_uid("Pod", 3), object_uid("Pod", 4));
  EXPECT_NE(object_uid("Pod", 3), object_uid("Node", 3));
  const std::string uid = object_uid("Pod", 255);
  ASSERT_EQ(uid.size(), 36u);
  EXPECT_EQ(uid.substr(8, 20), "-0000-4000-8000-0000");
  EXPECT_EQ(uid.substr(28), "000000ff");
  EXPECT_EQ(node_ip(NodeId(0)), "10.0.0.1");
  EXPECT_EQ(node_ip(NodeId(256)), "10.0.1.1");
}

// A store with one node, a namespace and pods from one template.
struct Fixture {
  ObjectStore store;
  NodeId node;
  NamespaceId ns;
  PodTemplateId tmpl;

  explicit Fixture(bool guaranteed = true) {
    ns = store.ensure_namespace("default");
    node = store.create_node(testing::NodeBuilder("node-0").cpu("4").memory("8Gi").hostname_label());
    testing::PodTemplateBuilder t;
    t.cpu("500m").memory("1Gi").label("app", "x").priority_class("high").priority(1000);
    if (!guaranteed) t.no_limits();
    tmpl = store.add_template(t);
  }
  PodId pod(const std::string& name) {
    Pod p;
    p.name = name;
    p.ns = ns;
    p.spec = tmpl;
    p.run_time = Duration::seconds(30);
    p.created = SimTime::at(Duration::seconds(1));
    return store.create_pod(p);
  }
};

TEST(ApiPodJsonTest, PendingUnschedulable) {
  Fixture f;
  TimeFormat tf;
  PodId id = f.pod("p1");
  f.store.update_pod(id, [](Pod& p) { p.unschedulable_message = "0/1 nodes are available: 1 Insufficient cpu."; });
  json j = pod_to_json(f.store, id, tf, nullptr);
  EXPECT_EQ(j["apiVersion"], "v1");
  EXPECT_EQ(j["kind"], "Pod");
  EXPECT_EQ(j["metadata"]["name"], "p1");
  EXPECT_EQ(j["metadata"]["namespace"], "default");
  EXPECT_EQ(j["metadata"]["uid"], object_uid("Pod", 0));
  EXPECT_EQ(j["metadata"]["resourceVersion"], std::to_string(f.store.pod(id).resource_version));
  EXPECT_EQ(j["metadata"]["creationTimestamp"], "2026-01-01T00:00:01Z");
  EXPECT_EQ(j["metadata"]["labels"], json({{"app", "x"}}));
  const json& spec = j["spec"];
  EXPECT_EQ(spec["containers"][0]["name"], "main");
  EXPECT_EQ(spec["containers"][0]["resources"]["requests"], json({{"cpu", "500m"}, {"memory", "1Gi"}}));
  EXPECT_EQ(spec["containers"][0]["command"], json({"sleep", "30"}));
  EXPECT_EQ(spec["schedulerName"], "default-scheduler");
  EXPECT_EQ(spec["priority"], 1000);
  EXPECT_EQ(spec["priorityClassName"], "high");
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_FALSE(spec.contains("nodeName"));
  const json& st = j["status"];
  EXPECT_EQ(st["phase"], "Pending");
  EXPECT_EQ(st["qosClass"], "Guaranteed");
  ASSERT_EQ(st["conditions"].size(), 1u);
  EXPECT_EQ(st["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(st["conditions"][0]["status"], "False");
  EXPECT_EQ(st["conditions"][0]["reason"], "Unschedulable");
  EXPECT_EQ(st["conditions"][0]["message"], "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_FALSE(st.contains("containerStatuses"));
  EXPECT_FALSE(st.contains("hostIP"));
}

TEST(ApiPodJsonTest, LifecycleContainerStates) {
  Fixture f(false);
  TimeFormat tf;
  PodId id = f.pod("p1");
  f.store.update_pod(id, [&](Pod& p) {
    p.node = f.node;
    p.scheduled = SimTime::at(Duration::seconds(2));
  });
  json j = pod_to_json(f.store, id, tf);
  EXPECT_EQ(j["spec"]["nodeName"], "node-0");
  EXPECT_EQ(j["status"]["hostIP"], "10.0.0.1");
  EXPECT_EQ(j["status"]["qosClass"], "Burstable");
  EXPECT_EQ(j["status"]["containerStatuses"][0]["state"], json::parse(R"({"waiting":{"reason":"ContainerCreating"}})"));
  EXPECT_EQ(j["status"]["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(j["status"]["conditions"][0]["status"], "True");
  EXPECT_EQ(j["status"]["conditions"][0]["lastTransitionTime"], "2026-01-01T00:00:02Z");

  f.store.update_pod(id, [&](Pod& p) {
    p.start_time = SimTime::at(Duration::seconds(3));
    p.started = SimTime::at(Duration::seconds(4));
    p.finished = SimTime::at(Duration::seconds(34));  // known in advance: not shown yet
    p.phase = PodPhase::kRunning;
  });
  j = pod_to_json(f.store, id, tf);
  const json& cs = j["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["state"], json::parse(R"({"running":{"startedAt":"2026-01-01T00:00:04Z"}})"));
  EXPECT_EQ(cs["ready"], true);
  EXPECT_EQ(cs["restartCount"], 0);
  EXPECT_EQ(cs["name"], "main");
  EXPECT_TRUE(cs["image"].is_string());
  EXPECT_TRUE(cs["imageID"].is_string());
  EXPECT_EQ(j["status"]["startTime"], "2026-01-01T00:00:03Z");
  EXPECT_EQ(j["status"]["podIP"], "10.64.0.1");
  std::vector<std::string> types;
  for (const auto& c : j["status"]["conditions"]) types.push_back(c["type"].get<std::string>() + "=" + c["status"].get<std::string>());
  EXPECT_EQ(types, (std::vector<std::string>{"Initialized=True", "Ready=True", "ContainersReady=True", "PodScheduled=True"}));

  f.store.update_pod(id, [&](Pod& p) {
    p.phase = PodPhase::kFailed;
    p.exit_code = 3;
  });
  j = pod_to_json(f.store, id, tf);
  EXPECT_EQ(j["status"]["containerStatuses"][0]["state"],
            json::parse(R"({"terminated":{"exitCode":3,"reason":"Error","startedAt":"2026-01-01T00:00:04Z",
                                          "finishedAt":"2026-01-01T00:00:34Z"}})"));
  EXPECT_EQ(j["status"]["conditions"][1]["reason"], "PodCompleted");
}

TEST(ApiPodJsonTest, KubeletRejectedHasNoContainerStatuses) {
  Fixture f;
  TimeFormat tf;
  PodId id = f.pod("p1");
  f.store.update_pod(id, [&](Pod& p) {
    p.node = f.node;
    p.start_time = SimTime::at(Duration::seconds(2));
    p.phase = PodPhase::kFailed;
    p.reason = "OutOfcpu";
    p.message = "Pod was rejected: Node didn't have enough resource: cpu";
  });
  json j = pod_to_json(f.store, id, tf);
  EXPECT_EQ(j["status"]["phase"], "Failed");
  EXPECT_EQ(j["status"]["reason"], "OutOfcpu");
  EXPECT_FALSE(j["status"].contains("containerStatuses"));
}

TEST(ApiPodJsonTest, PreemptedVictimAndOriginalOverlay) {
  Fixture f;
  TimeFormat tf;
  PodId id = f.pod("victim");
  f.store.update_pod(id, [&](Pod& p) { p.node = f.node; });
  f.store.delete_pod(id, SimTime::at(Duration::seconds(10)), Duration::seconds(30),
                     DisruptionReason::kPreemptionByScheduler);
  json original = json::parse(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"victim","namespace":"default","annotations":{"a":"b"},"creationTimestamp":null},
      "spec":{"containers":[{"name":"main","image":"busybox"}]}})");
  json j = pod_to_json(f.store, id, tf, &original);
  EXPECT_EQ(j["metadata"]["annotations"], json({{"a", "b"}}));
  EXPECT_EQ(j["metadata"]["creationTimestamp"], "2026-01-01T00:00:01Z");
  EXPECT_EQ(j["metadata"]["deletionTimestamp"], "2026-01-01T00:00:40Z");
  EXPECT_EQ(j["metadata"]["deletionGracePeriodSeconds"], 30);
  EXPECT_EQ(j["spec"]["containers"][0]["image"], "busybox");
  EXPECT_EQ(j["spec"]["nodeName"], "node-0");
  EXPECT_EQ(j["spec"]["priority"], 1000);
  EXPECT_EQ(j["spec"]["restartPolicy"], "Always");  // defaulted, as the apiserver does
  const json& dt = j["status"]["conditions"].back();
  EXPECT_EQ(dt["type"], "DisruptionTarget");
  EXPECT_EQ(dt["reason"], "PreemptionByKubeScheduler");
  EXPECT_EQ(dt["message"], "default-scheduler: preempting to accommodate a higher priority pod");
}

TEST(ApiPodJsonTest, JobPodsAndJobJson) {
  Fixture f;
  TimeFormat tf;
  Job job;
  job.name = "j1";
  job.ns = f.ns;
  job.spec = f.tmpl;
  job.completions = 2;
  job.parallelism = 2;
  JobId jid = f.store.create_job(job);
  Pod p;
  p.name = "j1-abcde";
  p.ns = f.ns;
  p.spec = f.tmpl;
  p.job = jid;
  PodId pid = f.store.create_pod(p);
  json pj = pod_to_json(f.store, pid, tf);
  EXPECT_EQ(pj["metadata"]["labels"]["controller-uid"], object_uid("Job", 0));
  EXPECT_EQ(pj["metadata"]["labels"]["job-name"], "j1");
  EXPECT_EQ(pj["metadata"]["ownerReferences"][0],
            json({{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"name", "j1"}, {"uid", object_uid("Job", 0)},
                  {"controller", true}, {"blockOwnerDeletion", true}}));

  f.store.update_job(jid, [](Job& j) {
    j.succeeded = 2;
    j.start_time = SimTime::at(Duration::seconds(1));
    j.completion_time = SimTime::at(Duration::seconds(9));
    j.condition = JobCondition::kComplete;
    j.condition_time = SimTime::at(Duration::seconds(9));
  });
  json j = job_to_json(f.store, jid, tf);
  EXPECT_EQ(j["apiVersion"], "batch/v1");
  EXPECT_EQ(j["spec"]["completions"], 2);
  EXPECT_EQ(j["spec"]["parallelism"], 2);
  EXPECT_EQ(j["spec"]["backoffLimit"], 6);
  EXPECT_EQ(j["spec"]["completionMode"], "NonIndexed");
  EXPECT_EQ(j["spec"]["suspend"], false);
  EXPECT_EQ(j["spec"]["selector"]["matchLabels"]["controller-uid"], object_uid("Job", 0));
  EXPECT_EQ(j["spec"]["template"]["metadata"]["labels"]["job-name"], "j1");
  EXPECT_EQ(j["spec"]["template"]["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(j["status"]["succeeded"], 2);
  EXPECT_EQ(j["status"]["completionTime"], "2026-01-01T00:00:09Z");
  EXPECT_EQ(j["status"]["conditions"][0]["type"], "Complete");
  EXPECT_EQ(j["status"]["conditions"][0]["status"], "True");
}

TEST(ApiNodeJsonTest, NodeFields) {
  Fixture f;
  TimeFormat tf;
  f.store.update_node(f.node, [](Node& n) {
    n.unschedulable = true;
    n.taints.push_back({"dedicated", "gpu", TaintEffect::kNoSchedule});
  });
  json j = node_to_json(f.store, f.node, tf);
  EXPECT_EQ(j["metadata"]["name"], "node-0");
  EXPECT_FALSE(j["metadata"].contains("namespace"));
  EXPECT_EQ(j["spec"]["unschedulable"], true);
  EXPECT_EQ(j["spec"]["taints"], json::parse(R"([{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])"));
  EXPECT_EQ(j["status"]["capacity"], json({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}));
  EXPECT_EQ(j["status"]["conditions"][3]["type"], "Ready");
  EXPECT_EQ(j["status"]["conditions"][3]["status"], "True");
  EXPECT_EQ(j["status"]["conditions"][3]["reason"], "KubeletReady");
  EXPECT_EQ(j["status"]["nodeInfo"].size(), 10u);
  EXPECT_EQ(j["status"]["addresses"][0]["address"], "10.0.0.1");
  f.store.update_node(f.node, [](Node& n) { n.ready = false; });
  j = node_to_json(f.store, f.node, tf);
  EXPECT_EQ(j["status"]["conditions"][3]["status"], "Unknown");
  EXPECT_EQ(j["status"]["conditions"][3]["reason"], "NodeStatusUnknown");
}

TEST(ApiQuotaJsonTest, QuotaAndPdbAndPriorityClass) {
  Fixture f;
  TimeFormat tf;
  ResourceQuota q;
  q.name = "q";
  q.ns = f.ns;
  q.items = {{"limits.cpu", QuotaItem::Kind::kLimits, kCpu, 8000, 1500},
             {"pods", QuotaItem::Kind::kPods, 0, 10, 2}};
  QuotaId qid = f.store.create_quota(q);
  json j = quota_to_json(f.store, qid, tf);
  EXPECT_EQ(j["spec"]["hard"], json({{"limits.cpu", "8"}, {"pods", "10"}}));
  EXPECT_EQ(j["status"]["used"], json({{"limits.cpu", "1500m"}, {"pods", "2"}}));

  PodDisruptionBudget pdb;
  pdb.name = "b";
  pdb.ns = f.ns;
  pdb.selector.match_labels = {{"app", "x"}};
  pdb.min_available = IntOrPercent{50, true};
  json b = pdb_to_json(f.store, pdb, 0, 7, PdbStatus{4, 3}, tf);
  EXPECT_EQ(b["spec"]["minAvailable"], "50%");
  EXPECT_EQ(b["status"]["expectedPods"], 4);
  EXPECT_EQ(b["status"]["currentHealthy"], 3);
  EXPECT_EQ(b["status"]["desiredHealthy"], 2);
  EXPECT_EQ(b["status"]["disruptionsAllowed"], 1);
  EXPECT_EQ(b["metadata"]["resourceVersion"], "7");

  PriorityClass pc{"high", 1000, false, PreemptionPolicy::kNever};
  json c = priority_class_to_json(pc, 0, 3, tf);
  EXPECT_EQ(c["value"], 1000);
  EXPECT_EQ(c["preemptionPolicy"], "Never");
  EXPECT_EQ(c["globalDefault"], false);

  json n = namespace_to_json(f.store, f.ns, tf);
  EXPECT_EQ(n["status"]["phase"], "Active");
  EXPECT_EQ(n["metadata"]["labels"]["kubernetes.io/metadata.name"], "default");
}

// What the python client sends for V1Pod(...) with defaults serialised by a real client.
TEST(ApiParseTest, PodAsClientsSendIt) {
  ResourceNames names;
  json body = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "team", "labels": {"app": "x"}, "annotations": null,
                 "creationTimestamp": null, "generateName": "p-", "resourceVersion": "", "finalizers": []},
    "spec": {"containers": [{"name": "c", "image": "busybox", "imagePullPolicy": "IfNotPresent",
                             "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                             "resources": {"requests": {"cpu": "250m"}}}],
             "dnsPolicy": "ClusterFirst", "securityContext": {}, "serviceAccountName": "default",
             "enableServiceLinks": true, "schedulerName": "my-scheduler", "priority": 0,
             "preemptionPolicy": "PreemptLowerPriority"},
    "status": {"phase": "Pending"}})");
  ParsedJob p = parse_pod_or_job(body, "Pod", "team", names);
  EXPECT_EQ(p.ns, "team");
  EXPECT_EQ(p.job.kind, "Pod");
  EXPECT_EQ(p.job.job.name, "p");
  EXPECT_EQ(p.job.job.run_time, Duration::max());  // no sleep, restartPolicy Always: runs until deleted
  EXPECT_EQ(p.job.spec.scheduler_name, "my-scheduler");
  EXPECT_EQ(p.job.spec.requests[kCpu], 250);
  EXPECT_EQ(p.job.spec.labels, (Labels{{"app", "x"}}));
}

// metadata.annotations reach the template (a gang's task groups, for YuniKorn) and come back
// on GET for pods kubesim creates itself (no client JSON kept).
TEST(ApiParseTest, PodAnnotationsRoundTrip) {
  ResourceNames names;
  json body = json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","annotations":{"yunikorn.apache.org/task-group-name":"workers","kubesim.io/duration":"30"}},
    "spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}})");
  ParsedJob p = parse_pod_or_job(body, "Pod", "default", names);
  EXPECT_EQ(p.job.spec.annotations,
            (Labels{{"kubesim.io/duration", "30"}, {"yunikorn.apache.org/task-group-name", "workers"}}));
  Fixture f;
  PodTemplate t = f.store.spec(f.tmpl);
  t.annotations = p.job.spec.annotations;
  Pod pod;
  pod.name = "q";
  pod.ns = f.ns;
  pod.spec = f.store.add_template(t);
  const PodId id = f.store.create_pod(pod);
  TimeFormat tf;
  const json j = pod_to_json(f.store, id, tf, nullptr);
  EXPECT_EQ(j["metadata"]["annotations"],
            json({{"kubesim.io/duration", "30"}, {"yunikorn.apache.org/task-group-name", "workers"}}));
  EXPECT_FALSE(pod_to_json(f.store, f.pod("r"), tf, nullptr)["metadata"].contains("annotations"));
}

TEST(ApiParseTest, PodWithSleepAndErrors) {
  ResourceNames names;
  json body = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
    "spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["sleep","12"]}]}})");
  ParsedJob p = parse_pod_or_job(body, "Pod", "default", names);
  EXPECT_EQ(p.job.job.run_time, Duration::seconds(12));
  EXPECT_EQ(p.ns, "default");

  body["spec"]["containers"] = json::array();
  try {
    parse_pod_or_job(body, "Pod", "default", names);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "expected spec.containers to be a non-empty list");
    EXPECT_EQ(e.line(), 0);
  }
  body["metadata"]["namespace"] = "other";
  EXPECT_THROW(parse_pod_or_job(body, "Pod", "default", names), InputError);
  EXPECT_THROW(parse_pod_or_job(body, "Job", "default", names), InputError);
}

TEST(ApiParseTest, JobQuotaPriorityClassPdbNamespace) {
  ResourceNames names;
  json job = json::parse(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
    "spec":{"completions":3,"parallelism":2,"template":{"metadata":{"creationTimestamp":null},
      "spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i","command":["sleep","5"]}]}}}})");
  ParsedJob j = parse_pod_or_job(job, "Job", "default", names);
  EXPECT_TRUE(j.job.job.as_job);
  EXPECT_EQ(j.job.job.completions, 3);
  EXPECT_EQ(j.job.job.parallelism, 2);
  EXPECT_EQ(j.job.job.run_time, Duration::seconds(5));

  ParsedQuota q = parse_quota(json::parse(R"({"apiVersion":"v1","kind":"ResourceQuota",
    "metadata":{"name":"q","namespace":"t"},"spec":{"hard":{"requests.cpu":"2","pods":10}}})"), "t", names);
  EXPECT_EQ(q.ns, "t");
  ASSERT_EQ(q.quota.items.size(), 2u);
  EXPECT_EQ(q.quota.items[0].name, "pods");
  EXPECT_EQ(q.quota.items[1].hard, 2000);

  PriorityClass pc = parse_priority_class(json::parse(
      R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"hi"},"value":100})"));
  EXPECT_EQ(pc.name, "hi");
  EXPECT_EQ(pc.value, 100);

  ParsedPdb b = parse_pdb(json::parse(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
    "metadata":{"name":"b"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"x"}}}})"), "default");
  EXPECT_EQ(b.pdb.min_available->value, 1);
  EXPECT_EQ(parse_namespace(json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n1"}})")), "n1");
}

TEST(ApiParseTest, Node) {
  ResourceNames names;
  Node n = parse_node(json::parse(R"({"apiVersion":"v1","kind":"Node",
    "metadata":{"name":"n1","labels":{"zone":"a"}},
    "spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoExecute"}]},
    "status":{"capacity":{"cpu":"8","memory":"16Gi","pods":"50","nvidia.com/gpu":"2"},
              "conditions":[{"type":"Ready","status":"False"}]}})"), names);
  EXPECT_EQ(n.name, "n1");
  EXPECT_EQ(n.labels, (Labels{{"zone", "a"}}));
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(n.capacity[kCpu], 8000);
  EXPECT_EQ(n.allocatable[kMemory], 16LL << 30);
  EXPECT_EQ(n.allocatable[static_cast<std::size_t>(names.find("nvidia.com/gpu"))], 2);
  EXPECT_EQ(n.allowed_pods, 50);
  EXPECT_FALSE(n.ready);
  EXPECT_THROW(parse_node(json::parse(R"({"kind":"Node","metadata":{}})"), names), InputError);
}

}  // namespace
}  // namespace kubesim::api
