// The Kubernetes objects kubesim simulates, reduced to the fields that scheduling, the
// kubelet and the outputs use. Field names follow the Kubernetes API (core/v1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/resources.hpp"

namespace kubesim {

// Sorted by key, unique keys.
using Labels = std::vector<std::pair<std::string, std::string>>;
const std::string* find_label(const Labels& labels, const std::string& key);
void set_label(Labels& labels, std::string key, std::string value);

enum class TaintEffect : std::uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };
const char* to_string(TaintEffect e);
std::optional<TaintEffect> parse_taint_effect(const std::string& s);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
};

struct Toleration {
  enum class Operator : std::uint8_t { kEqual, kExists };
  std::string key;  // empty with kExists tolerates every taint
  Operator op = Operator::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;  // nullopt tolerates every effect
  // k8s.io/api/core/v1/toleration.go: ToleratesTaint.
  bool tolerates(const Taint& taint) const;
};

// core/v1 NodeSelectorRequirement (matchExpressions) and matchFields on metadata.name.
struct NodeSelectorRequirement {
  enum class Operator : std::uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Operator op = Operator::kIn;
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only key metadata.name is defined
};

struct PreferredSchedulingTerm {
  std::int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct NodeAffinity {
  std::vector<NodeSelectorTerm> required_terms;  // ORed; empty = no requirement
  std::vector<PreferredSchedulingTerm> preferred;
};

struct Node {
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  Resources capacity;
  Resources allocatable;
  std::int64_t allowed_pods = 110;  // status.allocatable.pods; kubelet's default maxPods
  std::uint64_t resource_version = 0;
};

struct Namespace {
  std::string name;
  std::uint64_t resource_version = 0;
};

struct Container {
  std::string name;
  // Only the resources named in the manifest; `requested` marks which slots were given.
  Resources requests;
  Resources limits;
  std::uint32_t requested_mask = 0;
  std::uint32_t limited_mask = 0;
};

// The immutable part of a pod: its spec. Pods created from the same workload profile share
// one template, which keeps a million pods small.
struct PodTemplate {
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  Labels labels;
  std::string scheduler_name = "default-scheduler";
  std::string priority_class_name;
  std::int32_t priority = 0;
  Labels node_selector;
  NodeAffinity affinity;
  bool has_affinity = false;
  std::vector<Toleration> tolerations;
  std::string node_name;  // spec.nodeName set by the user
  std::int64_t termination_grace_period_seconds = 30;

  // Derived once by finalize(): the pod's effective request as the scheduler computes it.
  Resources requests;          // computePodResourceRequest: max(Σ containers, max init)
  Resources nonzero_requests;  // cpu/memory with 100m / 200Mi defaults per container
  std::uint32_t requested_slots = 0;  // bit i set when requests[i] != 0
  void finalize();
};

enum class PodPhase : std::uint8_t { kPending, kRunning, kSucceeded, kFailed };
const char* to_string(PodPhase p);
inline bool is_terminal(PodPhase p) { return p == PodPhase::kSucceeded || p == PodPhase::kFailed; }

struct Pod {
  std::string name;
  NamespaceId ns;
  PodTemplateId spec;
  std::uint32_t workload_job = 0;  // index of the workload job this pod runs
  Duration run_time;               // how long the container runs once started
  Duration active_deadline;        // spec.activeDeadlineSeconds (the walltime); zero = none
  std::int32_t exit_code = 0;

  NodeId node;  // spec.nodeName once bound
  PodPhase phase = PodPhase::kPending;
  std::string reason;   // status.reason, e.g. OutOfcpu, DeadlineExceeded
  std::string message;  // status.message
  // status.conditions[PodScheduled]: False/Unschedulable with this message after a failed
  // attempt (empty: no such condition); True once scheduled is set.
  std::string unschedulable_message;
  std::uint64_t resource_version = 0;

  SimTime created = SimTime::never();
  SimTime scheduled = SimTime::never();  // PodScheduled=True (binding)
  SimTime start_time = SimTime::never(); // status.startTime: the kubelet accepted the pod
  SimTime started = SimTime::never();    // container startedAt
  SimTime finished = SimTime::never();   // container finishedAt
  std::uint32_t scheduling_attempts = 0; // simulator statistic, not an API field
};

}  // namespace kubesim
