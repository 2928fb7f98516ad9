// The API server without HTTP: requests in, Status codes and objects out, watches polled.
#include "api/api_server.hpp"

#include <gtest/gtest.h>

#include <string>

#include "model/object_store.hpp"
#include "testing/inputs.hpp"
#include "testing/param_name.hpp"

namespace kubesim::api {
namespace {

using Json = nlohmann::json;

// Two 4-cpu, 16Gi nodes labelled with their hostname, kube-scheduler's default profile.
SimulationInputs two_nodes() {
  std::vector<Node> nodes;
  for (const char* name : {"node-0", "node-1"})
    nodes.push_back(testing::NodeBuilder(name).cpu("4").memory("16Gi").hostname_label());
  return testing::make_inputs(std::move(nodes), {}, {});
}

Json pod_body(const std::string& name, const std::string& scheduler, int cpu, int seconds) {
  return Json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"labels", {{"app", "demo"}}}}},
              {"spec",
               {{"schedulerName", scheduler},
                {"restartPolicy", "Never"},
                {"containers",
                 {{{"name", "c"},
                   {"image", "busybox:1.36"},
                   {"command", {"sleep", std::to_string(seconds)}},
                   {"resources", {{"requests", {{"cpu", std::to_string(cpu)}}}, {"limits", {{"cpu", std::to_string(cpu)}}}}}}}}}}};
}

class ApiServerTest : public ::testing::Test {
 protected:
  explicit ApiServerTest(std::size_t log_capacity = 1000) : sim_(two_nodes(), testing::ideal_options()) {
    ApiOptions o;
    o.watch_log_capacity = log_capacity;
    api_ = std::make_unique<ApiServer>(sim_, o);
  }
  ApiResponse call(const std::string& method, const std::string& path, const Json& body = nullptr,
                   std::vector<std::pair<std::string, std::string>> query = {},
                   const std::string& content_type = "application/json") {
    ApiRequest r;
    r.method = method;
    r.path = path;
    r.query = std::move(query);
    r.content_type = content_type;
    if (!body.is_null()) r.body = body.dump();
    std::shared_ptr<Watch> watch;
    ApiResponse out = api_->handle(r, &watch);
    if (watch) watch_ = watch;
    return out;
  }
  static Json json(const ApiResponse& r) { return Json::parse(r.body); }
  // The events a watch has now, as (type, name) pairs.
  std::vector<std::pair<std::string, std::string>> events() {
    std::string out;
    api_->poll_watch(*watch_, out, std::chrono::milliseconds(0));
    std::vector<std::pair<std::string, std::string>> seen;
    std::size_t start = 0;
    for (std::size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
      const Json e = Json::parse(out.substr(start, nl - start));
      seen.emplace_back(e["type"], e["object"]["metadata"].value("name", ""));
    }
    return seen;
  }
  void advance(double seconds) {
    api_->locked([&] { sim_.advance_to(sim_.now() + Duration::from_seconds(seconds)); });
  }

  Simulation sim_;
  std::unique_ptr<ApiServer> api_;
  std::shared_ptr<Watch> watch_;
};

TEST_F(ApiServerTest, DiscoveryListsTheSchedulersResources) {
  const Json core = json(call("GET", "/api/v1"));
  std::vector<std::string> names;
  for (const auto& r : core["resources"]) names.push_back(r["name"]);
  for (const char* n : {"pods", "pods/binding", "pods/status", "nodes", "namespaces", "events", "persistentvolumes",
                        "persistentvolumeclaims", "services", "replicationcontrollers"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const char* gv : {"/apis/apps/v1", "/apis/policy/v1", "/apis/storage.k8s.io/v1", "/apis/batch/v1",
                         "/apis/events.k8s.io/v1", "/apis/coordination.k8s.io/v1", "/apis/scheduling.k8s.io/v1"})
    EXPECT_EQ(call("GET", gv).status, 200) << gv;
  EXPECT_EQ(json(call("GET", "/version"))["minor"], "26");
  // kube-scheduler waits for every informer's list: empty lists, never 404.
  EXPECT_EQ(json(call("GET", "/apis/storage.k8s.io/v1/csistoragecapacities"))["items"].size(), 0u);
}

TEST_F(ApiServerTest, CreateGetAndErrorsAreStatusObjects) {
  const ApiResponse created = call("POST", "/api/v1/namespaces/default/pods", pod_body("a", "ext", 1, 10));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json(created)["spec"]["containers"][0]["image"], "busybox:1.36");  // kept from the client's object
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods/a"))["status"]["phase"], "Pending");

  const Json dup = json(call("POST", "/api/v1/namespaces/default/pods", pod_body("a", "ext", 1, 10)));
  EXPECT_EQ(dup["code"], 409);
  EXPECT_EQ(dup["reason"], "AlreadyExists");
  EXPECT_EQ(dup["message"], "pods \"a\" already exists");
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods/zz"))["reason"], "NotFound");
  EXPECT_EQ(call("GET", "/api/v1/widgets").status, 404);
  EXPECT_EQ(call("POST", "/api/v1/namespaces/nope/pods", pod_body("b", "ext", 1, 10)).status, 404);
  ApiRequest bad;
  bad.method = "POST";
  bad.path = "/api/v1/namespaces/default/pods";
  bad.body = "{not json";
  std::shared_ptr<Watch> w;
  EXPECT_EQ(api_->handle(bad, &w).status, 400);
  Json invalid = pod_body("c", "ext", 1, 10);
  invalid["spec"]["containers"] = Json::array();
  const Json r422 = json(call("POST", "/api/v1/namespaces/default/pods", invalid));
  EXPECT_EQ(r422["code"], 422);
  EXPECT_EQ(r422["reason"], "Invalid");
  // A stale resourceVersion on update is a conflict.
  Json stale = json(call("GET", "/api/v1/namespaces/default/pods/a"));
  stale["metadata"]["resourceVersion"] = "1";
  EXPECT_EQ(json(call("PUT", "/api/v1/namespaces/default/pods/a", stale))["reason"], "Conflict");
}

