#include "api/table.hpp"
#include "api/json_codec.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kubesim::api {
namespace {

using nlohmann::json;

constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t kMilli = 1'000;
constexpr std::int64_t kMinute = 60 * kSecond;
constexpr std::int64_t kHour = 60 * kMinute;
constexpr std::int64_t kDay = 24 * kHour;
// 2026-01-01T00:00:00Z
constexpr std::int64_t kEpoch = 1'767'225'600 * kSecond;

std::vector<std::string> column_names(const json& table) {
  std::vector<std::string> out;
  for (const json& c : table.at("columnDefinitions")) out.push_back(c.at("name").get<std::string>());
  return out;
}

// staging/src/k8s.io/apimachinery/pkg/util/duration/duration_test.go TestHumanDuration and
// TestHumanDurationBoundaries (nanosecond offsets become microsecond ones).
TEST(ApiTableHumanDuration, UpstreamCases) {
  const std::vector<std::pair<std::int64_t, std::string>> cases = {
      {kSecond, "1s"},
      {70 * kSecond, "70s"},
      {190 * kSecond, "3m10s"},
      {70 * kMinute, "70m"},
      {47 * kHour, "47h"},
      {49 * kHour, "2d1h"},
      {(8 * 24 + 2) * kHour, "8d"},
      {367 * kDay, "367d"},
      {(365 * 2 * 24 + 25) * kHour, "2y1d"},
      {(365 * 8 * 24 + 2) * kHour, "8y"},
  };
  for (const auto& [d, want] : cases) EXPECT_EQ(human_duration(d), want) << d;
}

TEST(ApiTableHumanDuration, UpstreamBoundaries) {
  const std::int64_t year = 365 * kDay;
  const std::vector<std::pair<std::int64_t, std::string>> cases = {
      {-2 * kSecond, "<invalid>"},
      {-2 * kSecond + 1, "0s"},
      {0, "0s"},
      {kSecond - kMilli, "0s"},
      {2 * kMinute - kMilli, "119s"},
      {2 * kMinute, "2m"},
      {2 * kMinute + kSecond, "2m1s"},
      {10 * kMinute - kMilli, "9m59s"},
      {10 * kMinute, "10m"},
      {10 * kMinute + kSecond, "10m"},
      {3 * kHour - kMilli, "179m"},
      {3 * kHour, "3h"},
      {3 * kHour + kMinute, "3h1m"},
      {8 * kHour - kMilli, "7h59m"},
      {8 * kHour, "8h"},
      {8 * kHour + 59 * kMinute, "8h"},
      {2 * kDay - kMilli, "47h"},
      {2 * kDay, "2d"},
      {2 * kDay + kHour, "2d1h"},
      {8 * kDay - kMilli, "7d23h"},
      {8 * kDay, "8d"},
      {8 * kDay + 23 * kHour, "8d"},
      {2 * year - kMilli, "729d"},
      {2 * year, "2y"},
      {2 * year + 23 * kHour, "2y"},
      {2 * year + 23 * kHour + 59 * kMinute, "2y"},
      {2 * year + kDay - kMilli, "2y"},
      {2 * year + kDay, "2y1d"},
      {3 * year, "3y"},
      {4 * year, "4y"},
      {5 * year, "5y"},
      {6 * year, "6y"},
      {7 * year, "7y"},
      {8 * year - kMilli, "7y364d"},
      {8 * year, "8y"},
      {8 * year + 364 * kDay, "8y"},
      {9 * year, "9y"},
      // The brief's examples.
      {5 * kSecond, "5s"},
      {2 * kMinute + 3 * kSecond, "2m3s"},
      {3 * kHour + 5 * kMinute, "3h5m"},
      {2 * kDay + 3 * kHour, "2d3h"},
      {3 * year + 45 * kDay, "3y45d"},
  };
  for (const auto& [d, want] : cases) EXPECT_EQ(human_duration(d), want) << d;
}

TEST(ApiTableTimestamp, ParsesRfc3339) {
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T00:00:00Z"), kEpoch);
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T00:00:05.250000Z"), kEpoch + 5 * kSecond + 250 * kMilli);
  EXPECT_EQ(parse_rfc3339_micros("2026-01-01T02:00:00+02:00"), kEpoch);
  EXPECT_EQ(parse_rfc3339_micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339_micros("2024-02-29T12:00:00Z"), 1'709'208'000 * kSecond);
  EXPECT_FALSE(parse_rfc3339_micros(""));
  EXPECT_FALSE(parse_rfc3339_micros("2026-01-01 00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339_micros("2026-01-01T00:00:00"));
}

TEST(ApiTableNegotiation, WantsTable) {
  // kubectl get
  EXPECT_TRUE(wants_table(
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
      "application/json"));
  EXPECT_TRUE(wants_table("application/json; as=Table; v=v1; g=meta.k8s.io"));
  EXPECT_FALSE(wants_table("application/json"));
  EXPECT_FALSE(wants_table(""));
  EXPECT_FALSE(wants_table("*/*"));
  EXPECT_FALSE(wants_table("application/json, application/json;as=Table;v=v1;g=meta.k8s.io"));
  // protobuf first (kubectl with --output-watch-events... prefers protobuf in newer versions).
  EXPECT_TRUE(wants_table(
      "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,"
      "application/json"));
  // PartialObjectMetadataList is not served as a table; falls through to plain JSON.
  EXPECT_FALSE(wants_table("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"));
  // q ordering.
  EXPECT_TRUE(wants_table("application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io"));
  EXPECT_FALSE(wants_table("application/json;as=Table;v=v1;g=meta.k8s.io;q=0, application/json"));
  EXPECT_FALSE(wants_table("application/json;as=Table;v=v2;g=meta.k8s.io"));
}

TEST(ApiTableNegotiation, IncludeObject) {
  EXPECT_EQ(parse_include_object(""), TableObjects::Metadata);
  EXPECT_EQ(parse_include_object("Metadata"), TableObjects::Metadata);
  EXPECT_EQ(parse_include_object("None"), TableObjects::None);
  EXPECT_EQ(parse_include_object("Object"), TableObjects::Object);
  EXPECT_FALSE(parse_include_object("object"));
  EXPECT_FALSE(parse_include_object("All"));
}

json running_pod() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "default", "resourceVersion": "42", "uid": "u1",
                 "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}]},
    "status": {"phase": "Running", "podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}],
               "conditions": [{"type": "Ready", "status": "True"}],
               "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0,
                                      "state": {"running": {"startedAt": "2026-01-01T00:00:01Z"}}}]}
  })");
}

