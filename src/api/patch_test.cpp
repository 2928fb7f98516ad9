#include "api/patch.hpp"

#include <gtest/gtest.h>

namespace kubesim::api {
namespace {

using nlohmann::json;

json pod_with_conditions() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "finalizers": ["a", "b"]},
    "spec": {"containers": [{"name": "main", "image": "busybox", "env": [{"name": "X", "value": "1"}],
                             "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                            {"name": "side", "image": "sidecar"}],
             "tolerations": [{"key": "a", "operator": "Exists"}]},
    "status": {"phase": "Pending", "conditions": [
      {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-01-01T00:00:00Z"},
      {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "old",
       "lastProbeTime": null, "lastTransitionTime": "2026-01-01T00:00:01Z"}]}})");
}

// kube-scheduler's updatePod (pkg/scheduler/schedule_one.go -> util.PatchPodStatus) on a pod
// that already has the condition: only the changed fields plus the merge key, with
// $setElementOrder.
TEST(ApiStrategicPatchTest, SchedulerUnschedulableUpdate) {
  json patch = json::parse(R"({"status":{"$setElementOrder/conditions":[{"type":"Initialized"},{"type":"PodScheduled"}],
    "conditions":[{"message":"0/3 nodes are available: 3 Insufficient cpu.","type":"PodScheduled"}]}})");
  json out = strategic_merge_patch(pod_with_conditions(), patch);
  ASSERT_EQ(out["status"]["conditions"].size(), 2u);
  EXPECT_EQ(out["status"]["conditions"][0]["type"], "Initialized");
  const json& c = out["status"]["conditions"][1];
  EXPECT_EQ(c["type"], "PodScheduled");
  EXPECT_EQ(c["status"], "False");
  EXPECT_EQ(c["reason"], "Unschedulable");
  EXPECT_EQ(c["message"], "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_EQ(c["lastTransitionTime"], "2026-01-01T00:00:01Z");
  EXPECT_EQ(out["spec"], pod_with_conditions()["spec"]);
}

// The first failed attempt: no conditions yet; the preemptor's nomination comes along.
TEST(ApiStrategicPatchTest, SchedulerFirstUnschedulableWithNomination) {
  json pod = pod_with_conditions();
  pod["status"].erase("conditions");
  json patch = json::parse(R"({"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable",
    "message":"m","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:07Z"}],"nominatedNodeName":"node-1"}})");
  json out = strategic_merge_patch(pod, patch);
  EXPECT_EQ(out["status"]["nominatedNodeName"], "node-1");
  EXPECT_EQ(out["status"]["conditions"],
            json::parse(R"([{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"m",
                             "lastTransitionTime":"2026-01-01T00:00:07Z"}])"));
  // Clearing the nomination: "" sets the empty string, null removes the field.
  EXPECT_EQ(strategic_merge_patch(out, json::parse(R"({"status":{"nominatedNodeName":""}})"))["status"]["nominatedNodeName"], "");
  EXPECT_FALSE(strategic_merge_patch(out, json::parse(R"({"status":{"nominatedNodeName":null}})"))["status"].contains(
      "nominatedNodeName"));
}

// The preemption DisruptionTarget condition (an apply patch, merged by type as SSA's
// listType=map does): added, the others kept. Without $setElementOrder upstream's
// mergeSortedSlice puts an item the live list does not have before the live ones.
TEST(ApiStrategicPatchTest, DisruptionTargetCondition) {
  json patch = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},
    "status":{"conditions":[{"type":"DisruptionTarget","status":"True","reason":"PreemptionByKubeScheduler",
    "message":"default-scheduler: preempting to accommodate a higher priority pod"}]}})");
  json out = strategic_merge_patch(pod_with_conditions(), patch);
  ASSERT_EQ(out["status"]["conditions"].size(), 3u);
  EXPECT_EQ(out["status"]["conditions"][0]["reason"], "PreemptionByKubeScheduler");
  EXPECT_EQ(out["status"]["conditions"][1]["type"], "Initialized");
  EXPECT_EQ(out["status"]["conditions"][2]["type"], "PodScheduled");
  EXPECT_EQ(out["status"]["conditions"][2]["message"], "old");

  json appended = json::parse(R"({"status":{"$setElementOrder/conditions":[{"type":"Initialized"},
    {"type":"PodScheduled"},{"type":"DisruptionTarget"}],"conditions":[{"type":"DisruptionTarget","status":"True"}]}})");
  out = strategic_merge_patch(pod_with_conditions(), appended);
  EXPECT_EQ(out["status"]["conditions"][0]["type"], "Initialized");
  EXPECT_EQ(out["status"]["conditions"][1]["type"], "PodScheduled");
  EXPECT_EQ(out["status"]["conditions"][2]["type"], "DisruptionTarget");

  json ordered = json::parse(R"({"status":{"$setElementOrder/conditions":[{"type":"DisruptionTarget"},
    {"type":"Initialized"},{"type":"PodScheduled"}],"conditions":[{"type":"DisruptionTarget","status":"True"}]}})");
  out = strategic_merge_patch(pod_with_conditions(), ordered);
  EXPECT_EQ(out["status"]["conditions"][0]["type"], "DisruptionTarget");
  EXPECT_EQ(out["status"]["conditions"][1]["type"], "Initialized");
  EXPECT_EQ(out["status"]["conditions"][2]["type"], "PodScheduled");
}