TEST_F(ApiServerTest, ListFiltersAndPaginates) {
  for (const char* n : {"p1", "p2", "p3"}) call("POST", "/api/v1/namespaces/default/pods", pod_body(n, "ext", 1, 10));
  call("POST", "/api/v1/namespaces/default/pods", pod_body("q", "default-scheduler", 1, 10));
  auto names = [](const Json& list) {
    std::vector<std::string> out;
    for (const auto& i : list["items"]) out.push_back(i["metadata"]["name"]);
    return out;
  };
  EXPECT_EQ(names(json(call("GET", "/api/v1/pods", nullptr, {{"fieldSelector", "spec.schedulerName=ext"}}))),
            (std::vector<std::string>{"p1", "p2", "p3"}));
  EXPECT_EQ(names(json(call("GET", "/api/v1/pods", nullptr, {{"labelSelector", "app in (demo),app!=x"}}))).size(), 4u);
  EXPECT_EQ(json(call("GET", "/api/v1/pods", nullptr, {{"fieldSelector", "spec.color=red"}}))["message"],
            "field label not supported: spec.color");
  const Json page1 = json(call("GET", "/api/v1/namespaces/default/pods", nullptr, {{"limit", "2"}}));
  EXPECT_EQ(names(page1), (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(page1["metadata"]["remainingItemCount"], 2);
  const Json page2 = json(call("GET", "/api/v1/namespaces/default/pods", nullptr,
                               {{"limit", "2"}, {"continue", page1["metadata"]["continue"]}}));
  EXPECT_EQ(names(page2), (std::vector<std::string>{"p3", "q"}));
  EXPECT_FALSE(page2["metadata"].contains("continue"));
  // resourceVersion=0 is served from the watch cache, which ignores limit.
  EXPECT_EQ(names(json(call("GET", "/api/v1/pods", nullptr, {{"limit", "2"}, {"resourceVersion", "0"}}))).size(), 4u);
}

TEST_F(ApiServerTest, ExternalSchedulerBindsAndWatchersSeeTheLifecycle) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("a", "ext", 1, 10)).status, 201);
  EXPECT_EQ(api_->undecided_external_pods(), 1u);
  const std::string rv = json(call("GET", "/api/v1/pods"))["metadata"]["resourceVersion"];
  // The scheduler's informer: unfinished pods only.
  call("GET", "/api/v1/pods", nullptr,
       {{"watch", "true"}, {"resourceVersion", rv}, {"fieldSelector", "status.phase!=Succeeded,status.phase!=Failed"}});
  ASSERT_TRUE(watch_);
  // The scheduler gives up once (PodScheduled=False), then binds.
  const Json unschedulable = {{"status", {{"conditions", {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", "0/2 nodes are available"}}}}}}};
  EXPECT_EQ(call("PATCH", "/api/v1/namespaces/default/pods/a/status", unschedulable, {}, "application/strategic-merge-patch+json").status, 200);
  EXPECT_EQ(api_->undecided_external_pods(), 0u);
  EXPECT_EQ(api_->given_up_external_pods(), 1u);
  // A preemption nominates a node (status.nominatedNodeName); a patch deleting the field
  // (null, as updatePod sends for NominatingInfo "") clears it, and other patches keep it.
  const std::string status_path = "/api/v1/namespaces/default/pods/a/status";
  const char* smp = "application/strategic-merge-patch+json";
  ASSERT_EQ(call("PATCH", status_path, {{"status", {{"nominatedNodeName", "node-1"}}}}, {}, smp).status, 200);
  ASSERT_EQ(call("PATCH", status_path, unschedulable, {}, smp).status, 200);
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods/a"))["status"]["nominatedNodeName"], "node-1");
  ASSERT_EQ(call("PATCH", status_path, {{"status", {{"nominatedNodeName", nullptr}}}}, {}, smp).status, 200);
  EXPECT_FALSE(json(call("GET", "/api/v1/namespaces/default/pods/a"))["status"].contains("nominatedNodeName"));
  const Json binding = {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "a"}}}, {"target", {{"kind", "Node"}, {"name", "node-1"}}}};
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/a/binding", binding).status, 201);
  EXPECT_EQ(api_->given_up_external_pods(), 0u);
  const Json again = json(call("POST", "/api/v1/namespaces/default/pods/a/binding", binding));
  EXPECT_EQ(again["code"], 409);
  EXPECT_EQ(json(call("POST", "/api/v1/namespaces/default/pods/a/binding", {{"target", {{"name", "node-9"}}}}))["code"], 409);
  advance(60);
  const auto seen = events();
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen.front(), (std::pair<std::string, std::string>{"MODIFIED", "a"}));
  // Succeeded: the field-selected watcher is told DELETED, not MODIFIED (as the apiserver does).
  EXPECT_EQ(seen.back(), (std::pair<std::string, std::string>{"DELETED", "a"}));
  const Json pod = json(call("GET", "/api/v1/namespaces/default/pods/a"));
  EXPECT_EQ(pod["spec"]["nodeName"], "node-1");
  EXPECT_EQ(pod["status"]["phase"], "Succeeded");
  EXPECT_EQ(pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 0);
}

