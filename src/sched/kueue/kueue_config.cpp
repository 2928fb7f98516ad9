#include "sched/kueue/kueue_config.hpp"

#include <algorithm>

#include "core/yaml_input.hpp"

namespace kubesim::kueue {
namespace {

// defaults.go: podOptions.namespaceSelector excludes kube-system and the manager's namespace.
LabelSelector default_pod_namespace_selector(const std::string& manager_ns) {
  LabelSelector s;
  s.match_expressions = {{"kubernetes.io/metadata.name", NodeSelectorRequirement::Operator::kNotIn, {"kube-system", manager_ns}}};
  return s;
}

class Reader : private YamlInput {
 public:
  Reader(const std::string& path, ResourceNames& names) : YamlInput(path), names_(names) {
    c_.pod_namespace_selector = default_pod_namespace_selector("kueue-system");
  }

  Config read(const std::vector<YAML::Node>& docs) {
    // Two passes: flavors and ClusterQueues first, so LocalQueues may come in any order.
    for (const auto& d : docs) {
      if (!d.IsDefined() || d.IsNull()) continue;
      require_map(d, "a Kueue object");
      const std::string kind = d["kind"] ? scalar(d["kind"], "kind") : "";
      if (kind == "ResourceFlavor") {
        read_flavor(d);
      } else if (kind == "Configuration") {
        read_configuration(d);
      } else if (kind != "ClusterQueue" && kind != "LocalQueue") {
        fail(d, "unsupported kind \"" + kind +
                    "\" (expected ResourceFlavor, ClusterQueue, LocalQueue or Configuration)");
      }
    }
    for (const auto& d : docs)
      if (d.IsMap() && d["kind"] && d["kind"].as<std::string>() == "ClusterQueue") read_cluster_queue(d);
    for (const auto& d : docs)
      if (d.IsMap() && d["kind"] && d["kind"].as<std::string>() == "LocalQueue") read_local_queue(d);
    if (c_.cluster_queues.empty()) throw InputError(path(), 0, "no ClusterQueue in the Kueue configuration");
    return std::move(c_);
  }

 private:
  std::string name_of(const YAML::Node& d, const std::string& kind, std::string* ns = nullptr) {
    if (!d["metadata"]) fail(d, kind + " has no metadata");
    const YAML::Node md = d["metadata"];
    require_map(md, kind + ".metadata");
    if (!md["name"]) fail(md, kind + " has no metadata.name");
    const std::string name = scalar(md["name"], kind + ".metadata.name");
    if (ns) {
      if (!md["namespace"]) fail(md, "LocalQueue " + name + " has no metadata.namespace");
      *ns = scalar(md["namespace"], "LocalQueue.metadata.namespace");
    }
    return name;
  }

  void read_flavor(const YAML::Node& d) {
    check_keys(d, {"apiVersion", "kind", "metadata", "spec"}, "ResourceFlavor");
    const std::string name = name_of(d, "ResourceFlavor");
    if (std::find(c_.flavors.begin(), c_.flavors.end(), name) != c_.flavors.end())
      fail(d, "duplicate ResourceFlavor \"" + name + "\"");
    if (const YAML::Node spec = d["spec"]; spec && !spec.IsNull()) {
      require_map(spec, "ResourceFlavor.spec");
      check_keys(spec, {}, {}, {"nodeLabels", "nodeTaints", "tolerations", "topologyName"}, "ResourceFlavor.spec");
    }
    c_.flavors.push_back(name);
  }