TEST(ApiTablePods, RunningPodCellsAndTableShape) {
  const json pod = running_pod();
  const json table = to_table("pods", {&pod}, kEpoch + 125 * kSecond, TableObjects::Metadata,
                              json{{"resourceVersion", "77"}, {"continue", ""}});
  EXPECT_EQ(table.at("kind"), "Table");
  EXPECT_EQ(table.at("apiVersion"), "meta.k8s.io/v1");
  EXPECT_EQ(table.at("metadata"), json({{"resourceVersion", "77"}}));
  EXPECT_EQ(column_names(table), (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                                           "Nominated Node", "Readiness Gates"}));
  const json& col0 = table.at("columnDefinitions").at(0);
  EXPECT_EQ(col0.at("type"), "string");
  EXPECT_EQ(col0.at("format"), "name");
  EXPECT_EQ(col0.at("priority"), 0);
  EXPECT_TRUE(col0.at("description").is_string());
  EXPECT_EQ(table.at("columnDefinitions").at(5).at("priority"), 1);
  ASSERT_EQ(table.at("rows").size(), 1u);
  const json& row = table.at("rows").at(0);
  EXPECT_EQ(row.at("cells"), json({"web-0", "1/1", "Running", "0", "2m5s", "10.0.0.5", "node-1", "<none>", "<none>"}));
  EXPECT_FALSE(row.contains("conditions"));
  EXPECT_EQ(row.at("object").at("kind"), "PartialObjectMetadata");
  EXPECT_EQ(row.at("object").at("apiVersion"), "meta.k8s.io/v1");
  EXPECT_EQ(row.at("object").at("metadata").at("name"), "web-0");
  EXPECT_EQ(row.at("object").at("metadata").at("resourceVersion"), "42");
  EXPECT_FALSE(row.at("object").contains("spec"));
}