TEST_F(ApiServerTest, BindingToAMissingNodeIsAcceptedAndThePodGarbageCollectorDeletesIt) {
  // kube-apiserver accepts the binding (assignPod does not look the node up); no kubelet
  // runs the pod; PodGC's pass at the first multiple of 20 s after the binding quarantines
  // the node for 40 s, and the pass after that marks the pod Failed and deletes it.
  advance(5);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("lost", "ext", 1, 10)).status, 201);
  ASSERT_EQ(call("GET", "/api/v1/namespaces/default/pods", nullptr, {{"watch", "true"}, {"resourceVersion", "0"}}).status, 200);
  ASSERT_EQ(events().size(), 1u);  // ADDED lost
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/lost/binding", {{"target", {{"name", "node-9"}}}}).status, 201);
  const Json bound = json(call("GET", "/api/v1/namespaces/default/pods/lost"));
  EXPECT_EQ(bound["spec"]["nodeName"], "node-9");
  EXPECT_EQ(bound["status"]["phase"], "Pending");
  EXPECT_EQ(api_->undecided_external_pods(), 0u);  // decided: cosim does not wait for it
  const Json again = json(call("POST", "/api/v1/namespaces/default/pods/lost/binding", {{"target", {{"name", "node-0"}}}}));
  EXPECT_EQ(again["code"], 409);
  EXPECT_EQ(again["message"], "Operation cannot be fulfilled on pods/binding \"lost\": pod lost is already assigned to node \"node-9\"");
  advance(54.9);  // 59.9 s
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/lost").status, 200);
  advance(0.2);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/lost").status, 404);
  std::string out;
  api_->poll_watch(*watch_, out, std::chrono::milliseconds(0));
  Json deleted;
  for (std::size_t start = 0, nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) deleted = Json::parse(out.substr(start, nl - start));
  ASSERT_EQ(deleted["type"], "DELETED");
  EXPECT_EQ(deleted["object"]["status"]["phase"], "Failed");
  bool disruption = false;
  for (const Json& c : deleted["object"]["status"]["conditions"])
    disruption = disruption || (c["type"] == "DisruptionTarget" && c["reason"] == "DeletionByPodGC" &&
                                c["message"] == "PodGC: node no longer exists");
  EXPECT_TRUE(disruption) << deleted.dump();
}

TEST_F(ApiServerTest, ANodeCreatedLaterAdoptsPodsBoundToItsName) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("early", "ext", 1, 10)).status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods/early/binding", {{"target", {{"name", "node-new"}}}}).status, 201);
  const Json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "node-new"}}},
                     {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}}},
                                 {"capacity", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}}}}}};
  ASSERT_EQ(call("POST", "/api/v1/nodes", node).status, 201) ;
  advance(30);
  const Json pod = json(call("GET", "/api/v1/namespaces/default/pods/early"));
  EXPECT_EQ(pod["spec"]["nodeName"], "node-new");
  EXPECT_EQ(pod["status"]["phase"], "Succeeded");
}