  void read_configuration(const YAML::Node& d) {
    // config.kueue.x-k8s.io/v1beta1 Configuration: the client's rate limits and the pod
    // integration matter here.
    check_keys(d, {"apiVersion", "kind", "clientConnection", "kubesim", "namespace", "integrations"},
               {"manageJobsWithoutQueueName", "internalCertManagement", "health", "metrics",
                "webhook", "leaderElection", "controller", "queueVisibility"},
               {"waitForPodsReady", "fairSharing", "resources", "multiKueue"}, "Configuration");
    const std::string manager_ns = d["namespace"] ? scalar(d["namespace"], "Configuration.namespace") : "kueue-system";
    c_.pod_namespace_selector = default_pod_namespace_selector(manager_ns);
    if (const YAML::Node in = d["integrations"]) {
      require_map(in, "Configuration.integrations");
      check_keys(in, {"frameworks", "podOptions"}, {"externalFrameworks", "labelKeysToCopy"}, {},
                 "Configuration.integrations");
      if (const YAML::Node f = in["frameworks"]) {
        require_list(f, "integrations.frameworks");
        for (const auto& name : f) c_.pod_integration |= scalar(name, "integrations.frameworks[]") == "pod";
      }
      if (const YAML::Node po = in["podOptions"]) {
        require_map(po, "integrations.podOptions");
        check_keys(po, {"namespaceSelector", "podSelector"}, "integrations.podOptions");
        if (const YAML::Node sel = po["namespaceSelector"]) {
          c_.pod_namespace_selector = LabelSelector{};
          read_selector(sel, "integrations.podOptions.namespaceSelector", c_.pod_namespace_selector);
        }
        if (const YAML::Node sel = po["podSelector"])
          read_selector(sel, "integrations.podOptions.podSelector", c_.pod_selector);
      }
    }
    if (const YAML::Node cc = d["clientConnection"]) {
      require_map(cc, "Configuration.clientConnection");
      check_keys(cc, {"qps", "burst"}, "Configuration.clientConnection");
      if (cc["qps"]) {
        const std::string s = scalar(cc["qps"], "clientConnection.qps");
        try {
          c_.qps = std::stod(s);
        } catch (...) {
          fail(cc["qps"], "expected clientConnection.qps to be a number, got \"" + s + "\"");
        }
        if (!(c_.qps > 0)) fail(cc["qps"], "clientConnection.qps must be positive");
      }
      if (cc["burst"]) c_.burst = static_cast<std::int32_t>(integer(cc["burst"], "clientConnection.burst", 1, 1000000));
    }
    if (const YAML::Node k = d["kubesim"]) {
      require_map(k, "Configuration.kubesim");
      check_keys(k, {"apiLatencyMicros"}, "Configuration.kubesim");
      if (k["apiLatencyMicros"])
        c_.api_latency = Duration::micros(integer(k["apiLatencyMicros"], "kubesim.apiLatencyMicros", 0, 60'000'000));
    }
  }

  Policy policy(const YAML::Node& n, const std::string& where, std::initializer_list<Policy> allowed) {
    const std::string s = scalar(n, where);
    static const std::pair<const char*, Policy> kNames[] = {{"Never", Policy::kNever},
                                                            {"LowerPriority", Policy::kLowerPriority},
                                                            {"LowerOrNewerEqualPriority", Policy::kLowerOrNewerEqualPriority},
                                                            {"Any", Policy::kAny}};
    std::string expected;
    for (const auto& [name, p] : kNames) {
      if (std::find(allowed.begin(), allowed.end(), p) == allowed.end()) continue;
      if (s == name) return p;
      expected += (expected.empty() ? "" : ", ") + std::string(name);
    }
    fail(n, "unknown " + where + " \"" + s + "\" (expected one of: " + expected + ")");
  }

  std::int64_t amount(const YAML::Node& n, std::uint8_t slot, const std::string& where) {
    const Quantity q = quantity(n, where);
    return slot == kCpu ? q.milli_value() : q.value();
  }

