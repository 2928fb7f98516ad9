// kube-scheduler's scheduler extenders (KubeSchedulerConfiguration `extenders:`, v1.26): HTTP
// services that filter and prioritize the nodes, bind and approve preemption victims for the
// pods they are interested in. Follows kubernetes v1.26:
//   pkg/scheduler/extender.go       HTTPExtender: Filter, Prioritize, Bind, ProcessPreemption,
//                                   IsInterested (managedResources), send (POST urlPrefix/verb)
//   pkg/scheduler/schedule_one.go   findNodesThatPassExtenders (each interested extender in
//                                   turn on the nodes the previous ones kept; a failing one
//                                   skipped if ignorable, else the pod fails with its error),
//                                   prioritizeNodes (score * weight * MaxNodeScore /
//                                   MaxExtenderPriority = 100/10 added to the plugins' total;
//                                   a failing prioritize adds nothing), extendersBinding
//   pkg/scheduler/framework/preemption/preemption.go  callExtenders
//   staging/src/k8s.io/kube-scheduler/extender/v1/types.go  the JSON (Go field names, no tags:
//                                   "Pod", "Nodes", "NodeNames", "FailedNodes", ...; read
//                                   case-insensitively, as encoding/json does)
//   pkg/scheduler/apis/config/validation/validation.go  validateExtenders
// Pods and nodes are sent as the API serves them (model/object_json.hpp).
//
// Time: the calls are synchronous and take no simulated time (the extender's latency is not
// modelled; a latency model's scheduling-cycle distribution can include it). HTTPS
// (enableHTTPS, tlsConfig, an https:// urlPrefix): extender_tls.hpp. A
// managed resource with ignoredByScheduler: true is added to every profile's NodeResourcesFit
// ignored resources (scheduler.go buildExtenders; sched/kube/profile.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/node_cache.hpp"
#include "core/time.hpp"
#include "core/yaml_input.hpp"
#include "model/object_store.hpp"
#include "sched/kube/extender/extender_tls.hpp"

namespace kubesim {

// One entry of `extenders:` (config/v1 types.go Extender).
struct ExtenderConfig {
  std::string url_prefix;
  std::string filter_verb, prioritize_verb, bind_verb, preempt_verb;
  std::int64_t weight = 0;
  Duration http_timeout = Duration::seconds(5);  // extender.go DefaultExtenderTimeout (0 in the file)
  bool node_cache_capable = false;
  std::vector<std::string> managed_resources;  // ExtenderManagedResource.name
  std::vector<std::string> ignored_by_scheduler;  // those with ignoredByScheduler: true
  bool ignorable = false;
  ExtenderTls tls;  // enableHTTPS, tlsConfig
};

// Reads `extenders:` (a list); fails through `in` (file:line) as validateExtenders does.
std::vector<ExtenderConfig> read_extender_configs(const YAML::Node& list, const YamlInput& in);

class HttpExtender;

// The configured extenders in order, and schedule_one.go's steps over them.
class Extenders {
 public:
  Extenders(std::vector<ExtenderConfig> configs, const ObjectStore& store);
  ~Extenders();

  // findNodesThatPassExtenders: narrows `nodes` (in order); `failed(node, reason, unresolvable)`
  // for each node an extender listed in FailedNodes / FailedAndUnresolvableNodes. Returns the
  // error of a failing extender that is not ignorable (the pod fails with it), else "".
  template <class Failed>
  std::string filter(PodId pod, std::vector<const NodeInfo*>& nodes, Failed&& failed);
  // prioritizeNodes' extender part: totals[i] += sum of score * weight * 10 for nodes[i].
  void prioritize(PodId pod, const std::vector<const NodeInfo*>& nodes, std::vector<std::int64_t>& totals);
  // extendersBinding: false if no binder extender is interested in the pod (the default
  // binder binds); else true with `error` empty when the extender bound it.
  bool bind(PodId pod, NodeId node, std::string& error);
  // callExtenders (preemption): `victims` maps each candidate node to its victims; replaced
  // by what the extenders approve (a node dropped, fewer victims). Returns an error text for
  // a failing extender that is not ignorable, else "".
  struct Victims {
    NodeId node;
    std::vector<PodId> pods;
    std::int64_t pdb_violations = 0;
  };
  bool any_preempt() const;
  // `pods_on(node)`: the cache's pods on a node, where approved victims are looked up by UID.
  std::string process_preemption(PodId pod, std::vector<Victims>& victims,
                                 const std::function<const std::vector<PodId>&(NodeId)>& pods_on);

 private:
  struct FilterFailure {
    NodeId node;
    std::string reason;
    bool unresolvable;
  };
  std::string filter_impl(PodId pod, std::vector<const NodeInfo*>& nodes, std::vector<FilterFailure>& failures);
  const ObjectStore& store_;
  std::vector<std::unique_ptr<HttpExtender>> extenders_;
  std::vector<FilterFailure> failures_;  // scratch
};

template <class Failed>
std::string Extenders::filter(PodId pod, std::vector<const NodeInfo*>& nodes, Failed&& failed) {
  failures_.clear();
  std::string error = filter_impl(pod, nodes, failures_);
  for (const FilterFailure& f : failures_) failed(f.node, f.reason, f.unresolvable);
  return error;
}

}  // namespace kubesim
