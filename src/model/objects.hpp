// The Kubernetes objects kubesim simulates, reduced to the fields that scheduling, the
// kubelet and the outputs use. Field names follow the Kubernetes API (core/v1).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/devices.hpp"
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
  bool ready = true;  // status.conditions[Ready] is True (false: Unknown, the kubelet is gone)
  // Its devices (model/devices.hpp), as the cluster declares them; empty: the anonymous whole
  // GPUs its allocatable nvidia.com/gpu counts, if any (NodeCache::set_node).
  std::vector<Device> devices;
  std::uint64_t resource_version = 0;
};

struct Namespace {
  std::string name;
  std::uint64_t resource_version = 0;
  bool deleted = false;  // removed through the API
};

// metav1.LabelSelector: matchLabels ANDed with matchExpressions (In, NotIn, Exists,
// DoesNotExist). An empty selector matches everything.
struct LabelSelector {
  Labels match_labels;
  std::vector<NodeSelectorRequirement> match_expressions;  // Gt/Lt are not valid here
  bool matches(const Labels& labels) const;
};

// scheduling.k8s.io/v1 PriorityClass.
enum class PreemptionPolicy : std::uint8_t { kPreemptLowerPriority, kNever };
struct PriorityClass {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
  PreemptionPolicy preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
};

// core/v1 ResourceQuota, reduced to what the pod evaluator (pkg/quota/v1/evaluator/core/
// pods.go) tracks: requests.<r> (and the bare <r> for cpu, memory, ephemeral-storage),
// limits.<r>, pods and count/pods. Other names (services, ...) are kept and never used by
// pods. status.used is maintained by admission (+) and the quota controller (-).
struct QuotaItem {
  enum class Kind : std::uint8_t { kRequests, kLimits, kPods, kOther };
  std::string name;  // as written in spec.hard, e.g. "requests.cpu"
  Kind kind = Kind::kOther;
  std::uint8_t slot = 0;  // resource slot for kRequests / kLimits
  std::int64_t hard = 0;  // milli for cpu, units otherwise (Quantity.Value / MilliValue)
  std::int64_t used = 0;
};
struct ResourceQuota {
  std::string name;
  NamespaceId ns;
  std::vector<QuotaItem> items;  // sorted by name
  std::uint64_t resource_version = 0;
};

// policy/v1 PodDisruptionBudget: exactly one of min_available / max_unavailable, each an
// absolute number or a percentage of the matching pods (rounded up, as upstream's
// intstr.GetScaledValueFromIntOrPercent with roundUp=true).
struct IntOrPercent {
  std::int32_t value = 0;
  bool percent = false;
  std::int32_t scaled(std::int32_t total) const { return percent ? (value * total + 99) / 100 : value; }
};
struct PodDisruptionBudget {
  std::string name;
  NamespaceId ns;
  LabelSelector selector;
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;

  // status.disruptionsAllowed as the disruption controller computes it
  // (pkg/controller/disruption/disruption.go): currentHealthy minus desiredHealthy
  // (minAvailable, or expectedCount - maxUnavailable), never below 0.
  std::int32_t disruptions_allowed(std::int32_t expected, std::int32_t healthy) const {
    std::int32_t desired = 0;
    if (min_available) {
      desired = min_available->scaled(expected);
    } else if (max_unavailable) {
      desired = expected - max_unavailable->scaled(expected);
      if (desired < 0) desired = 0;
    }
    return healthy > desired ? healthy - desired : 0;
  }
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
  Labels annotations;  // metadata.annotations (sorted by key, as labels)
  std::string scheduler_name = "default-scheduler";
  std::string priority_class_name;
  std::int32_t priority = 0;  // resolved from the PriorityClass at admission
  PreemptionPolicy preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
  Labels node_selector;
  NodeAffinity affinity;
  bool has_affinity = false;
  std::vector<Toleration> tolerations;
  // Devices to be given at binding, each request its own devices (model/devices.hpp); a
  // `nvidia.com/gpu` extended-resource request is not listed here (it takes whole devices).
  std::vector<DeviceRequest> device_requests;
  std::string node_name;  // spec.nodeName set by the user
  std::int64_t termination_grace_period_seconds = 30;
  // The container exits at SIGTERM whatever the kubelet model's default says: the pause
  // image of YuniKorn's placeholders (kubernetes build/pause/linux/pause.c: its SIGTERM
  // handler exits).
  bool exits_on_sigterm = false;

  // Derived once by finalize(): the pod's effective request as the scheduler computes it.
  Resources requests;          // computePodResourceRequest: max(Σ containers, max init)
  Resources nonzero_requests;  // cpu/memory with 100m / 200Mi defaults per container
  std::uint32_t requested_slots = 0;  // bit i set when requests[i] != 0
  void finalize();
};

enum class PodPhase : std::uint8_t { kPending, kRunning, kSucceeded, kFailed };
const char* to_string(PodPhase p);
inline bool is_terminal(PodPhase p) { return p == PodPhase::kSucceeded || p == PodPhase::kFailed; }