TEST_F(ApiServerTest, ConflictingBindingsAreRefusedByTheKubelet) {
  // Two schedulers that do not see each other's decisions in time: the kubelet admits the
  // first pod and rejects the second (OutOfcpu), as in a real cluster.
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("first", "ext", 3, 30)).status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("second", "other", 3, 30)).status, 201);
  for (const char* name : {"first", "second"}) {
    const Json binding = {{"target", {{"kind", "Node"}, {"name", "node-0"}}}};
    ASSERT_EQ(call("POST", std::string("/api/v1/namespaces/default/pods/") + name + "/binding", binding).status, 201);
  }
  advance(5);
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods/first"))["status"]["phase"], "Running");
  const Json second = json(call("GET", "/api/v1/namespaces/default/pods/second"));
  EXPECT_EQ(second["status"]["phase"], "Failed");
  EXPECT_EQ(second["status"]["reason"], "OutOfcpu");
}

TEST_F(ApiServerTest, BuiltInSchedulerTakesItsOwnPods) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("q", "default-scheduler", 1, 5)).status, 201);
  EXPECT_EQ(api_->undecided_external_pods(), 0u);
  advance(1);
  EXPECT_FALSE(json(call("GET", "/api/v1/namespaces/default/pods/q"))["spec"].value("nodeName", "").empty());
}

TEST_F(ApiServerTest, JobsRunAndDeleteWithTheirPods) {
  const Json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "j"}}},
                    {"spec", {{"template", {{"spec", pod_body("x", "default-scheduler", 1, 30)["spec"]}}}}}};
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job).status, 201);
  advance(5);
  const Json pods = json(call("GET", "/api/v1/namespaces/default/pods", nullptr, {{"labelSelector", "job-name=j"}}));
  ASSERT_EQ(pods["items"].size(), 1u);
  EXPECT_EQ(pods["items"][0]["spec"]["containers"][0]["image"], "busybox:1.36");  // from the Job's template
  EXPECT_EQ(call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j", {{"propagationPolicy", "Background"}}).status, 200);
  EXPECT_EQ(call("GET", "/apis/batch/v1/namespaces/default/jobs/j").status, 404);
  advance(60);
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods"))["items"].size(), 0u);
}

// What Kueue's manager does to a Job it admits (jobframework startJob): a merge patch with
// the resourceVersion and spec.suspend false. The Job's own labels are its metadata.labels.
TEST_F(ApiServerTest, JobUnsuspendedByMergePatchAndOtherSpecChangesRefused) {
  const Json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"},
                    {"metadata", {{"name", "j"}, {"labels", {{"kueue.x-k8s.io/queue-name", "lq"}}}}},
                    {"spec", {{"suspend", true}, {"template", {{"spec", pod_body("x", "default-scheduler", 1, 30)["spec"]}}}}}};
  const ApiResponse created = call("POST", "/apis/batch/v1/namespaces/default/jobs", job);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string path = "/apis/batch/v1/namespaces/default/jobs/j";
  EXPECT_EQ(json(call("GET", path))["metadata"]["labels"], (Json{{"kueue.x-k8s.io/queue-name", "lq"}}));
  advance(5);
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods"))["items"].size(), 0u);  // suspended
  const Json immutable = {{"spec", {{"completions", 3}}}};
  const ApiResponse refused = call("PATCH", path, immutable, {}, "application/merge-patch+json");
  EXPECT_EQ(refused.status, 422) << refused.body;
  const Json patch = {{"metadata", {{"resourceVersion", json(call("GET", path))["metadata"]["resourceVersion"]}}},
                      {"spec", {{"suspend", false}}}};
  ASSERT_EQ(call("PATCH", path, patch, {}, "application/merge-patch+json").status, 200);
  EXPECT_EQ(json(call("GET", path))["spec"]["suspend"], false);
  advance(1);
  EXPECT_EQ(json(call("GET", "/api/v1/namespaces/default/pods"))["items"].size(), 1u);
  // The same resourceVersion again: the object has changed since.
  EXPECT_EQ(call("PATCH", path, patch, {}, "application/merge-patch+json").status, 409);
}

