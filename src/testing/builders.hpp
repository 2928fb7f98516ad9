// Fluent builders of the objects unit tests make over and over: nodes, pod templates, pods and
// workload jobs. Modelled on kube-scheduler's pkg/scheduler/testing/wrappers.go
// (MakePod().Name("p").Req(...).Obj(), MakeNode().Name("n").Capacity(...).Obj()): each setter
// returns the builder, build() returns the object. Quantities are written as in a manifest
// ("500m", "8Gi") and parsed by core/quantity.hpp, so a test reads like the YAML it stands for.
// Linked only into kubesim_tests (CMake target kubesim_testing).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/objects.hpp"
#include "workload/workload.hpp"

namespace kubesim::testing {

inline constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
inline constexpr std::string_view kGpu = "nvidia.com/gpu";

// A quantity as a resource amount: milli-units when `milli` (cpu), units otherwise. Aborts the
// test binary on a malformed quantity (a typo in a test, not an input under test).
std::int64_t quantity(std::string_view text, bool milli);

// A ready, schedulable node whose capacity equals its allocatable (Node's defaults otherwise:
// 110 pods). NodeBuilder("n1").cpu("4").memory("8Gi").label("zone", "a").taint("k", "v").build()
class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name);
  NodeBuilder& cpu(std::string_view amount);  // "4", "500m"
  NodeBuilder& cpu_milli(std::int64_t milli);
  NodeBuilder& memory(std::string_view amount);  // "8Gi"
  NodeBuilder& memory_bytes(std::int64_t bytes);
  // An extended resource (e.g. nvidia.com/gpu), its slot registered in `names`.
  NodeBuilder& resource(ResourceNames& names, std::string_view name, std::int64_t amount);
  NodeBuilder& gpu(ResourceNames& names, std::int64_t count) { return resource(names, kGpu, count); }
  NodeBuilder& pods(std::int64_t allowed);
  NodeBuilder& label(std::string key, std::string value);
  // kubernetes.io/hostname = the node's name, as the kubelet sets it.
  NodeBuilder& hostname_label();
  NodeBuilder& taint(std::string key, std::string value = "", TaintEffect effect = TaintEffect::kNoSchedule);
  NodeBuilder& unschedulable(bool on = true);
  NodeBuilder& not_ready();
  // Capacity above allocatable (system-reserved); set after the allocatable amounts.
  NodeBuilder& capacity(std::size_t slot, std::int64_t amount);
  Node build() const { return node_; }
  operator Node() const { return node_; }  // NOLINT: a builder stands where a Node is wanted

 private:
  void set(std::size_t slot, std::int64_t amount);
  Node node_;
};

// A pod template with one container "main" whose limits equal its requests (as Batkube built
// its jobs, workload/workload.hpp batch_job_template), finalized (PodTemplate::finalize).
// PodTemplateBuilder().cpu("500m").memory("1Gi").priority(10).node_selector("zone", "a").build()
class PodTemplateBuilder {
 public:
  PodTemplateBuilder();
  PodTemplateBuilder& cpu(std::string_view amount);
  PodTemplateBuilder& cpu_milli(std::int64_t milli);
  PodTemplateBuilder& memory(std::string_view amount);
  PodTemplateBuilder& memory_bytes(std::int64_t bytes);
  PodTemplateBuilder& resource(ResourceNames& names, std::string_view name, std::int64_t amount);
  PodTemplateBuilder& gpu(ResourceNames& names, std::int64_t count) { return resource(names, kGpu, count); }
  // Requests only: no limits (a Burstable pod), as a manifest without resources.limits.
  PodTemplateBuilder& no_limits();
  PodTemplateBuilder& scheduler(std::string name);
  PodTemplateBuilder& priority(std::int32_t value);
  PodTemplateBuilder& priority_class(std::string name);
  PodTemplateBuilder& preemption_policy(PreemptionPolicy policy);
  PodTemplateBuilder& label(std::string key, std::string value);
  PodTemplateBuilder& annotation(std::string key, std::string value);
  PodTemplateBuilder& node_selector(std::string key, std::string value);
  PodTemplateBuilder& toleration(Toleration t);
  // Tolerates `key` with Exists (any value), for `effect` (nullopt: every effect).
  PodTemplateBuilder& tolerate(std::string key, std::optional<TaintEffect> effect = std::nullopt);
  PodTemplateBuilder& required_term(NodeSelectorTerm term);
  PodTemplateBuilder& preferred_term(std::int32_t weight, NodeSelectorTerm term);
  PodTemplateBuilder& node_name(std::string name);
  PodTemplateBuilder& grace_seconds(std::int64_t seconds);
  PodTemplateBuilder& exits_on_sigterm(bool on = true);
  PodTemplate build() const;
  operator PodTemplate() const { return build(); }  // NOLINT: stands where a PodTemplate is wanted