// Why a pod is being disrupted: the reason of its DisruptionTarget condition
// (k8s.io/api/core/v1 types.go, PodDisruptionConditions, beta and on in v1.26).
enum class DisruptionReason : std::uint8_t {
  kNone,
  kPreemptionByScheduler,   // "PreemptionByKubeScheduler"
  kDeletionByTaintManager,  // "DeletionByTaintManager"
  kEvictionByEvictionAPI,   // "EvictionByEvictionAPI" (kubectl drain)
  kDeletionByUser,          // a plain delete: no DisruptionTarget condition
  kDeletionByPodGC,         // "DeletionByPodGC" (a pod bound to a node that does not exist)
};
const char* to_string(DisruptionReason r);

// Pod::workload_job of a pod that runs no workload job: one a scheduler created (YuniKorn's
// placeholders). It is a pod like any other (pods.csv lists it, with no job_id), but no job
// of jobs.csv and no work item of the tenant metrics.
inline constexpr std::uint32_t kNoWorkloadJob = 0xffffffffu;

// A pod's status text (reason, message, the PodScheduled=False message): empty for almost
// every pod of a large run, so it costs one pointer there instead of a whole std::string
// (the pod table is the largest structure of a run, and its size is its cost: page faults
// and cache misses). Reads as a const std::string&; assignment and comparison as one.
class ColdText {
 public:
  ColdText() = default;
  ColdText(const ColdText& o) : text_(o.text_ ? std::make_unique<std::string>(*o.text_) : nullptr) {}
  ColdText(ColdText&&) noexcept = default;
  ColdText& operator=(const ColdText& o) {
    if (this != &o) *this = o.str();
    return *this;
  }
  ColdText& operator=(ColdText&&) noexcept = default;
  ColdText& operator=(std::string s) {
    if (s.empty()) {
      text_.reset();
    } else if (text_) {
      *text_ = std::move(s);
    } else {
      text_ = std::make_unique<std::string>(std::move(s));
    }
    return *this;
  }
  ColdText& operator=(const char* s) { return *this = std::string(s); }

  const std::string& str() const { return text_ ? *text_ : empty_text(); }
  operator const std::string&() const { return str(); }  // NOLINT: reads as the string
  bool empty() const { return !text_; }
  void clear() { text_.reset(); }
  const char* c_str() const { return str().c_str(); }
  friend bool operator==(const ColdText& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const ColdText& a, const char* b) { return a.str() == b; }

 private:
  static const std::string& empty_text() {
    static const std::string kEmpty;
    return kEmpty;
  }
  std::unique_ptr<std::string> text_;  // null: empty
};

// A pod's rarely-set fields behind one pointer (null for almost every pod, so, as ColdText,
// one pointer in the pod table): spec.schedulingGates and the devices the pod was given (its
// binding's). Pod::scheduling_gates is this block, read as the gates' names (iteration,
// push_back, erase, comparison); Pod::devices() reads the grants of the same block.
class PodColdFields {
 public:
  PodColdFields() = default;
  PodColdFields(const PodColdFields& o) : block_(o.block_ ? std::make_unique<Block>(*o.block_) : nullptr) {}
  PodColdFields(PodColdFields&&) noexcept = default;
  PodColdFields& operator=(const PodColdFields& o) {
    if (this != &o) block_ = o.block_ ? std::make_unique<Block>(*o.block_) : nullptr;
    return *this;
  }
  PodColdFields& operator=(PodColdFields&&) noexcept = default;

  // ---- spec.schedulingGates ----
  bool empty() const { return !block_ || block_->gates.empty(); }
  const std::string* begin() const { return block_ ? block_->gates.data() : nullptr; }
  const std::string* end() const { return block_ ? block_->gates.data() + block_->gates.size() : nullptr; }
  void push_back(std::string s) { block().gates.push_back(std::move(s)); }
  // Removes the name `at` points to (one of this list's).
  void erase(const std::string* at) {
    block_->gates.erase(block_->gates.begin() + (at - block_->gates.data()));
    trim();
  }
  friend bool operator==(const PodColdFields& a, const std::vector<std::string>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

  // ---- the devices given to the pod (model/devices.hpp) ----
  std::span<const DeviceGrant> devices() const {
    return block_ ? std::span<const DeviceGrant>(block_->devices) : std::span<const DeviceGrant>();
  }
  void set_devices(DeviceGrants grants) {
    if (grants.empty() && !block_) return;
    block().devices = std::move(grants);
    trim();
  }

 private:
  struct Block {
    std::vector<std::string> gates;
    DeviceGrants devices;
  };
  Block& block() {
    if (!block_) block_ = std::make_unique<Block>();
    return *block_;
  }
  void trim() {
    if (block_->gates.empty() && block_->devices.empty()) block_.reset();
  }
  std::unique_ptr<Block> block_;  // null: no gates, no devices (never an empty block)
};

struct Pod {
  // Fields ordered by size, 4-byte ones together, so the struct has no padding holes.
  std::string name;
  NamespaceId ns;
  PodTemplateId spec;
  JobId job;                       // the owning batch/v1 Job, if any
  std::uint32_t workload_job = 0;  // index of the workload job this pod runs (or kNoWorkloadJob)
  // An Indexed Job's pod: its batch.kubernetes.io/job-completion-index annotation; -1 otherwise.
  std::int32_t completion_index = -1;
  std::int32_t exit_code = 0;
  // A rigid parallel job (Batsim `res` = P without a cpu request): the job's P pods, created
  // together, each one whole machine; `machine_rank` is this pod's index among them. Zero: a
  // pod that is not part of such a job.
  std::uint32_t machines = 0;
  std::uint32_t machine_rank = 0;
  Duration run_time;               // how long the container runs once started
  Duration active_deadline;        // spec.activeDeadlineSeconds (the walltime); zero = none