TEST(ApiTablePods, IncludeObjectPolicies) {
  const json pod = running_pod();
  EXPECT_TRUE(table_row("pods", pod, kEpoch, TableObjects::None).at("object").is_null());
  EXPECT_EQ(table_row("pods", pod, kEpoch, TableObjects::Object).at("object"), pod);
}

TEST(ApiTablePods, SucceededPodShowsCompleted) {
  json pod = running_pod();
  pod["status"] = json::parse(R"({
    "phase": "Succeeded",
    "conditions": [{"type": "Ready", "status": "False", "reason": "PodCompleted"}],
    "containerStatuses": [{"name": "c", "ready": false, "restartCount": 0,
      "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                               "startedAt": "2026-01-01T00:00:01Z", "finishedAt": "2026-01-01T00:00:31Z"}}}]
  })");
  const json row = table_row("pods", pod, kEpoch + 10 * kHour, TableObjects::Metadata);
  EXPECT_EQ(row.at("cells"), json({"web-0", "0/1", "Completed", "0", "10h", "<none>", "node-1", "<none>", "<none>"}));
  EXPECT_EQ(row.at("conditions"), json::parse(R"([{"type": "Completed", "status": "True", "reason": "Succeeded",
                                                  "message": "The pod has completed successfully."}])"));
}

TEST(ApiTablePods, StatusReasons) {
  const std::int64_t now = kEpoch + 30 * kSecond;
  // Terminating wins over Running.
  json terminating = running_pod();
  terminating["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:20Z";
  EXPECT_EQ(table_row("pods", terminating, now).at("cells").at(2), "Terminating");
  // ... unless the node is lost.
  json lost = terminating;
  lost["status"]["reason"] = "NodeLost";
  EXPECT_EQ(table_row("pods", lost, now).at("cells").at(2), "Unknown");

  // Pending, not yet scheduled, no container statuses: phase.
  json pending = running_pod();
  pending["spec"].erase("nodeName");
  pending["status"] = json{{"phase", "Pending"}};
  EXPECT_EQ(table_row("pods", pending, now).at("cells"),
            json({"web-0", "0/1", "Pending", "0", "30s", "<none>", "<none>", "<none>", "<none>"}));

  // Waiting container: its reason.
  json creating = running_pod();
  creating["status"] = json::parse(R"({"phase": "Pending", "containerStatuses": [{"name": "c", "ready": false,
      "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]})");
  EXPECT_EQ(table_row("pods", creating, now).at("cells").at(2), "ContainerCreating");

  // Rejected by the kubelet: status.reason.
  json outofcpu = running_pod();
  outofcpu["status"] = json::parse(R"({"phase": "Failed", "reason": "OutOfcpu",
      "message": "Pod Node didn't have enough resource: cpu"})");
  const json row = table_row("pods", outofcpu, now);
  EXPECT_EQ(row.at("cells").at(2), "OutOfcpu");
  EXPECT_EQ(row.at("conditions").at(0).at("reason"), "Failed");

  // Terminated without a reason: ExitCode / Signal.
  json killed = running_pod();
  killed["status"]["containerStatuses"][0]["state"] = json::parse(R"({"terminated": {"exitCode": 137}})");
  EXPECT_EQ(table_row("pods", killed, now).at("cells").at(2), "ExitCode:137");
  killed["status"]["containerStatuses"][0]["state"] = json::parse(R"({"terminated": {"exitCode": 0, "signal": 9}})");
  EXPECT_EQ(table_row("pods", killed, now).at("cells").at(2), "Signal:9");

  // Scheduling gated.
  json gated = pending;
  gated["status"]["conditions"] =
      json::parse(R"([{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}])");
  EXPECT_EQ(table_row("pods", gated, now).at("cells").at(2), "SchedulingGated");

  // Init containers: Init:i/n.
  json init = running_pod();
  init["spec"]["initContainers"] = json::array({json{{"name", "i0"}}, json{{"name", "i1"}}});
  init["status"] = json::parse(R"({"phase": "Pending", "initContainerStatuses": [
      {"name": "i0", "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
      {"name": "i1", "restartCount": 2, "state": {"running": {}}}]})");
  EXPECT_EQ(table_row("pods", init, now).at("cells").at(2), "Init:1/2");
  EXPECT_EQ(table_row("pods", init, now).at("cells").at(3), "2");
}