TEST(ApiStrategicPatchTest, KubectlCordon) {
  json node = json::parse(R"({"kind":"Node","metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}})");
  json out = strategic_merge_patch(node, json::parse(R"({"spec":{"unschedulable":true}})"));
  EXPECT_EQ(out["spec"]["unschedulable"], true);
  EXPECT_EQ(out["spec"]["taints"].size(), 1u);
  out = strategic_merge_patch(out, json::parse(R"({"spec":{"unschedulable":null}})"));
  EXPECT_FALSE(out["spec"].contains("unschedulable"));
}

TEST(ApiStrategicPatchTest, ListsMergeByKeyOrReplace) {
  json patch = json::parse(R"({"spec":{
    "containers":[{"name":"main","image":"busybox:2","env":[{"name":"Y","value":"2"}],"ports":[{"containerPort":80,"name":"http"}]}],
    "tolerations":[{"key":"b","operator":"Exists"}]}})");
  json out = strategic_merge_patch(pod_with_conditions(), patch);
  const json& cs = out["spec"]["containers"];
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]["name"], "main");
  EXPECT_EQ(cs[0]["image"], "busybox:2");
  // A new item goes before the live ones when no $setElementOrder is given (mergeSortedSlice).
  EXPECT_EQ(cs[0]["env"], json::parse(R"([{"name":"Y","value":"2"},{"name":"X","value":"1"}])"));
  EXPECT_EQ(cs[0]["ports"], json::parse(R"([{"containerPort":80,"protocol":"TCP","name":"http"}])"));
  EXPECT_EQ(cs[1]["name"], "side");
  // core/v1 Tolerations has no patch strategy: replaced.
  EXPECT_EQ(out["spec"]["tolerations"], json::parse(R"([{"key":"b","operator":"Exists"}])"));
}

TEST(ApiStrategicPatchTest, Directives) {
  json pod = pod_with_conditions();
  // $patch: delete in a list item removes the matching element.
  json out = strategic_merge_patch(pod, json::parse(R"({"spec":{"containers":[{"name":"side","$patch":"delete"}]}})"));
  ASSERT_EQ(out["spec"]["containers"].size(), 1u);
  EXPECT_EQ(out["spec"]["containers"][0]["name"], "main");
  // $patch: replace in a list replaces the whole list.
  out = strategic_merge_patch(pod, json::parse(R"({"spec":{"containers":[{"name":"new","image":"x"},{"$patch":"replace"}]}})"));
  EXPECT_EQ(out["spec"]["containers"], json::parse(R"([{"name":"new","image":"x"}])"));
  // $patch: replace in a map replaces the map; $patch: delete removes its content.
  out = strategic_merge_patch(pod, json::parse(R"({"metadata":{"$patch":"replace","name":"q"}})"));
  EXPECT_EQ(out["metadata"], json({{"name", "q"}}));
  out = strategic_merge_patch(pod, json::parse(R"({"status":{"$patch":"delete"}})"));
  EXPECT_EQ(out["status"], json::object());
  // Finalizers merge as a set; $deleteFromPrimitiveList removes.
  out = strategic_merge_patch(pod, json::parse(R"({"metadata":{"finalizers":["b","c"]}})"));
  EXPECT_EQ(out["metadata"]["finalizers"], json({"a", "b", "c"}));
  out = strategic_merge_patch(pod, json::parse(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})"));
  EXPECT_EQ(out["metadata"]["finalizers"], json({"b"}));
  // $retainKeys clears the fields not listed.
  out = strategic_merge_patch(pod, json::parse(R"({"status":{"$retainKeys":["phase"],"phase":"Running"}})"));
  EXPECT_EQ(out["status"], json({{"phase", "Running"}}));
}