// What Kueue v0.9.5's Job.Stop does to a Job it preempts (pkg/controller/jobs/job/
// job_controller.go): suspend; clear status.startTime (a status merge patch); then, on every
// reconcile while stopped, a "restore info" patch that changes nothing. The cleared startTime
// stays cleared, and the no-op patch keeps the resourceVersion: otherwise each write woke
// Kueue's Job reconciler again, which wrote again (thousands of requests per preemption).
TEST_F(ApiServerTest, JobStopClearsStartTimeAndNoOpPatchIsNotWritten) {
  const Json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "j"}}},
                    {"spec", {{"template", {{"spec", pod_body("x", "default-scheduler", 1, 300)["spec"]}}}}}};
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job).status, 201);
  const std::string path = "/apis/batch/v1/namespaces/default/jobs/j";
  advance(5);
  ASSERT_TRUE(json(call("GET", path))["status"].contains("startTime"));
  const auto rv = [&] { return json(call("GET", path))["metadata"]["resourceVersion"]; };
  ASSERT_EQ(call("PATCH", path, {{"metadata", {{"resourceVersion", rv()}}}, {"spec", {{"suspend", true}}}}, {},
                 "application/merge-patch+json").status, 200);
  advance(5);
  const ApiResponse reset = call("PATCH", path + "/status", {{"status", {{"startTime", nullptr}}}}, {},
                                 "application/merge-patch+json");
  ASSERT_EQ(reset.status, 200) << reset.body;
  advance(5);
  EXPECT_FALSE(json(call("GET", path))["status"].contains("startTime"));  // suspended: the Job controller leaves it
  const Json stopped_rv = rv();
  const ApiResponse restore = call("PATCH", path, {{"metadata", {{"resourceVersion", stopped_rv}}}}, {},
                                   "application/merge-patch+json");
  ASSERT_EQ(restore.status, 200) << restore.body;
  EXPECT_EQ(json(restore)["metadata"]["resourceVersion"], stopped_rv);
  EXPECT_EQ(call("PATCH", path + "/status", {{"status", {{"startTime", nullptr}}}}, {}, "application/merge-patch+json").status,
            200);
  EXPECT_EQ(rv(), stopped_rv);
  const ApiResponse bad = call("PATCH", path + "/status", {{"status", {{"startTime", "yesterday"}}}}, {},
                               "application/merge-patch+json");
  EXPECT_EQ(bad.status, 422) << bad.body;
  // Resumed: the Job controller sets a new startTime.
  ASSERT_EQ(call("PATCH", path, {{"spec", {{"suspend", false}}}}, {}, "application/merge-patch+json").status, 200);
  advance(5);
  EXPECT_TRUE(json(call("GET", path))["status"].contains("startTime"));
}

TEST_F(ApiServerTest, QuotaRefusalIsForbidden) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces", {{"metadata", {{"name", "t1"}}}}).status, 201);
  const Json quota = {{"apiVersion", "v1"}, {"kind", "ResourceQuota"}, {"metadata", {{"name", "q"}}},
                      {"spec", {{"hard", {{"limits.cpu", "2"}}}}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/t1/resourcequotas", quota).status, 201);
  EXPECT_EQ(call("POST", "/api/v1/namespaces/t1/pods", pod_body("small", "ext", 2, 10)).status, 201);
  const Json refused = json(call("POST", "/api/v1/namespaces/t1/pods", pod_body("big", "ext", 1, 10)));
  EXPECT_EQ(refused["code"], 403);
  EXPECT_EQ(refused["reason"], "Forbidden");
  EXPECT_EQ(refused["message"].get<std::string>().rfind("pods \"big\" is forbidden: exceeded quota: q", 0), 0u)
      << refused["message"];
}

TEST_F(ApiServerTest, GenericResourcesAndLeases) {
  const Json lease = {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}, {"metadata", {{"name", "kube-scheduler"}}},
                      {"spec", {{"holderIdentity", "me"}}}};
  const ApiResponse created = call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease);
  ASSERT_EQ(created.status, 201);
  Json got = json(call("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/kube-scheduler"));
  got["spec"]["holderIdentity"] = "you";
  EXPECT_EQ(call("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/kube-scheduler", got).status, 200);
  EXPECT_EQ(call("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/kube-scheduler", got).status, 409);
  EXPECT_EQ(call("DELETE", "/apis/coordination.k8s.io/v1/namespaces/default/leases/kube-scheduler").status, 200);
  EXPECT_EQ(call("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/kube-scheduler").status, 404);
}

class ApiServerSmallLogTest : public ApiServerTest {
 protected:
  ApiServerSmallLogTest() : ApiServerTest(4) {}
};

TEST_F(ApiServerSmallLogTest, WatchFromAnEvictedVersionIsGone) {
  for (int i = 0; i < 6; ++i) call("POST", "/api/v1/namespaces/default/pods", pod_body("p" + std::to_string(i), "ext", 1, 10));
  const Json gone = json(call("GET", "/api/v1/pods", nullptr, {{"watch", "1"}, {"resourceVersion", "2"}}));
  EXPECT_EQ(gone["code"], 410);
  EXPECT_EQ(gone["reason"], "Expired");
  // resourceVersion 0: the current state as ADDED events.
  call("GET", "/api/v1/pods", nullptr, {{"watch", "1"}, {"resourceVersion", "0"}});
  EXPECT_EQ(events().size(), 6u);
}