TEST(ApiTablePods, RestartsWithLastRestartAndWideCells) {
  json pod = running_pod();
  pod["spec"]["readinessGates"] = json::parse(R"([{"conditionType": "a"}, {"conditionType": "b"}])");
  pod["status"]["conditions"].push_back(json{{"type", "a"}, {"status", "True"}});
  pod["status"]["nominatedNodeName"] = "node-2";
  pod["status"]["containerStatuses"][0]["restartCount"] = 3;
  pod["status"]["containerStatuses"][0]["lastState"] =
      json::parse(R"({"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:01:00Z"}})");
  const json cells = table_row("pods", pod, kEpoch + 6 * kMinute).at("cells");
  EXPECT_EQ(cells.at(3), "3 (5m ago)");
  EXPECT_EQ(cells.at(7), "node-2");
  EXPECT_EQ(cells.at(8), "1/2");
}

TEST(ApiTableNodes, StatusRolesAndWideCells) {
  const json node = json::parse(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-1", "resourceVersion": "5", "creationTimestamp": "2026-01-01T00:00:00Z",
                 "labels": {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/": "",
                            "kubernetes.io/role": "worker", "kubernetes.io/hostname": "node-1"}},
    "spec": {"unschedulable": true},
    "status": {"conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "False"}],
               "addresses": [{"type": "Hostname", "address": "node-1"}, {"type": "InternalIP", "address": "10.1.0.1"}],
               "nodeInfo": {"kubeletVersion": "v1.26.0-kubesim", "osImage": "", "kernelVersion": "6.1",
                            "containerRuntimeVersion": "kubesim://0.1"}}
  })");
  const json table = to_table("nodes", {&node}, kEpoch + 3 * kDay + 4 * kHour);
  EXPECT_EQ(column_names(table),
            (std::vector<std::string>{"Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP",
                                      "OS-Image", "Kernel-Version", "Container-Runtime"}));
  EXPECT_EQ(table.at("rows").at(0).at("cells"),
            json({"node-1", "NotReady,SchedulingDisabled", "control-plane,worker", "3d4h", "v1.26.0-kubesim",
                  "10.1.0.1", "<none>", "<unknown>", "6.1", "kubesim://0.1"}));

  json ready = node;
  ready["spec"] = json::object();
  ready["metadata"]["labels"] = json::object();
  ready["status"]["conditions"] = json::parse(R"([{"type": "Ready", "status": "True"}])");
  const json cells = table_row("nodes", ready, kEpoch + 90 * kSecond).at("cells");
  EXPECT_EQ(cells.at(1), "Ready");
  EXPECT_EQ(cells.at(2), "<none>");
  EXPECT_EQ(cells.at(3), "90s");

  json unknown = ready;
  unknown["status"].erase("conditions");
  EXPECT_EQ(table_row("nodes", unknown, kEpoch).at("cells").at(1), "Unknown");
}