  NodeId node;  // spec.nodeName once bound
  NodeId nominated_node;  // status.nominatedNodeName (set by preemption)
  std::uint32_t scheduling_attempts = 0; // simulator statistic, not an API field
  PodPhase phase = PodPhase::kPending;
  DisruptionReason disruption = DisruptionReason::kNone;  // see deletion_requested
  bool deleted = false;  // removed from the API (a Deleted change was announced)
  // PodScheduled=False's reason is SchedulerError, not Unschedulable: the failed attempt was
  // an error, not a FitError (schedule_one.go v1.26 handleSchedulingFailure).
  bool scheduler_error = false;
  ColdText reason;   // status.reason, e.g. OutOfcpu, DeadlineExceeded
  ColdText message;  // status.message
  // status.conditions[PodScheduled]: False/Unschedulable with this message after a failed
  // attempt (empty: no such condition); True once scheduled is set.
  ColdText unschedulable_message;
  std::uint64_t resource_version = 0;

  SimTime created = SimTime::never();
  SimTime scheduled = SimTime::never();  // PodScheduled=True (binding)
  SimTime start_time = SimTime::never(); // status.startTime: the kubelet accepted the pod
  SimTime pulling = SimTime::never();    // the kubelet's image pull began (Event Pulling)
  SimTime pulled = SimTime::never();     // image present (Event Pulled)
  SimTime container_created = SimTime::never();  // container created (Event Created)
  SimTime started = SimTime::never();    // container startedAt (Event Started)
  SimTime finished = SimTime::never();   // container finishedAt

  // Graceful deletion: metadata.deletionTimestamp is `deletion_requested` plus the grace
  // period; the pod stays (and keeps its node's resources) until its containers stop.
  SimTime deletion_requested = SimTime::never();
  Duration deletion_grace;
  // spec.schedulingGates (KEP-3521, beta and on by default from v1.27): set at creation (a
  // mutating admission webhook, e.g. Kueue's kueue.x-k8s.io/admission), only ever removed;
  // kube-scheduler does not schedule the pod while one remains.
  // The block also holds the devices the pod was given (devices()): one pointer for both.
  PodColdFields scheduling_gates;

  // The devices of its node the binding gave the pod (indices into Node::devices, or into
  // its anonymous devices); empty for a pod given none.
  std::span<const DeviceGrant> devices() const { return scheduling_gates.devices(); }
  bool terminating() const { return !deletion_requested.is_never(); }
};

// batch/v1 Job (non-indexed, restartPolicy Never), spec and status as the Job controller
// (pkg/controller/job/job_controller.go) reads and writes them.
enum class JobCondition : std::uint8_t { kNone, kComplete, kFailed };
struct Job {
  std::string name;
  NamespaceId ns;
  PodTemplateId spec;
  std::int32_t parallelism = 1;
  std::int32_t completions = 1;
  std::int32_t backoff_limit = 6;
  SimTime created = SimTime::never();
  std::uint32_t workload_job = 0;  // index of the workload job this Job runs
  Labels labels;         // metadata.labels (e.g. kueue.x-k8s.io/queue-name)
  bool suspend = false;  // spec.suspend: the Job controller creates no pods while true
  bool indexed = false;  // spec.completionMode Indexed (else NonIndexed)

  // status
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  std::int32_t ready = 0;
  std::string completed_indexes;  // Indexed: status.completedIndexes, e.g. "0-2,5"
  SimTime start_time = SimTime::never();
  SimTime completion_time = SimTime::never();
  JobCondition condition = JobCondition::kNone;
  std::string condition_reason;  // BackoffLimitExceeded, ...
  std::string condition_message;
  SimTime condition_time = SimTime::never();
  // The JobSuspended condition: none yet, True ("JobSuspended") or False ("JobResumed").
  enum class Suspended : std::uint8_t { kNone, kTrue, kFalse };
  Suspended suspended_condition = Suspended::kNone;
  std::uint64_t resource_version = 0;
  bool deleted = false;  // removed from the API (a Deleted change was announced)

  bool finished() const { return condition != JobCondition::kNone; }
};

}  // namespace kubesim