 private:
  void set(std::size_t slot, std::int64_t amount);
  PodTemplate spec_;
  bool limits_ = true;
};

// A pod of a registered template: pending, or bound and running. Names default to "pod<N>" of
// the store's pod count at create(). PodBuilder(spec).name("a").on(node).started(at).build()
class PodBuilder {
 public:
  explicit PodBuilder(PodTemplateId spec);
  PodBuilder& name(std::string n);
  PodBuilder& ns(NamespaceId n);
  PodBuilder& created(SimTime at);
  // Bound to `node` and running since `at` (scheduled = start_time = started = at).
  PodBuilder& on(NodeId node, SimTime at = SimTime::zero());
  // Ended at `at` in `phase` (kSucceeded or kFailed); after on().
  PodBuilder& finished(SimTime at, PodPhase phase = PodPhase::kSucceeded);
  // A pod of workload job `index`; of a rigid parallel job, rank `rank` of `machines` machines.
  PodBuilder& of_job(std::uint32_t index, std::uint32_t machines = 0, std::uint32_t rank = 0);
  PodBuilder& nominated(NodeId node);
  PodBuilder& run_time(Duration d);
  Pod build() const { return pod_; }
  operator Pod() const { return pod_; }  // NOLINT: stands where a Pod is wanted

 private:
  Pod pod_;
};

// A workload job: a bare pod (or, with as_job(), a batch/v1 Job with parallelism =
// completions = 1) of template `tmpl`, submitted at `submit` s, its container running `run` s.
// Name and id are both `name`; profile "p". JobBuilder("job-1", 0, 100).tmpl(1).as_job().build()
class JobBuilder {
 public:
  JobBuilder(std::string name, double submit, double run);
  // A Batsim job: id `id` and no object name (the writers derive "<workload>-<id>").
  JobBuilder(int id, double submit, double run);
  JobBuilder& id(std::string id);  // a Batsim id differing from the object name
  JobBuilder& unnamed();           // no object name: the writers derive "<workload>-<id>"
  JobBuilder& tmpl(std::uint32_t index);
  JobBuilder& ns(NamespaceId n);
  JobBuilder& as_job(bool on = true);
  JobBuilder& indexed(std::int32_t completions, std::int32_t parallelism);
  JobBuilder& backoff_limit(std::int32_t limit);
  JobBuilder& walltime(double seconds);
  JobBuilder& profile(std::string name);
  JobBuilder& machines(std::uint32_t count);
  JobBuilder& requested_resources(std::int64_t res);
  JobBuilder& suspend(bool on = true);
  JobBuilder& job_label(std::string key, std::string value);
  // Fails with `exit_code` after `after` s (probability 1).
  JobBuilder& fails(std::int32_t exit_code, double after);
  WorkloadJob build() const { return job_; }
  operator WorkloadJob() const { return job_; }  // NOLINT: stands where a WorkloadJob is wanted

 private:
  WorkloadJob job_;
};

// A PodDisruptionBudget `name` in `ns` over the pods labelled key=value with minAvailable `min`.
PodDisruptionBudget min_available_pdb(std::string name, NamespaceId ns, std::string key, std::string value,
                                      std::int32_t min);

}  // namespace kubesim::testing