TEST(ApiTableJobs, CompletionsDurationAndSelector) {
  const json job = json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "pi", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {"completions": 1, "parallelism": 1,
             "selector": {"matchLabels": {"controller-uid": "abc", "app": "pi"}},
             "template": {"spec": {"containers": [{"name": "pi", "image": "perl:5.34"},
                                                   {"name": "side", "image": "busybox"}]}}},
    "status": {"succeeded": 1, "startTime": "2026-01-01T00:00:02Z", "completionTime": "2026-01-01T00:02:05Z"}
  })");
  const json table = to_table("jobs", {&job}, kEpoch + 20 * kMinute);
  EXPECT_EQ(column_names(table), (std::vector<std::string>{"Name", "Completions", "Duration", "Age", "Containers",
                                                           "Images", "Selector"}));
  EXPECT_EQ(table.at("rows").at(0).at("cells"),
            json({"pi", "1/1", "2m3s", "20m", "pi,side", "perl:5.34,busybox", "app=pi,controller-uid=abc"}));

  // Running, no completions, parallelism 3: "0/1 of 3", duration since start.
  json running = job;
  running["spec"].erase("completions");
  running["spec"]["parallelism"] = 3;
  running["spec"]["selector"] = json::parse(
      R"({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]},
                               {"key": "gone", "operator": "DoesNotExist"}]})");
  running["status"] = json::parse(R"({"startTime": "2026-01-01T00:00:00Z", "active": 3})");
  json cells = table_row("jobs", running, kEpoch + 45 * kSecond).at("cells");
  EXPECT_EQ(cells.at(1), "0/1 of 3");
  EXPECT_EQ(cells.at(2), "45s");
  EXPECT_EQ(cells.at(6), "!gone,tier in (a,b)");

  // Not started: empty duration.
  json fresh = job;
  fresh["status"] = json::object();
  fresh["spec"].erase("selector");
  cells = table_row("jobs", fresh, kEpoch).at("cells");
  EXPECT_EQ(cells.at(1), "0/1");
  EXPECT_EQ(cells.at(2), "");
  EXPECT_EQ(cells.at(6), "<none>");
}

TEST(ApiTableOthers, NamespacesQuotasPriorityClassesLeases) {
  const json ns = json::parse(R"({"metadata": {"name": "team-a", "creationTimestamp": "2026-01-01T00:00:00Z"},
                                 "status": {"phase": "Active"}})");
  json t = to_table("namespaces", {&ns}, kEpoch + 5 * kSecond);
  EXPECT_EQ(column_names(t), (std::vector<std::string>{"Name", "Status", "Age"}));
  EXPECT_EQ(t.at("rows").at(0).at("cells"), json({"team-a", "Active", "5s"}));

  const json quota = json::parse(R"({"metadata": {"name": "q", "creationTimestamp": "2026-01-01T00:00:00Z"},
      "status": {"hard": {"requests.cpu": "4", "pods": "10", "limits.memory": "8Gi", "limits.cpu": "8"},
                 "used": {"requests.cpu": "500m", "pods": "1", "limits.cpu": "1"}}})");
  t = to_table("resourcequotas", {&quota}, kEpoch + 3 * kHour);
  EXPECT_EQ(column_names(t), (std::vector<std::string>{"Name", "Age", "Request", "Limit"}));
  EXPECT_EQ(t.at("rows").at(0).at("cells"),
            json({"q", "3h", "pods: 1/10, requests.cpu: 500m/4", "limits.cpu: 1/8, limits.memory: 0/8Gi"}));

  const json pc = json::parse(R"({"metadata": {"name": "high", "creationTimestamp": "2026-01-01T00:00:00Z"},
                                 "value": 1000, "globalDefault": false, "preemptionPolicy": "Never"})");
  t = to_table("priorityclasses", {&pc}, kEpoch + 8 * kDay);
  EXPECT_EQ(column_names(t), (std::vector<std::string>{"Name", "Value", "Global-Default", "Age"}));
  EXPECT_EQ(t.at("columnDefinitions").at(1).at("type"), "integer");
  EXPECT_EQ(t.at("rows").at(0).at("cells"), json({"high", 1000, false, "8d"}));

  const json lease = json::parse(R"({"metadata": {"name": "kube-scheduler", "creationTimestamp": "2026-01-01T00:00:00Z"},
                                    "spec": {"holderIdentity": "sched-1"}})");
  t = to_table("leases", {&lease}, kEpoch);
  EXPECT_EQ(t.at("rows").at(0).at("cells"), json({"kube-scheduler", "sched-1", "0s"}));

  const json pdb = json::parse(R"({"metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"},
                                  "spec": {"minAvailable": 2}, "status": {"disruptionsAllowed": 1}})");
  t = to_table("poddisruptionbudgets", {&pdb}, kEpoch + kMinute);
  EXPECT_EQ(t.at("rows").at(0).at("cells"), json({"p", "2", "N/A", 1, "60s"}));
}