TEST(ApiStrategicPatchTest, Errors) {
  json pod = pod_with_conditions();
  EXPECT_THROW(strategic_merge_patch(pod, json::parse(R"({"spec":{"containers":[{"image":"x"}]}})")), PatchError);
  EXPECT_THROW(strategic_merge_patch(pod, json::parse(R"({"spec":{"containers":[{"name":"a","$patch":"merge"}]}})")),
               PatchError);
  EXPECT_THROW(strategic_merge_patch(pod, json::parse(R"({"spec":{"$patch":"bogus"}})")), PatchError);
  EXPECT_THROW(strategic_merge_patch(pod, json::parse(R"({"status":{"$retainKeys":["phase"],"reason":"x"}})")),
               PatchError);
  // The patch list's order must follow $setElementOrder.
  EXPECT_THROW(strategic_merge_patch(pod, json::parse(R"({"status":{
    "$setElementOrder/conditions":[{"type":"Initialized"},{"type":"PodScheduled"}],
    "conditions":[{"type":"PodScheduled","status":"True"},{"type":"Initialized","status":"False"}]}})")), PatchError);
  try {
    strategic_merge_patch(pod, json::parse(R"({"spec":{"containers":[{"image":"x"}]}})"));
  } catch (const PatchError& e) {
    EXPECT_EQ(std::string(e.what()), R"(map: {"image":"x"} does not contain declared merge key: name)");
  }
}

TEST(ApiStrategicPatchTest, ListKeys) {
  EXPECT_EQ(strategic_list_key({"spec", "containers"}), "name");
  EXPECT_EQ(strategic_list_key({"spec", "template", "spec", "initContainers"}), "name");
  EXPECT_EQ(strategic_list_key({"spec", "containers", "ports"}), "containerPort");
  EXPECT_EQ(strategic_list_key({"spec", "containers", "volumeMounts"}), "mountPath");
  EXPECT_EQ(strategic_list_key({"status", "conditions"}), "type");
  EXPECT_EQ(strategic_list_key({"metadata", "ownerReferences"}), "uid");
  EXPECT_EQ(strategic_list_key({"metadata", "finalizers"}), "");
  EXPECT_EQ(strategic_list_key({"spec", "tolerations"}), std::nullopt);
  EXPECT_EQ(strategic_list_key({"spec", "taints"}), std::nullopt);
  EXPECT_EQ(strategic_list_key({"status", "containerStatuses"}), std::nullopt);
}

TEST(ApiMergePatchTest, Rfc7386) {
  json out = merge_patch(pod_with_conditions(), json::parse(R"({"metadata":{"labels":{"a":"b"},"finalizers":null},
    "status":{"conditions":[{"type":"Ready","status":"True"}]}})"));
  EXPECT_EQ(out["metadata"]["labels"], json({{"a", "b"}}));
  EXPECT_FALSE(out["metadata"].contains("finalizers"));
  EXPECT_EQ(out["status"]["conditions"], json::parse(R"([{"type":"Ready","status":"True"}])"));  // lists replace
  EXPECT_EQ(out["status"]["phase"], "Pending");
}

TEST(ApiJsonPatchTest, Rfc6902) {
  json doc = json::parse(R"({"metadata":{"labels":{"a":"1"}},"spec":{"list":[1,2]}})");
  json out = json_patch(doc, json::parse(R"([
    {"op":"test","path":"/metadata/labels/a","value":"1"},
    {"op":"add","path":"/metadata/labels/b","value":"2"},
    {"op":"replace","path":"/metadata/labels/a","value":"x"},
    {"op":"add","path":"/spec/list/-","value":3},
    {"op":"remove","path":"/spec/list/0"},
    {"op":"copy","from":"/metadata/labels/b","path":"/spec/b"},
    {"op":"move","from":"/spec/b","path":"/spec/c"}])"));
  EXPECT_EQ(out, json::parse(R"({"metadata":{"labels":{"a":"x","b":"2"}},"spec":{"list":[2,3],"c":"2"}})"));
  EXPECT_THROW(json_patch(doc, json::parse(R"([{"op":"test","path":"/metadata/labels/a","value":"2"}])")), PatchError);
  EXPECT_THROW(json_patch(doc, json::parse(R"([{"op":"remove","path":"/nope"}])")), PatchError);
  EXPECT_THROW(json_patch(doc, json::parse(R"({"op":"remove"})")), PatchError);
}

}  // namespace
}  // namespace kubesim::api