  void read_cluster_queue(const YAML::Node& d) {
    check_keys(d, {"apiVersion", "kind", "metadata", "spec"}, "ClusterQueue");
    ClusterQueueSpec cq;
    cq.name = name_of(d, "ClusterQueue");
    for (const auto& other : c_.cluster_queues)
      if (other.name == cq.name) fail(d, "duplicate ClusterQueue \"" + cq.name + "\"");
    if (!d["spec"]) fail(d, "ClusterQueue " + cq.name + " has no spec");
    const YAML::Node spec = d["spec"];
    const std::string w = "ClusterQueue " + cq.name;
    require_map(spec, w + ".spec");
    check_keys(spec, {"cohort", "namespaceSelector", "queueingStrategy", "resourceGroups", "preemption", "flavorFungibility"},
               {}, {"admissionChecks", "admissionChecksStrategy", "fairSharing", "stopPolicy"}, w + ".spec");
    if (spec["cohort"]) cq.cohort = string_or_null(spec["cohort"], w + ".spec.cohort");
    if (const YAML::Node sel = spec["namespaceSelector"]; sel && !sel.IsNull()) {
      cq.has_namespace_selector = true;
      read_selector(sel, w + ".spec.namespaceSelector", cq.namespace_selector);
    }
    if (spec["queueingStrategy"]) cq.strategy = queueing_strategy(spec["queueingStrategy"], w);
    if (const YAML::Node ff = spec["flavorFungibility"]) check_flavor_fungibility(ff, w);
    if (const YAML::Node p = spec["preemption"]) read_preemption(p, w, cq);
    if (spec["resourceGroups"]) {
      require_list(spec["resourceGroups"], w + ".spec.resourceGroups");
      std::vector<bool> covered_anywhere(kMaxResources, false);
      for (const auto& g : spec["resourceGroups"]) cq.groups.push_back(read_resource_group(g, w, cq, covered_anywhere));
    }
    c_.cluster_queues.push_back(std::move(cq));
  }

  // The parts of a ClusterQueueSpec (apis/kueue/v1beta1/clusterqueue_types.go):
  // queueingStrategy, flavorFungibility, ClusterQueuePreemption, ResourceGroup, FlavorQuotas.
  QueueingStrategy queueing_strategy(const YAML::Node& n, const std::string& w) {
    const std::string s = scalar(n, w + ".spec.queueingStrategy");
    if (s == "BestEffortFIFO") return QueueingStrategy::kBestEffortFIFO;
    if (s != "StrictFIFO") fail(n, "unknown queueingStrategy \"" + s + "\" (expected BestEffortFIFO or StrictFIFO)");
    return QueueingStrategy::kStrictFIFO;
  }

  void check_flavor_fungibility(const YAML::Node& ff, const std::string& w) {
    require_map(ff, w + ".spec.flavorFungibility");
    check_keys(ff, {"whenCanBorrow", "whenCanPreempt"}, w + ".spec.flavorFungibility");
    if (ff["whenCanBorrow"] && scalar(ff["whenCanBorrow"], "whenCanBorrow") != "Borrow")
      fail(ff["whenCanBorrow"], "flavorFungibility.whenCanBorrow other than Borrow is not supported by kubesim");
    if (ff["whenCanPreempt"] && scalar(ff["whenCanPreempt"], "whenCanPreempt") != "TryNextFlavor")
      fail(ff["whenCanPreempt"], "flavorFungibility.whenCanPreempt other than TryNextFlavor is not supported by kubesim");
  }

  void read_preemption(const YAML::Node& p, const std::string& w, ClusterQueueSpec& cq) {
    require_map(p, w + ".spec.preemption");
    check_keys(p, {"withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"}, w + ".spec.preemption");
    if (p["withinClusterQueue"])
      cq.within_cluster_queue = policy(p["withinClusterQueue"], "preemption.withinClusterQueue",
                                       {Policy::kNever, Policy::kLowerPriority, Policy::kLowerOrNewerEqualPriority});
    if (p["reclaimWithinCohort"])
      cq.reclaim_within_cohort = policy(p["reclaimWithinCohort"], "preemption.reclaimWithinCohort",
                                        {Policy::kNever, Policy::kLowerPriority, Policy::kAny});
    const YAML::Node b = p["borrowWithinCohort"];
    if (!b) return;
    require_map(b, w + ".spec.preemption.borrowWithinCohort");
    check_keys(b, {"policy", "maxPriorityThreshold"}, w + ".spec.preemption.borrowWithinCohort");
    if (b["policy"])
      cq.borrow_within_cohort = policy(b["policy"], "borrowWithinCohort.policy", {Policy::kNever, Policy::kLowerPriority});
    if (b["maxPriorityThreshold"])
      cq.max_priority_threshold = static_cast<std::int32_t>(
          integer(b["maxPriorityThreshold"], "borrowWithinCohort.maxPriorityThreshold", -2147483648LL, 2147483647LL));
    // clusterqueue_types.go validation: borrowWithinCohort needs reclaimWithinCohort.
    if (cq.borrow_within_cohort != Policy::kNever && cq.reclaim_within_cohort == Policy::kNever)
      fail(b, "borrowWithinCohort requires reclaimWithinCohort other than Never");
  }