TEST(ApiTableEvents, CoreAndEventsV1) {
  const json core = json::parse(R"({"apiVersion": "v1", "kind": "Event",
      "metadata": {"name": "web-0.1", "namespace": "default"},
      "involvedObject": {"kind": "Pod", "name": "web-0", "namespace": "default"},
      "reason": "Scheduled", "message": "Successfully assigned default/web-0 to node-1\n", "type": "Normal",
      "source": {"component": "default-scheduler"}, "count": 1,
      "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:10Z"})");
  json t = to_table("events", {&core}, kEpoch + 70 * kSecond);
  EXPECT_EQ(column_names(t), (std::vector<std::string>{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source",
                                                       "Message", "First Seen", "Count", "Name"}));
  EXPECT_EQ(t.at("rows").at(0).at("cells"),
            json({"60s", "Normal", "Scheduled", "pod/web-0", "", "default-scheduler",
                  "Successfully assigned default/web-0 to node-1", "70s", 1, "web-0.1"}));

  const json v1 = json::parse(R"({"apiVersion": "events.k8s.io/v1", "kind": "Event",
      "metadata": {"name": "e"}, "eventTime": "2026-01-01T00:00:05.000000Z",
      "reportingController": "kubesim/scheduler", "reportingInstance": "kubesim",
      "regarding": {"kind": "Node", "name": "node-1"}, "note": "gone", "type": "Warning", "reason": "NodeNotReady"})");
  t = to_table("events", {&v1}, kEpoch + 10 * kSecond);
  EXPECT_EQ(t.at("rows").at(0).at("cells"), json({"5s", "Warning", "NodeNotReady", "node/node-1", "",
                                                  "kubesim/scheduler, kubesim", "gone", "5s", 1, "e"}));
}

TEST(ApiTableDefault, NameAndCreatedAt) {
  const json cm = json::parse(R"({"metadata": {"name": "cfg", "creationTimestamp": "2026-01-01T02:00:00+02:00"}})");
  const json none = json::parse(R"({"metadata": {"name": "x"}})");
  const json t = to_table("configmaps", {&cm, &none}, kEpoch);
  EXPECT_EQ(column_names(t), (std::vector<std::string>{"Name", "Created At"}));
  EXPECT_EQ(t.at("columnDefinitions").at(1).at("type"), "date");
  EXPECT_EQ(t.at("rows").at(0).at("cells"), json({"cfg", "2026-01-01T00:00:00Z"}));
  EXPECT_EQ(t.at("rows").at(1).at("cells"), json({"x", "0001-01-01T00:00:00Z"}));
}

TEST(ApiTableWatch, HeadersOnlyOnFirstEvent) {
  const json pod = running_pod();
  const json first = to_table_row_object("pods", pod, kEpoch, TableObjects::Metadata, true);
  EXPECT_EQ(first.at("kind"), "Table");
  EXPECT_EQ(first.at("metadata"), json({{"resourceVersion", "42"}}));
  EXPECT_EQ(first.at("columnDefinitions").size(), 9u);
  ASSERT_EQ(first.at("rows").size(), 1u);
  EXPECT_EQ(first.at("rows").at(0).at("cells").at(0), "web-0");

  const json later = to_table_row_object("pods", pod, kEpoch, TableObjects::None, false);
  EXPECT_TRUE(later.contains("columnDefinitions"));
  EXPECT_TRUE(later.at("columnDefinitions").is_null());
  EXPECT_TRUE(later.at("rows").at(0).at("object").is_null());
}

TEST(ApiTableList, EmptyListHasRowsArray) {
  const json t = to_table("pods", {}, kEpoch, TableObjects::Metadata, json{{"resourceVersion", "9"}});
  EXPECT_TRUE(t.at("rows").is_array());
  EXPECT_TRUE(t.at("rows").empty());
  EXPECT_EQ(t.at("metadata").at("resourceVersion"), "9");
}

}  // namespace
}  // namespace kubesim::api