// Issue 32: a watch whose unread events were evicted ends with an ERROR event holding 410
// (the cacher ends a watcher that cannot keep up) instead of reading past the log.
TEST_F(ApiServerSmallLogTest, AWatchThatFellBehindEndsWith410) {
  call("GET", "/api/v1/pods", nullptr, {{"watch", "1"}});
  EXPECT_TRUE(events().empty());
  for (int i = 0; i < 6; ++i) call("POST", "/api/v1/namespaces/default/pods", pod_body("p" + std::to_string(i), "ext", 1, 10));
  std::string out;
  EXPECT_TRUE(api_->poll_watch(*watch_, out, std::chrono::milliseconds(0)));
  const Json error = Json::parse(out);
  EXPECT_EQ(error["type"], "ERROR");
  EXPECT_EQ(error["object"]["code"], 410);
  api_->watch_written();
  out.clear();
  EXPECT_FALSE(api_->poll_watch(*watch_, out, std::chrono::milliseconds(0)));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(api_->locked([&] { return api_->watches_delivered(); }));
}

}  // namespace
}  // namespace kubesim::api

namespace kubesim::api {
namespace {

// cosim's rule 4 (clock.hpp): whether a pod its scheduler gave up on would pass the default
// filters now, against the pods bound on the two 4-cpu nodes.
struct FitCase {
  const char* name;
  int bound_cpu_node0, bound_cpu_node1;  // running pods bound first (0: none)
  int pod_cpu;
  const char* node_selector;  // kubernetes.io/hostname value, or null
  bool fits;
};

class GivenUpFitTest : public ApiServerTest, public ::testing::WithParamInterface<FitCase> {};

TEST_P(GivenUpFitTest, FollowsRequestsAndSelectors) {
  const FitCase& c = GetParam();
  int i = 0;
  for (const auto& [node, cpu] : {std::pair{"node-0", c.bound_cpu_node0}, std::pair{"node-1", c.bound_cpu_node1}}) {
    if (cpu == 0) continue;
    const std::string name = "busy-" + std::to_string(i++);
    ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body(name, "ext", cpu, 1000)).status, 201);
    ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods/" + name + "/binding", Json{{"target", {{"kind", "Node"}, {"name", node}}}}).status, 201);
  }
  Json body = pod_body("waiting", "ext", c.pod_cpu, 10);
  if (c.node_selector) body["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", c.node_selector}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", body).status, 201);
  const Json unschedulable = {{"status", {{"conditions", {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", "0/2 nodes are available"}}}}}}};
  ASSERT_EQ(call("PATCH", "/api/v1/namespaces/default/pods/waiting/status", unschedulable, {}, "application/strategic-merge-patch+json").status, 200);
  ASSERT_EQ(api_->given_up_external_pods(), 1u);
  EXPECT_EQ(api_->locked([&] { return api_->given_up_pod_fits(); }), c.fits);
  EXPECT_EQ(api_->locked([&] { return api_->pending_external_pods(); }), std::vector<std::string>{"default/waiting"});
}

INSTANTIATE_TEST_SUITE_P(Cases, GivenUpFitTest,
                         ::testing::Values(FitCase{"EmptyCluster", 0, 0, 2, nullptr, true},
                                           FitCase{"BothFull", 4, 4, 1, nullptr, false},
                                           FitCase{"RoomOnNode0", 3, 4, 1, nullptr, true},
                                           FitCase{"TooBigForTheRoom", 3, 4, 2, nullptr, false},
                                           FitCase{"SelectorOnFullNode", 3, 4, 1, "node-1", false},
                                           FitCase{"SelectorOnFreeNode", 4, 0, 4, "node-1", true}),
                         testing::NameField{});

// Issue 32: one serialization of an event for all watchers; a watch from a version the cache
// has not reached is 504 as the cacher answers; limit must be an integer; a patch may not grow
// an object beyond 3 MiB.
TEST_F(ApiServerTest, WatchersShareEventLinesAndRefuseFutureVersions) {
  call("GET", "/api/v1/pods", nullptr, {{"watch", "1"}});
  const std::shared_ptr<Watch> first = watch_;
  call("GET", "/api/v1/pods", nullptr, {{"watch", "1"}});
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("a", "ext", 1, 10)).status, 201);
  WatchLines one, two;
  api_->poll_watch(*first, one, std::chrono::milliseconds(0));
  api_->poll_watch(*watch_, two, std::chrono::milliseconds(0));
  ASSERT_EQ(one.lines.size(), 1u);
  ASSERT_EQ(two.lines.size(), 1u);
  EXPECT_EQ(one.lines[0].get(), two.lines[0].get());
  EXPECT_EQ(Json::parse(*one.lines[0])["type"], "ADDED");
  api_->watch_written();
  api_->watch_written();

  const Json future = json(call("GET", "/api/v1/pods", nullptr, {{"watch", "1"}, {"resourceVersion", "999999"}}));
  EXPECT_EQ(future["code"], 504);
  EXPECT_EQ(future["reason"], "Timeout");
  EXPECT_EQ(future["details"]["retryAfterSeconds"], 1);
  EXPECT_EQ(json(call("GET", "/api/v1/pods", nullptr, {{"limit", "abc"}}))["code"], 400);
  EXPECT_EQ(call("GET", "/api/v1/pods", nullptr, {{"limit", ""}}).status, 200);

  const Json grow = {{"metadata", {{"annotations", {{"pad", std::string(3 * 1024 * 1024, 'x')}}}}}};
  const Json too_large = json(call("PATCH", "/api/v1/namespaces/default/pods/a", grow, {}, "application/merge-patch+json"));
  EXPECT_EQ(too_large["code"], 413);
}

// ValidatePodBinding, before anything is assigned: 422 for a target that is not a named Node.
TEST_F(ApiServerTest, BindingsToNoNodeAreInvalid) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("a", "ext", 1, 10)).status, 201);
  const Json empty = json(call("POST", "/api/v1/namespaces/default/pods/a/binding", Json{{"target", Json::object()}}));
  EXPECT_EQ(empty["code"], 422);
  EXPECT_EQ(empty["message"], "Binding \"a\" is invalid: target.name: Required value");
  const Json secret = json(call("POST", "/api/v1/namespaces/default/pods/a/binding",
                                Json{{"target", {{"kind", "Secret"}, {"name", "node-0"}}}}));
  EXPECT_EQ(secret["code"], 422);
  EXPECT_EQ(secret["message"],
            "Binding \"a\" is invalid: target.kind: Unsupported value: \"Secret\": supported values: \"Node\", \"<empty>\"");
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/a/binding", Json{{"target", {{"name", "node-0"}}}}).status, 201);
}