  ResourceGroup read_resource_group(const YAML::Node& g, const std::string& w, const ClusterQueueSpec& cq,
                                    std::vector<bool>& covered_anywhere) {
    require_map(g, w + ".spec.resourceGroups[]");
    check_keys(g, {"coveredResources", "flavors"}, w + ".spec.resourceGroups[]");
    ResourceGroup group;
    if (!g["coveredResources"]) fail(g, "resource group has no coveredResources");
    require_list(g["coveredResources"], "coveredResources");
    for (const auto& r : g["coveredResources"]) {
      const std::string rn = scalar(r, "coveredResources[]");
      if (rn == "pods") fail(r, "the \"pods\" resource is not supported by kubesim");
      const int slot = names_.slot(rn);
      if (slot < 0) fail(r, "too many resource names (at most " + std::to_string(kMaxResources) + ")");
      if (covered_anywhere[static_cast<std::size_t>(slot)]) fail(r, "resource " + rn + " is covered by two resource groups");
      covered_anywhere[static_cast<std::size_t>(slot)] = true;
      group.covered.push_back(static_cast<std::uint8_t>(slot));
    }
    if (!g["flavors"]) fail(g, "resource group has no flavors");
    require_list(g["flavors"], "flavors");
    for (const auto& f : g["flavors"]) group.flavors.push_back(read_flavor_quotas(f, group, cq));
    return group;
  }

  FlavorQuotas read_flavor_quotas(const YAML::Node& f, const ResourceGroup& group, const ClusterQueueSpec& cq) {
    require_map(f, "flavors[]");
    check_keys(f, {"name", "resources"}, "flavors[]");
    const std::string fname = scalar(f["name"], "flavors[].name");
    const auto it = std::find(c_.flavors.begin(), c_.flavors.end(), fname);
    if (it == c_.flavors.end()) fail(f["name"], "no ResourceFlavor named \"" + fname + "\"");
    FlavorQuotas fq;
    fq.flavor = static_cast<std::uint32_t>(it - c_.flavors.begin());
    for (const auto& other : cq.groups)
      for (const auto& ofq : other.flavors)
        if (ofq.flavor == fq.flavor) fail(f, "flavor " + fname + " is used by two resource groups");
    fq.resources.resize(group.covered.size());
    std::vector<bool> seen(group.covered.size(), false);
    if (!f["resources"]) fail(f, "flavor " + fname + " has no resources");
    require_list(f["resources"], "resources");
    for (const auto& r : f["resources"]) read_resource_quota(r, group, cq, fq, seen);
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (!seen[i]) fail(f, "flavor " + fname + " has no quota for " + names_.name(group.covered[i]));
    return fq;
  }

