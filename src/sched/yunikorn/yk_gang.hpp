// YuniKorn gang scheduling, the shim's side of the input: the pod annotations that declare
// task groups and the scheduling policy, and what a placeholder pod is.
//
// Upstream (apache/yunikorn-k8shim unless noted):
//   pkg/common/constants/constants.go   annotation and label names, the policy parameters
//   pkg/cache/task_group.go (1.5: pkg/cache/utils.go) GetTaskGroupsFromAnnotation
//   pkg/cache/gang_utils.go             GetSchedulingPolicyParam, GeneratePlaceholderName
//   pkg/cache/metadata.go               getAppMetadata: an invalid task-groups annotation is
//                                       logged (event TaskGroupsError) and the application
//                                       has no task groups: it is scheduled as a normal one
//   pkg/common/utils/utils.go           GetPlaceholderFlagFromPodSpec, GetTaskGroupFromPodSpec
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "model/objects.hpp"

namespace kubesim::yunikorn {

// constants.go (1.5 names; 1.6 moved the placeholder flag to an internal domain).
inline constexpr const char* kAnnotationTaskGroups = "yunikorn.apache.org/task-groups";
inline constexpr const char* kAnnotationTaskGroupName = "yunikorn.apache.org/task-group-name";
inline constexpr const char* kAnnotationSchedulingPolicy = "yunikorn.apache.org/schedulingPolicyParameters";
inline constexpr const char* kAnnotationPlaceholder = "yunikorn.apache.org/placeholder";
inline constexpr const char* kLabelPlaceholder = "placeholder";

// One entry of the task-groups annotation (the shim's TaskGroup: name, minMember, minResource,
// labels, annotations, nodeSelector, tolerations, affinity, topologySpreadConstraints).
struct TaskGroupSpec {
  std::string name;
  std::int32_t min_member = 0;
  Resources min_resource;  // cpu in milli, others Quantity.Value()
  Labels labels;
  Labels annotations;
  Labels node_selector;
  std::vector<Toleration> tolerations;
  NodeAffinity node_affinity;  // affinity.nodeAffinity (pod (anti-)affinity is not modelled)
  bool has_node_affinity = false;
  // Why the API server would refuse a placeholder pod built from this group (a negative
  // quantity, an invalid toleration or node selector requirement, more resource types than
  // kubesim models); empty when the pod is valid. Upstream the placeholder creation then
  // fails and the application falls back to normal scheduling.
  std::string invalid;
};

// GetTaskGroupsFromAnnotation: the annotation's JSON list as Go's encoding/json reads it into
// []TaskGroup (keys matched case-insensitively, unknown keys ignored, a value of the wrong
// type is an error), then the checks on each group (name, minResource, minMember > 0).
// `error` is set (and `groups` empty) when upstream returns an error.
struct TaskGroupsResult {
  std::vector<TaskGroupSpec> groups;
  std::string error;
};
TaskGroupsResult parse_task_groups(const std::string& text, ResourceNames& names);

// GetSchedulingPolicyParam: "placeholderTimeoutInSeconds=N gangSchedulingStyle=Soft|Hard",
// space separated. Malformed entries are skipped; a timeout that does not parse is 0 (the
// core's default then applies); an unknown style is Soft.
struct SchedulingPolicy {
  std::int64_t timeout_seconds = 0;
  bool hard = false;
  // The AddApplicationRequest's ExecutionTimeoutMilliSeconds: timeout_seconds * 1000 with Go's
  // int64 wrap-around.
  std::int64_t timeout_millis() const;
};
SchedulingPolicy parse_scheduling_policy(const std::string& text);

// yunikorn-core pkg/common/utils.go ConvertSITimeout, then application.go NewApplication:
// a timeout <= 0 (or one that overflows in nanoseconds) is replaced by the default 15 min.
Duration placeholder_timeout(std::int64_t millis);
inline constexpr Duration kDefaultPlaceholderTimeout = Duration::seconds(15 * 60);

// GeneratePlaceholderName: "tg-" + appID (28 characters at most) + "-" + task group (20 at
// most) + "-" + a 10-character nonce of [a-z0-9] (drawn from `rng`, seeded: runs repeat).
std::string placeholder_name(const std::string& app_id, const std::string& group, RandomStream& rng);

// GetPlaceholderFlagFromPodSpec: the annotation, then the label, parsed as Go's ParseBool.
bool is_placeholder(const PodTemplate& spec);

}  // namespace kubesim::yunikorn