// pods/binding as pkg/registry/core/pod/storage/storage.go (v1.26) answers: twice, 409
// "already assigned"; while being deleted, 409 "is being deleted"; once deleted, 404.
TEST_F(ApiServerTest, BindingsOfDeletedPodsAreRefusedAsUpstream) {
  const Json binding = {{"target", {{"kind", "Node"}, {"name", "node-0"}}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("a", "ext", 1, 10)).status, 201);
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/a").status, 200);
  const Json gone = json(call("POST", "/api/v1/namespaces/default/pods/a/binding", binding));
  EXPECT_EQ(gone["code"], 404);
  EXPECT_EQ(gone["message"], "pods \"a\" not found");
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod_body("b", "ext", 1, 10)).status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods/b/binding", binding).status, 201);
  const Json twice = json(call("POST", "/api/v1/namespaces/default/pods/b/binding", binding));
  EXPECT_EQ(twice["code"], 409);
  EXPECT_EQ(twice["message"], "Operation cannot be fulfilled on pods/binding \"b\": pod b is already assigned to node \"node-0\"");
}

// Hardening (issue 16): a request that went wrong in an unexpected way once left the
// in-flight count raised (cosim then waited for it forever) and answered 500.
TEST_F(ApiServerTest, HostileRequestsGetAStatusAndReleaseTheClock) {
  ApiRequest deep;
  deep.method = "POST";
  deep.path = "/api/v1/namespaces/default/configmaps";
  deep.content_type = "application/json";
  deep.body = std::string(100000, '[') + std::string(100000, ']');
  std::shared_ptr<Watch> watch;
  ApiResponse r = api_->handle(deep, &watch);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("exceeded max depth"), std::string::npos) << r.body;
  EXPECT_EQ(api_->in_flight(), 0);

  ApiRequest bad_utf8;
  bad_utf8.method = "POST";
  bad_utf8.path = "/api/v1/namespaces/\xff\xfe/pods/\xc3\x28";
  bad_utf8.content_type = "application/json";
  bad_utf8.body = "{\"metadata\":{\"name\":\"\xff\"}}";
  r = api_->handle(bad_utf8, &watch);
  EXPECT_GE(r.status, 400);
  EXPECT_LT(r.status, 500);
  Json status;
  EXPECT_NO_THROW(status = Json::parse(r.body));  // a Status, valid JSON whatever the request's bytes
  EXPECT_EQ(api_->in_flight(), 0);
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 200);
}