  void read_resource_quota(const YAML::Node& r, const ResourceGroup& group, const ClusterQueueSpec& cq, FlavorQuotas& fq,
                           std::vector<bool>& seen) {
    require_map(r, "resources[]");
    check_keys(r, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"}, "resources[]");
    const std::string rn = scalar(r["name"], "resources[].name");
    const int slot = names_.find(rn);
    const auto pos = std::find(group.covered.begin(), group.covered.end(), static_cast<std::uint8_t>(slot));
    if (slot < 0 || pos == group.covered.end()) fail(r, "resource " + rn + " is not in coveredResources");
    const auto i = static_cast<std::size_t>(pos - group.covered.begin());
    if (seen[i]) fail(r, "duplicate resource " + rn);
    seen[i] = true;
    const auto s = static_cast<std::uint8_t>(slot);
    if (!r["nominalQuota"]) fail(r, "resource " + rn + " has no nominalQuota");
    fq.resources[i].nominal = amount(r["nominalQuota"], s, rn + ".nominalQuota");
    if (r["borrowingLimit"]) {
      if (cq.cohort.empty()) fail(r["borrowingLimit"], "borrowingLimit needs a cohort");
      fq.resources[i].borrowing_limit = amount(r["borrowingLimit"], s, rn + ".borrowingLimit");
    }
    if (r["lendingLimit"]) {
      if (cq.cohort.empty()) fail(r["lendingLimit"], "lendingLimit needs a cohort");
      fq.resources[i].lending_limit = amount(r["lendingLimit"], s, rn + ".lendingLimit");
      if (*fq.resources[i].lending_limit > fq.resources[i].nominal)
        fail(r["lendingLimit"], "lendingLimit must not exceed nominalQuota");
    }
  }

  void read_selector(const YAML::Node& sel, const std::string& where, LabelSelector& out) {
    require_map(sel, where);
    check_keys(sel, {"matchLabels", "matchExpressions"}, where);
    if (const YAML::Node ml = sel["matchLabels"]) {
      require_map(ml, where + ".matchLabels");
      for (const auto& kv : ml)
        out.match_labels.emplace_back(scalar(kv.first, "label key"), scalar(kv.second, "label value"));
    }
    if (const YAML::Node me = sel["matchExpressions"]) {
      require_list(me, where + ".matchExpressions");
      for (const auto& e : me) {
        require_map(e, where + ".matchExpressions[]");
        check_keys(e, {"key", "operator", "values"}, where + ".matchExpressions[]");
        NodeSelectorRequirement r;
        r.key = scalar(e["key"], "key");
        const std::string op = scalar(e["operator"], "operator");
        if (op == "In") r.op = NodeSelectorRequirement::Operator::kIn;
        else if (op == "NotIn") r.op = NodeSelectorRequirement::Operator::kNotIn;
        else if (op == "Exists") r.op = NodeSelectorRequirement::Operator::kExists;
        else if (op == "DoesNotExist") r.op = NodeSelectorRequirement::Operator::kDoesNotExist;
        else fail(e["operator"], "unknown operator \"" + op + "\" (expected In, NotIn, Exists or DoesNotExist)");
        if (e["values"]) {
          require_list(e["values"], "values");
          for (const auto& v : e["values"]) r.values.push_back(scalar(v, "values[]"));
        }
        out.match_expressions.push_back(std::move(r));
      }
    }
  }

  void read_local_queue(const YAML::Node& d) {
    check_keys(d, {"apiVersion", "kind", "metadata", "spec"}, "LocalQueue");
    LocalQueueSpec lq;
    lq.name = name_of(d, "LocalQueue", &lq.ns);
    for (const auto& other : c_.local_queues)
      if (other.name == lq.name && other.ns == lq.ns) fail(d, "duplicate LocalQueue \"" + lq.ns + "/" + lq.name + "\"");
    if (!d["spec"] || !d["spec"]["clusterQueue"]) fail(d, "LocalQueue " + lq.name + " has no spec.clusterQueue");
    check_keys(d["spec"], {"clusterQueue"}, {}, {"stopPolicy", "fairSharing"}, "LocalQueue.spec");
    const std::string cq = scalar(d["spec"]["clusterQueue"], "spec.clusterQueue");
    std::size_t i = 0;
    while (i < c_.cluster_queues.size() && c_.cluster_queues[i].name != cq) ++i;
    if (i == c_.cluster_queues.size()) fail(d["spec"]["clusterQueue"], "no ClusterQueue named \"" + cq + "\"");
    lq.cluster_queue = static_cast<std::uint32_t>(i);
    c_.local_queues.push_back(std::move(lq));
  }

  ResourceNames& names_;
  Config c_;
};

}  // namespace

Config parse_config(const std::string& text, const std::string& path, ResourceNames& names) {
  // A node of the wrong kind (a map where a scalar is expected, ...) throws from yaml-cpp's
  // conversions while reading: reported with the node's line like a syntax error.
  try {
    return Reader(path, names).read(load_all_yaml(text));
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e);
  }
}

Config load_config(const std::string& path, ResourceNames& names) {
  const std::vector<YAML::Node> docs = load_yaml_documents(path);
  try {
    return Reader(path, names).read(docs);
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e, "unexpected value: ");
  }
}

}  // namespace kubesim::kueue