TEST_F(ApiServerTest, QuantitiesBeyondInt64AreRefused) {
  for (const char* cpu : {"99999999999999999999999Ei", "1e308"}) {
    Json pod = pod_body("huge", "default-scheduler", 1, 10);
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
    pod["spec"]["containers"][0]["resources"]["limits"]["cpu"] = cpu;
    const ApiResponse r = call("POST", "/api/v1/namespaces/default/pods", pod);
    EXPECT_EQ(r.status, 422) << cpu << ": " << r.body;
  }
}

// A kind registered in the store (an opaque custom resource) is served with no api/ edit:
// discovery, list, get, watch, and a client's create / update / delete.
class RegisteredKindTest : public ApiServerTest {
 protected:
  RegisteredKindTest() {
    ObjectStore& store = sim_.store();
    widgets_ = store.register_custom_kind({"example.com", "v1", "Widget", "widgets", true, KindStorage::kOpaque, {}});
    store.create(widgets_, ObjectMeta{"w-1", *store.find_namespace("default"), 0, false},
                 OpaqueObject{R"({"spec":{"size":3}})"});
    api_ = std::make_unique<ApiServer>(sim_, ApiOptions{});  // after the registration
  }
  ObjectKind widgets_{};
};

TEST_F(RegisteredKindTest, ServedGenericallyFromTheRegistry) {
  const Json group = json(call("GET", "/apis/example.com/v1"));
  ASSERT_EQ(group["resources"].size(), 2u) << group;  // widgets, widgets/status
  EXPECT_EQ(group["resources"][0]["name"], "widgets");
  EXPECT_EQ(group["resources"][0]["kind"], "Widget");
  EXPECT_EQ(group["resources"][0]["singularName"], "widget");
  const std::string path = "/apis/example.com/v1/namespaces/default/widgets";
  const Json list = json(call("GET", path));
  EXPECT_EQ(list["kind"], "WidgetList");
  ASSERT_EQ(list["items"].size(), 1u);
  const Json w1 = json(call("GET", path + "/w-1"));
  EXPECT_EQ(w1["apiVersion"], "example.com/v1");
  EXPECT_EQ(w1["spec"]["size"], 3);
  EXPECT_EQ(w1["metadata"]["namespace"], "default");
  EXPECT_EQ(w1["metadata"]["resourceVersion"], std::to_string(sim_.store().meta(widgets_, 0).resource_version));

  ASSERT_EQ(call("GET", path, nullptr, {{"watch", "true"}}).status, 200);
  using Seen = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(events(), (Seen{{"ADDED", "w-1"}}));  // the current state first
  const Json w2 = {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w-2"}, {"labels", {{"a", "b"}}}}},
                   {"spec", {{"size", 5}}}};
  ASSERT_EQ(call("POST", path, w2).status, 201);
  EXPECT_EQ(sim_.store().object_count(widgets_), 2u);
  Json changed = json(call("GET", path + "/w-2"));
  EXPECT_EQ(changed["metadata"]["labels"]["a"], "b");
  changed["spec"]["size"] = 6;
  ASSERT_EQ(call("PUT", path + "/w-2", changed).status, 200);
  EXPECT_EQ(json(call("GET", path + "/w-2"))["spec"]["size"], 6);
  EXPECT_EQ(call("DELETE", path + "/w-1").status, 200);
  EXPECT_EQ(call("GET", path + "/w-1").status, 404);
  EXPECT_EQ(events(), (Seen{{"ADDED", "w-2"}, {"MODIFIED", "w-2"}, {"DELETED", "w-1"}}));
}

// etcd3 GuaranteedUpdate: an update that changes nothing keeps the resourceVersion and sends
// no watch event (Kueue's ClusterQueue reconciler writes an unchanged status every time).
TEST_F(RegisteredKindTest, UpdateThatChangesNothingIsNotWritten) {
  const std::string path = "/apis/example.com/v1/namespaces/default/widgets/w-1";
  const Json before = json(call("GET", path));
  ASSERT_EQ(call("GET", "/apis/example.com/v1/namespaces/default/widgets", nullptr, {{"watch", "true"}}).status, 200);
  using Seen = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(events(), (Seen{{"ADDED", "w-1"}}));
  const ApiResponse same = call("PUT", path, before);
  ASSERT_EQ(same.status, 200);
  EXPECT_EQ(json(same)["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
  EXPECT_EQ(call("PUT", path + "/status", before).status, 200);
  EXPECT_EQ(json(call("GET", path))["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
  EXPECT_EQ(events(), Seen{});
  Json changed = before;
  changed["spec"]["size"] = 4;
  ASSERT_EQ(call("PUT", path, changed).status, 200);
  EXPECT_EQ(events(), (Seen{{"MODIFIED", "w-1"}}));
}

}  // namespace
}  // namespace kubesim::api
