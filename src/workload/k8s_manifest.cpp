#include "workload/k8s_manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"
#include "core/yaml_input.hpp"

namespace kubesim {

NamespaceId Manifests::intern_namespace(const std::string& name) {
  if (auto id = find_namespace(name)) return *id;
  namespaces.push_back(name);
  return NamespaceId(static_cast<std::uint32_t>(namespaces.size() - 1));
}

std::optional<NamespaceId> Manifests::find_namespace(const std::string& name) const {
  for (std::size_t i = 0; i < namespaces.size(); ++i)
    if (namespaces[i] == name) return NamespaceId(static_cast<std::uint32_t>(i));
  return std::nullopt;
}

std::optional<Duration> parse_sleep_duration(const std::string& text) {
  std::string_view s = trim(text);
  if (s.empty()) return std::nullopt;
  double scale = 1;
  switch (s.back()) {
    case 's': scale = 1; s.remove_suffix(1); break;
    case 'm': scale = 60; s.remove_suffix(1); break;
    case 'h': scale = 3600; s.remove_suffix(1); break;
    case 'd': scale = 86400; s.remove_suffix(1); break;
    default: break;
  }
  if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.')) return std::nullopt;  // no exponents, inf, nan
  auto v = parse_double(s);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  const double seconds = *v * scale;
  if (seconds < 0 || seconds > 1e12) return std::nullopt;
  return Duration::from_seconds(seconds);
}

namespace {

constexpr std::int64_t kHighestUserDefinablePriority = 1'000'000'000;  // pkg/apis/scheduling/types.go
constexpr std::int64_t kDefaultBackoffLimit = 6;                       // pkg/apis/batch/v1/defaults.go
constexpr std::int64_t kDefaultGracePeriod = 30;                       // v1.DefaultTerminationGracePeriodSeconds

// k8s.io/apimachinery/pkg/util/validation/validation.go: IsDNS1123Subdomain (IsDNS1123Label is in
// core/yaml_input).
bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view part = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (part.empty()) return false;
    for (char c : part)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    if (part.front() == '-' || part.back() == '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_hugepages(std::string_view name) { return name.rfind("hugepages-", 0) == 0 && name.size() > 10; }

// pkg/apis/core/helper: IsExtendedResourceName (domain-qualified, outside kubernetes.io).
bool is_extended_resource_name(std::string_view name) {
  std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == name.size()) return false;
  std::string_view domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || domain == "requests") return false;
  if (domain.size() > 14 && domain.substr(domain.size() - 14) == ".kubernetes.io") return false;
  return true;
}

struct KubesimAnnotations {
  std::optional<Duration> duration;
  std::optional<SimTime> submit_at;
  std::optional<double> fail_probability;
  std::optional<std::int32_t> exit_code;
  std::optional<Duration> fail_after;
  YAML::Node exit_node, after_node;  // for errors about their combination
  // The openb GPU annotations (model/devices.hpp kGpu*Annotation), with their nodes for errors.
  std::optional<std::int32_t> gpu_milli, gpu_count;
  std::string gpu_models;
  YAML::Node gpu_node, models_node;
  Labels all;  // every annotation as written (the pod's metadata.annotations)
};

struct Meta {
  std::string name;
  std::string ns;
  Labels labels;
  KubesimAnnotations kubesim;
  YAML::Node node;
  YAML::Node ns_node;
};

struct PodSpecResult {
  PodTemplate spec;
  std::optional<Duration> sleep;  // from the containers' commands
  YAML::Node missing_sleep;       // the first container without a sleep command
  bool sleep_missing = false;
  std::string restart_policy;     // as written (or "Always" by default)
  YAML::Node restart_node;
  Duration walltime;
};

class Reader : YamlInput {
 public:
  Reader(std::string file, ResourceNames& names, Manifests& out, const ManifestOptions& options)
      : YamlInput(std::move(file)), names_(names), out_(out), opt_(options) {}

  void object(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return;  // an empty document
    require_map(n, "a manifest object");
    const YAML::Node kind_node = n["kind"];
    if (!kind_node) fail(n, "expected a manifest object with a kind");
    const std::string kind = scalar(kind_node, "kind");
    const YAML::Node api_node = n["apiVersion"];
    if (!api_node) fail(n, "expected " + kind + " to have an apiVersion");
    const std::string api = scalar(api_node, "apiVersion");
    auto want_api = [&](const char* expected) {
      if (api != expected)
        fail(api_node, "expected apiVersion " + std::string(expected) + " for kind " + kind + ", got \"" + api + "\"");
    };
    if (opt_.only_jobs && kind != "Job" && kind != "Pod" && kind != "List")
      fail(kind_node, "expected kind Job or Pod here, got \"" + kind + "\"");
    if (kind == "List") {
      want_api("v1");
      check_keys(n, {"apiVersion", "kind", "items", "metadata"}, {}, {}, "List");
      const YAML::Node items = n["items"];
      if (!items) return;
      if (!items.IsSequence()) fail(items, std::string("expected List items to be a list, got ") + type_name(items));
      for (std::size_t i = 0; i < items.size(); ++i) object(items[i]);
    } else if (kind == "Namespace") {
      want_api("v1");
      namespace_(n);
    } else if (kind == "ResourceQuota") {
      want_api("v1");
      quota(n);
    } else if (kind == "PriorityClass") {
      want_api("scheduling.k8s.io/v1");
      priority_class(n);
    } else if (kind == "PodDisruptionBudget") {
      want_api("policy/v1");
      pdb(n);
    } else if (kind == "Job") {
      want_api("batch/v1");
      job(n);
    } else if (kind == "Pod") {
      want_api("v1");
      pod(n);
    } else {
      fail(kind_node, "kind \"" + kind +
                          "\" is not modelled (expected Namespace, ResourceQuota, PriorityClass, "
                          "PodDisruptionBudget, Job or Pod)");
    }
  }

 private:
  // ---- generic helpers -------------------------------------------------------------
  std::vector<std::string> string_list(const YAML::Node& n, const std::string& where) const {
    require_list(n, where);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n.size(); ++i) out.push_back(scalar(n[i], where + "[" + std::to_string(i) + "]"));
    return out;
  }

  Labels string_map(const YAML::Node& n, const std::string& where) const {
    require_map(n, where);
    Labels out;
    std::set<std::string> seen;
    for (const auto& kv : n) {
      std::string key = scalar(kv.first, "a key of " + where);
      if (key.empty()) fail(kv.first, "expected the keys of " + where + " to be non-empty");
      if (!seen.insert(key).second) fail(kv.first, "duplicate key \"" + key + "\" in " + where);
      std::string value = string_or_null(kv.second, where + "." + key);
      set_label(out, std::move(key), std::move(value));
    }
    return out;
  }

  Duration seconds(const YAML::Node& n, const std::string& where) const {
    const std::string s = scalar(n, where);
    auto d = parse_sleep_duration(s);
    if (!d) fail(n, "expected " + where + " to be a non-negative number of seconds, got \"" + s + "\"");
    return *d;
  }

  // ---- metadata --------------------------------------------------------------------
  KubesimAnnotations annotations(const YAML::Node& n, const std::string& where, bool object_level) const {
    require_map(n, where);
    KubesimAnnotations a;
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string key = scalar(kv.first, "a key of " + where);
      if (!seen.insert(key).second) fail(kv.first, "duplicate key \"" + key + "\" in " + where);
      if (key.rfind("kubesim.io/", 0) != 0) {
        set_label(a.all, key, string_or_null(kv.second, where + "." + key));
        gpu_annotation(key, kv.second, a);
        continue;
      }
      const std::string what = "annotation " + key;
      const YAML::Node v = kv.second;
      if (key == "kubesim.io/duration") {
        a.duration = seconds(v, what);
      } else if (key == "kubesim.io/submit-at") {
        if (!object_level) fail(kv.first, "expected " + key + " on the Job's or Pod's own metadata, not in its template");
        a.submit_at = SimTime::at(seconds(v, what));
      } else if (key == "kubesim.io/fail-probability") {
        const std::string s = scalar(v, what);
        auto p = parse_double(s);
        if (!p || !(*p >= 0 && *p <= 1)) fail(v, "expected " + what + " to be a number from 0 to 1, got \"" + s + "\"");
        a.fail_probability = *p;
      } else if (key == "kubesim.io/exit-code") {
        a.exit_code = static_cast<std::int32_t>(integer(v, what, 1, 255));
        a.exit_node.reset(v);
      } else if (key == "kubesim.io/fail-after") {
        a.fail_after = seconds(v, what);
        a.after_node.reset(v);
      } else {
        fail(kv.first, "unknown annotation \"" + key +
                           "\" (expected kubesim.io/duration, kubesim.io/submit-at, kubesim.io/fail-probability, "
                           "kubesim.io/exit-code or kubesim.io/fail-after)");
      }
      set_label(a.all, key, v.Scalar());
    }
    return a;
  }

  // The openb annotations (the FGD authors' open-gpu-share, utils/pod.go): gpu-milli per GPU
  // (0..1000), gpu-count (0..1024), gpu-card-model (an any-of list "A|B").
  void gpu_annotation(const std::string& key, const YAML::Node& v, KubesimAnnotations& a) const {
    const std::string what = "annotation " + key;
    if (key == kGpuMilliAnnotation) {
      a.gpu_milli = static_cast<std::int32_t>(integer(v, what, 0, kDeviceShareUnits));
      if (!a.gpu_node) a.gpu_node.reset(v);
    } else if (key == kGpuCountAnnotation) {
      a.gpu_count = static_cast<std::int32_t>(integer(v, what, 0, 1024));
      if (!a.gpu_node) a.gpu_node.reset(v);
    } else if (key == kGpuModelAnnotation) {
      a.gpu_models = scalar(v, what);
      a.models_node.reset(v);
    }
  }

  // The pod's GPU request from its openb annotations (none when both are absent or zero), on
  // a finalized template.
  void gpu_request(const KubesimAnnotations& a, PodTemplate& spec) const {
    const std::int32_t milli = a.gpu_milli.value_or(0);
    const std::int32_t count = a.gpu_count.value_or(0);
    if (milli == 0 && count == 0) return;
    if (milli == 0 || count == 0)
      fail(a.gpu_node, std::string("expected both ") + kGpuMilliAnnotation + " and " + kGpuCountAnnotation +
                           " above 0 (a GPU request needs both; 0 and 0 asks for no GPU)");
    if (count > 1 && milli < kDeviceShareUnits)
      fail(a.gpu_node, std::string("expected ") + kGpuMilliAnnotation + " 1000 when " + kGpuCountAnnotation +
                           " is above 1 (only a one-GPU pod may ask for a share of a GPU)");
    const int slot = names_.find(kGpuDeviceClass);
    if (slot >= 0 && spec.requests[static_cast<std::size_t>(slot)] > 0)
      fail(a.gpu_node, std::string("expected either ") + kGpuCountAnnotation + " or an nvidia.com/gpu request, not both");
    DeviceRequest r = gpu_device_request(count, milli, a.gpu_models);
    if (opt_.gpu_models) {
      for (const std::string& m : r.models)
        if (!opt_.gpu_models->count(m))
          fail(a.models_node, "unknown GPU model \"" + m + "\" in annotation " + kGpuModelAnnotation +
                                  " (no node of the cluster has it)");
    }
    spec.device_requests.push_back(std::move(r));
  }

  // `scope`: "namespaced", "cluster" or "template" (a pod template's metadata: no name needed).
  Meta meta(const YAML::Node& obj, const std::string& kind, const std::string& scope) {
    Meta m;
    const YAML::Node md = obj["metadata"];
    const std::string where = scope == "template" ? "spec.template.metadata" : kind + " metadata";
    if (!md) {
      if (scope == "template") return m;
      fail(obj, "expected " + kind + " to have metadata with a name");
    }
    m.node.reset(md);
    require_map(md, where);
    if (opt_.api_object) {
      check_keys(md, {"name", "namespace", "labels", "annotations"},
                 {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "finalizers",
                  "ownerReferences", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "generateName"},
                 {}, where);
    } else {
      check_keys(md, {"name", "namespace", "labels", "annotations"},
                 {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "finalizers",
                  "ownerReferences", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"},
                 {"generateName"}, where);
    }
    if (const YAML::Node name = md["name"]) {
      m.name = scalar(name, where + ".name");
      const bool ok = kind == "Namespace" ? is_dns1123_label(m.name) : is_dns1123_subdomain(m.name);
      if (scope != "template" && !ok)
        fail(name, "expected " + where + ".name to be a lowercase RFC 1123 " +
                       (kind == "Namespace" ? "label" : "subdomain") + ", got \"" + m.name + "\"");
    } else if (scope != "template") {
      fail(md, "expected " + where + " to have a name");
    }
    if (const YAML::Node ns = md["namespace"]; ns && scope == "namespaced") {
      m.ns = scalar(ns, where + ".namespace");
      m.ns_node.reset(ns);
      if (!is_dns1123_label(m.ns))
        fail(ns, "expected " + where + ".namespace to be a lowercase RFC 1123 label, got \"" + m.ns + "\"");
    }
    if (scope == "namespaced") {
      if (m.ns.empty()) m.ns = opt_.default_namespace;
      if (opt_.only_default_namespace && m.ns != opt_.default_namespace)
        fail(m.ns_node, "expected namespace \"" + opt_.default_namespace + "\" here, got \"" + m.ns + "\"");
    }
    auto present = [&](const YAML::Node& x) { return x && !(opt_.api_object && x.IsNull()); };
    if (const YAML::Node l = md["labels"]; present(l)) m.labels = string_map(l, where + ".labels");
    if (const YAML::Node a = md["annotations"]; present(a)) m.kubesim = annotations(a, where + ".annotations", scope != "template");
    return m;
  }

  std::string where_of(const YAML::Node& n) const { return path() + ":" + std::to_string(line_of(n)); }

  // ---- Namespace, PriorityClass, ResourceQuota, PDB ----------------------------------
  void namespace_(const YAML::Node& n) {
    check_keys(n, {"apiVersion", "kind", "metadata"}, {"spec", "status"}, {}, "Namespace");
    Meta m = meta(n, "Namespace", "cluster");
    out_.intern_namespace(m.name);
  }

  void priority_class(const YAML::Node& n) {
    check_keys(n, {"apiVersion", "kind", "metadata", "value", "globalDefault", "preemptionPolicy"}, {"description"}, {},
               "PriorityClass");
    Meta m = meta(n, "PriorityClass", "cluster");
    PriorityClass pc;
    pc.name = m.name;
    const YAML::Node value = n["value"];
    if (!value) fail(n, "expected PriorityClass \"" + pc.name + "\" to have a value");
    const std::int64_t v = integer(value, "PriorityClass value", INT32_MIN, INT32_MAX);
    // pkg/apis/scheduling/validation/validation.go: only system- classes may exceed 1e9,
    // and the system- prefix is reserved.
    if (pc.name.rfind("system-", 0) == 0)
      fail(m.node, "expected a PriorityClass name without the reserved \"system-\" prefix, got \"" + pc.name + "\"");
    if (v > kHighestUserDefinablePriority)
      fail(value, "expected PriorityClass value to be at most 1000000000 (HighestUserDefinablePriority), got " +
                      std::to_string(v));
    pc.value = static_cast<std::int32_t>(v);
    if (const YAML::Node g = n["globalDefault"]) pc.global_default = boolean(g, "globalDefault");
    if (const YAML::Node p = n["preemptionPolicy"]) {
      const std::string s = scalar(p, "preemptionPolicy");
      if (s == "PreemptLowerPriority") {
        pc.preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
      } else if (s == "Never") {
        pc.preemption_policy = PreemptionPolicy::kNever;
      } else {
        fail(p, "expected preemptionPolicy PreemptLowerPriority or Never, got \"" + s + "\"");
      }
    }
    for (std::size_t i = 0; i < out_.priority_classes.size(); ++i) {
      if (out_.priority_classes[i].name == pc.name)
        fail(n, "duplicate PriorityClass \"" + pc.name + "\" (also at " + out_.priority_class_where[i] + ")");
      // plugin/pkg/admission/priority: only one globalDefault class.
      if (pc.global_default && out_.priority_classes[i].global_default)
        fail(n, "expected at most one globalDefault PriorityClass (\"" + out_.priority_classes[i].name +
                    "\" at " + out_.priority_class_where[i] + " is one already)");
    }
    out_.priority_classes.push_back(std::move(pc));
    out_.priority_class_where.push_back(where_of(n));
  }

  void quota(const YAML::Node& n) {
    check_keys(n, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, {}, "ResourceQuota");
    Meta m = meta(n, "ResourceQuota", "namespaced");
    ResourceQuota q;
    q.name = m.name;
    q.ns = out_.intern_namespace(m.ns);
    if (const YAML::Node spec = n["spec"]) {
      require_map(spec, "ResourceQuota spec");
      check_keys(spec, {"hard"}, {}, {"scopes", "scopeSelector"}, "ResourceQuota spec");
      if (const YAML::Node hard = spec["hard"]) {
        require_map(hard, "spec.hard");
        std::set<std::string> seen;
        for (const auto& kv : hard) {
          const std::string name = scalar(kv.first, "a resource name in spec.hard");
          if (!seen.insert(name).second) fail(kv.first, "duplicate resource \"" + name + "\" in spec.hard");
          q.items.push_back(quota_item(name, kv.first, kv.second));
        }
      }
    }
    std::sort(q.items.begin(), q.items.end(), [](const QuotaItem& a, const QuotaItem& b) { return a.name < b.name; });
    for (std::size_t i = 0; i < out_.quotas.size(); ++i)
      if (out_.quotas[i].name == q.name && out_.quotas[i].ns == q.ns)
        fail(n, "duplicate ResourceQuota \"" + m.ns + "/" + q.name + "\" (also at " + out_.quota_where[i] + ")");
    out_.quotas.push_back(std::move(q));
    out_.quota_where.push_back(where_of(n));
  }

  QuotaItem quota_item(const std::string& name, const YAML::Node& key, const YAML::Node& value) {
    QuotaItem item;
    item.name = name;
    std::string resource;  // the compute resource, when the item tracks one
    if (name == "pods" || name == "count/pods") {
      item.kind = QuotaItem::Kind::kPods;
    } else if (name == "cpu" || name == "memory" || name == "ephemeral-storage") {
      item.kind = QuotaItem::Kind::kRequests;
      resource = name;
    } else if (name.rfind("requests.", 0) == 0) {
      resource = name.substr(9);
      if (resource == "cpu" || resource == "memory" || resource == "ephemeral-storage" || is_hugepages(resource) ||
          is_extended_resource_name(resource)) {
        item.kind = QuotaItem::Kind::kRequests;
      } else {
        resource.clear();  // e.g. requests.storage: a PVC quota, never used by pods
      }
    } else if (name.rfind("limits.", 0) == 0) {
      resource = name.substr(7);
      if (resource == "cpu" || resource == "memory" || resource == "ephemeral-storage") {
        item.kind = QuotaItem::Kind::kLimits;
      } else if (is_extended_resource_name(resource) || is_hugepages(resource)) {
        // https://kubernetes.io/docs/concepts/policy/resource-quotas/#resource-quota-for-extended-resources
        fail(key, "expected requests." + resource + ": quota on extended resources only allows the requests. prefix");
      } else {
        resource.clear();
      }
    }
    Quantity qty = quantity(value, "spec.hard." + name);
    if (!resource.empty()) {
      const int slot = names_.slot(resource);
      if (slot < 0)
        fail(key, "too many resource kinds: \"" + resource + "\" does not fit (at most " +
                      std::to_string(kMaxResources) + ")");
      item.slot = static_cast<std::uint8_t>(slot);
    }
    item.hard = resource == "cpu" ? qty.milli_value() : qty.value();
    return item;
  }

  NodeSelectorRequirement requirement(const YAML::Node& n, const std::string& where, bool label_selector,
                                      bool field) const {
    require_map(n, where);
    check_keys(n, {"key", "operator", "values"}, {}, {}, where);
    NodeSelectorRequirement r;
    const YAML::Node key = n["key"];
    if (!key) fail(n, "expected " + where + " to have a key");
    r.key = scalar(key, where + ".key");
    if (r.key.empty()) fail(key, "expected " + where + ".key to be non-empty");
    const YAML::Node op = n["operator"];
    if (!op) fail(n, "expected " + where + " to have an operator");
    const std::string o = scalar(op, where + ".operator");
    using Op = NodeSelectorRequirement::Operator;
    if (o == "In") r.op = Op::kIn;
    else if (o == "NotIn") r.op = Op::kNotIn;
    else if (o == "Exists" && !field) r.op = Op::kExists;
    else if (o == "DoesNotExist" && !field) r.op = Op::kDoesNotExist;
    else if (o == "Gt" && !label_selector && !field) r.op = Op::kGt;
    else if (o == "Lt" && !label_selector && !field) r.op = Op::kLt;
    else
      fail(op, "expected " + where + ".operator to be " +
                   (field ? "In or NotIn" : label_selector ? "In, NotIn, Exists or DoesNotExist"
                                                           : "In, NotIn, Exists, DoesNotExist, Gt or Lt") +
                   ", got \"" + o + "\"");
    if (const YAML::Node v = n["values"]; v && !v.IsNull()) r.values = string_list(v, where + ".values");
    // pkg/apis/core/validation/validation.go: ValidateNodeSelectorRequirement,
    // ValidateNodeFieldSelectorRequirement; apimachinery ValidateLabelSelectorRequirement.
    const YAML::Node at = n["values"] ? n["values"] : n;
    if (field) {
      if (r.key != "metadata.name") fail(key, "expected " + where + ".key to be metadata.name, got \"" + r.key + "\"");
      if (r.values.size() != 1) fail(at, "expected exactly one value in " + where + ".values");
    } else if (r.op == Op::kIn || r.op == Op::kNotIn) {
      if (r.values.empty()) fail(at, "expected " + where + ".values to be non-empty for operator " + o);
    } else if (r.op == Op::kExists || r.op == Op::kDoesNotExist) {
      if (!r.values.empty()) fail(at, "expected " + where + ".values to be empty for operator " + o);
    } else {
      if (r.values.size() != 1 || !parse_int(r.values[0]))
        fail(at, "expected " + where + ".values to be a single integer for operator " + o);
    }
    return r;
  }

  LabelSelector label_selector(const YAML::Node& n, const std::string& where) const {
    require_map(n, where);
    check_keys(n, {"matchLabels", "matchExpressions"}, {}, {}, where);
    LabelSelector s;
    if (const YAML::Node l = n["matchLabels"]; l && !l.IsNull()) s.match_labels = string_map(l, where + ".matchLabels");
    if (const YAML::Node e = n["matchExpressions"]; e && !e.IsNull()) {
      require_list(e, where + ".matchExpressions");
      for (std::size_t i = 0; i < e.size(); ++i)
        s.match_expressions.push_back(
            requirement(e[i], where + ".matchExpressions[" + std::to_string(i) + "]", true, false));
    }
    return s;
  }

  IntOrPercent int_or_percent(const YAML::Node& n, const std::string& where) const {
    const std::string s = scalar(n, where);
    IntOrPercent v;
    std::string_view digits = s;
    if (!digits.empty() && digits.back() == '%') {
      v.percent = true;
      digits.remove_suffix(1);
    }
    auto i = parse_int(digits);
    // pkg/apis/policy/validation: ValidatePositiveIntOrPercent and IsValidPercent (<= 100%).
    if (!i || *i < 0 || (v.percent && *i > 100) || *i > INT32_MAX || digits.empty() || digits.front() == '+')
      fail(n, "expected " + where + " to be a non-negative integer or a percentage \"N%\" (0-100), got \"" + s + "\"");
    v.value = static_cast<std::int32_t>(*i);
    return v;
  }

  void pdb(const YAML::Node& n) {
    check_keys(n, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, {}, "PodDisruptionBudget");
    Meta m = meta(n, "PodDisruptionBudget", "namespaced");
    PodDisruptionBudget p;
    p.name = m.name;
    p.ns = out_.intern_namespace(m.ns);
    const YAML::Node spec = n["spec"];
    if (!spec) fail(n, "expected PodDisruptionBudget to have a spec");
    require_map(spec, "PodDisruptionBudget spec");
    check_keys(spec, {"selector", "minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy"}, {}, {},
               "PodDisruptionBudget spec");
    const YAML::Node sel = spec["selector"];
    // policy/v1: a null selector selects no pods; we require one rather than model "none".
    if (!sel || sel.IsNull()) fail(spec, "expected spec.selector (a PodDisruptionBudget without one selects no pods)");
    p.selector = label_selector(sel, "spec.selector");
    const YAML::Node min = spec["minAvailable"];
    const YAML::Node max = spec["maxUnavailable"];
    if (min && max) fail(max, "expected only one of spec.minAvailable and spec.maxUnavailable");
    if (min) p.min_available = int_or_percent(min, "spec.minAvailable");
    if (max) p.max_unavailable = int_or_percent(max, "spec.maxUnavailable");
    if (const YAML::Node u = spec["unhealthyPodEvictionPolicy"]) {
      const std::string s = scalar(u, "spec.unhealthyPodEvictionPolicy");
      if (s == "AlwaysAllow") fail(u, "spec.unhealthyPodEvictionPolicy AlwaysAllow is not supported by kubesim");
      if (s != "IfHealthyBudget")
        fail(u, "expected spec.unhealthyPodEvictionPolicy IfHealthyBudget or AlwaysAllow, got \"" + s + "\"");
    }
    for (std::size_t i = 0; i < out_.pod_disruption_budgets.size(); ++i)
      if (out_.pod_disruption_budgets[i].name == p.name && out_.pod_disruption_budgets[i].ns == p.ns)
        fail(n, "duplicate PodDisruptionBudget \"" + m.ns + "/" + p.name + "\" (also at " + out_.pdb_where[i] + ")");
    out_.pod_disruption_budgets.push_back(std::move(p));
    out_.pdb_where.push_back(where_of(n));
  }

  // ---- PodSpec ---------------------------------------------------------------------
  void resources(const YAML::Node& n, const std::string& where, Resources& out, std::uint32_t& mask) {
    require_map(n, where);
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string name = scalar(kv.first, "a resource name in " + where);
      if (!seen.insert(name).second) fail(kv.first, "duplicate resource \"" + name + "\" in " + where);
      if (!(name == "cpu" || name == "memory" || name == "ephemeral-storage" || is_hugepages(name) ||
            is_extended_resource_name(name)))
        fail(kv.first, "unknown resource \"" + name + "\" in " + where +
                           " (expected cpu, memory, ephemeral-storage, hugepages-<size> or a domain-qualified "
                           "extended resource such as nvidia.com/gpu)");
      const std::string what = where + "." + name;
      Quantity q = quantity(kv.second, what);
      const int slot = names_.slot(name);
      if (slot < 0)
        fail(kv.first, "too many resource kinds: \"" + name + "\" does not fit (at most " +
                           std::to_string(kMaxResources) + ")");
      out[static_cast<std::size_t>(slot)] = slot == static_cast<int>(kCpu) ? q.milli_value() : q.value();
      mask |= 1u << slot;
    }
  }

  // Returns the container's sleep, if its command is one.
  std::optional<Duration> sleep_of(const YAML::Node& c, const std::string& where) const {
    std::vector<std::string> cmd, args;
    if (const YAML::Node n = c["command"]; n && !n.IsNull()) cmd = string_list(n, where + ".command");
    if (const YAML::Node n = c["args"]; n && !n.IsNull()) args = string_list(n, where + ".args");
    std::vector<std::string> all = cmd;
    all.insert(all.end(), args.begin(), args.end());
    if (cmd.empty() || all.empty()) return std::nullopt;  // the image's entrypoint: unknown
    const std::string& prog = all[0];
    if ((prog == "sleep" || prog == "/bin/sleep" || prog == "/usr/bin/sleep") && all.size() == 2)
      return parse_sleep_duration(all[1]);
    if ((prog == "sh" || prog == "/bin/sh" || prog == "bash" || prog == "/bin/bash") && all.size() == 3 &&
        all[1] == "-c") {
      std::string_view script = trim(all[2]);
      if (script.rfind("exec ", 0) == 0) script = trim(script.substr(5));
      if (script.rfind("sleep ", 0) == 0) return parse_sleep_duration(std::string(script.substr(6)));
    }
    return std::nullopt;
  }

  Container container(const YAML::Node& c, const std::string& where, std::set<std::string>& names, bool init,
                      std::optional<Duration>& sleep) {
    require_map(c, where);
    check_keys(c, {"name", "image", "command", "args", "resources"},
               {"imagePullPolicy", "env", "envFrom", "ports", "volumeMounts", "volumeDevices", "workingDir",
                "securityContext", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
                "terminationMessagePath", "terminationMessagePolicy", "stdin", "stdinOnce", "tty", "resizePolicy"},
               {"restartPolicy"}, where);
    Container out;
    const YAML::Node name = c["name"];
    if (!name) fail(c, "expected " + where + " to have a name");
    out.name = scalar(name, where + ".name");
    if (!is_dns1123_label(out.name))
      fail(name, "expected " + where + ".name to be a lowercase RFC 1123 label, got \"" + out.name + "\"");
    if (!names.insert(out.name).second) fail(name, "duplicate container name \"" + out.name + "\"");
    const YAML::Node image = c["image"];
    if (!image || scalar(image, where + ".image").empty()) fail(image ? image : c, "expected " + where + " to have an image");
    if (const YAML::Node r = c["resources"]; r && !r.IsNull()) {
      require_map(r, where + ".resources");
      check_keys(r, {"requests", "limits"}, {}, {"claims"}, where + ".resources");
      if (const YAML::Node l = r["limits"]; l && !l.IsNull())
        resources(l, where + ".resources.limits", out.limits, out.limited_mask);
      if (const YAML::Node q = r["requests"]; q && !q.IsNull())
        resources(q, where + ".resources.requests", out.requests, out.requested_mask);
      // pkg/apis/core/v1/defaults.go SetDefaults_Pod: a limit without a request defaults the request.
      for (std::size_t i = 0; i < kMaxResources; ++i) {
        const std::uint32_t bit = 1u << i;
        if ((out.limited_mask & bit) && !(out.requested_mask & bit)) {
          out.requests[i] = out.limits[i];
          out.requested_mask |= bit;
        }
      }
      // pkg/apis/core/validation/validation.go ValidateResourceRequirements.
      for (std::size_t i = 0; i < kMaxResources; ++i) {
        const std::uint32_t bit = 1u << i;
        const std::string& rn = names_.name(i);
        const bool overcommit = i == kCpu || i == kMemory || i == kEphemeralStorage;
        if (!(out.requested_mask & bit)) continue;
        if (!overcommit && !(out.limited_mask & bit))
          fail(r, where + ": expected a limit for " + rn + " (it cannot be overcommitted)");
        if ((out.limited_mask & bit) && out.requests[i] > out.limits[i])
          fail(r, where + ": expected the " + rn + " request to be at most the " + rn + " limit");
        if (!overcommit && out.requests[i] != out.limits[i])
          fail(r, where + ": expected the " + rn + " request to equal its limit (it cannot be overcommitted)");
      }
    }
    sleep = sleep_of(c, where);
    (void)init;
    return out;
  }

  void node_selector_term(const YAML::Node& n, const std::string& where, NodeSelectorTerm& t) const {
    require_map(n, where);
    check_keys(n, {"matchExpressions", "matchFields"}, {}, {}, where);
    if (const YAML::Node e = n["matchExpressions"]; e && !e.IsNull()) {
      require_list(e, where + ".matchExpressions");
      for (std::size_t i = 0; i < e.size(); ++i)
        t.match_expressions.push_back(
            requirement(e[i], where + ".matchExpressions[" + std::to_string(i) + "]", false, false));
    }
    if (const YAML::Node f = n["matchFields"]; f && !f.IsNull()) {
      require_list(f, where + ".matchFields");
      for (std::size_t i = 0; i < f.size(); ++i)
        t.match_fields.push_back(requirement(f[i], where + ".matchFields[" + std::to_string(i) + "]", false, true));
    }
  }

  void affinity(const YAML::Node& n, PodTemplate& t) const {
    require_map(n, "affinity");
    check_keys(n, {"nodeAffinity"}, {}, {"podAffinity", "podAntiAffinity"}, "affinity");
    const YAML::Node na = n["nodeAffinity"];
    if (!na || na.IsNull()) return;
    require_map(na, "affinity.nodeAffinity");
    check_keys(na, {"requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"},
               {}, {}, "affinity.nodeAffinity");
    t.has_affinity = true;
    if (const YAML::Node req = na["requiredDuringSchedulingIgnoredDuringExecution"]; req && !req.IsNull()) {
      const std::string w = "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
      require_map(req, w);
      check_keys(req, {"nodeSelectorTerms"}, {}, {}, w);
      const YAML::Node terms = req["nodeSelectorTerms"];
      if (!terms || !terms.IsSequence() || terms.size() == 0)
        fail(terms ? terms : req, "expected " + w + ".nodeSelectorTerms to be a non-empty list");
      for (std::size_t i = 0; i < terms.size(); ++i) {
        NodeSelectorTerm term;
        node_selector_term(terms[i], w + ".nodeSelectorTerms[" + std::to_string(i) + "]", term);
        t.affinity.required_terms.push_back(std::move(term));
      }
    }
    if (const YAML::Node pref = na["preferredDuringSchedulingIgnoredDuringExecution"]; pref && !pref.IsNull()) {
      const std::string w = "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
      require_list(pref, w);
      for (std::size_t i = 0; i < pref.size(); ++i) {
        const std::string wi = w + "[" + std::to_string(i) + "]";
        require_map(pref[i], wi);
        check_keys(pref[i], {"weight", "preference"}, {}, {}, wi);
        PreferredSchedulingTerm p;
        const YAML::Node weight = pref[i]["weight"];
        if (!weight) fail(pref[i], "expected " + wi + " to have a weight");
        p.weight = static_cast<std::int32_t>(integer(weight, wi + ".weight", 1, 100));
        const YAML::Node preference = pref[i]["preference"];
        if (!preference) fail(pref[i], "expected " + wi + " to have a preference");
        node_selector_term(preference, wi + ".preference", p.preference);
        t.affinity.preferred.push_back(std::move(p));
      }
    }
  }

  void tolerations(const YAML::Node& n, PodTemplate& t) const {
    require_list(n, "tolerations");
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string w = "tolerations[" + std::to_string(i) + "]";
      const YAML::Node x = n[i];
      require_map(x, w);
      check_keys(x, {"key", "operator", "value", "effect"}, {}, {"tolerationSeconds"}, w);
      Toleration tol;
      if (const YAML::Node k = x["key"]) tol.key = string_or_null(k, w + ".key");
      std::string op = "Equal";
      if (const YAML::Node o = x["operator"]) op = string_or_null(o, w + ".operator");
      if (op.empty()) op = "Equal";
      if (op == "Exists") {
        tol.op = Toleration::Operator::kExists;
      } else if (op != "Equal") {
        fail(x["operator"], "expected " + w + ".operator Equal or Exists, got \"" + op + "\"");
      }
      if (const YAML::Node v = x["value"]) tol.value = string_or_null(v, w + ".value");
      // pkg/apis/core/validation/validation.go ValidateTolerations.
      if (tol.key.empty() && tol.op != Toleration::Operator::kExists)
        fail(x, "expected " + w + ".operator Exists when the key is empty");
      if (tol.op == Toleration::Operator::kExists && !tol.value.empty())
        fail(x["value"], "expected " + w + ".value to be empty when the operator is Exists");
      if (const YAML::Node e = x["effect"]) {
        const std::string s = string_or_null(e, w + ".effect");
        if (!s.empty()) {
          auto eff = parse_taint_effect(s);
          if (!eff) fail(e, "expected " + w + ".effect NoSchedule, PreferNoSchedule or NoExecute, got \"" + s + "\"");
          tol.effect = *eff;
        }
      }
      t.tolerations.push_back(std::move(tol));
    }
  }

  PodSpecResult pod_spec(const YAML::Node& n, const std::string& where) {
    require_map(n, where);
    // Fields the apiserver sets (priority admission): clients send them back on create, a
    // manifest file must not carry them.
    if (!opt_.api_object)
      for (const char* admitted : {"priority", "preemptionPolicy"})
        if (const YAML::Node k = n[admitted]) fail(k, where + "." + admitted + " is not supported by kubesim");
    check_keys(n,
               {"containers", "initContainers", "nodeSelector", "affinity", "tolerations", "schedulerName",
                "priorityClassName", "terminationGracePeriodSeconds", "nodeName", "restartPolicy",
                "activeDeadlineSeconds"},
               {"volumes", "serviceAccountName", "serviceAccount", "automountServiceAccountToken", "securityContext",
                "imagePullSecrets", "hostname", "subdomain", "dnsPolicy", "dnsConfig", "hostNetwork", "hostPID",
                "hostIPC", "shareProcessNamespace", "enableServiceLinks", "hostAliases", "runtimeClassName",
                "readinessGates", "os", "setHostnameAsFQDN", "hostUsers", "priority", "preemptionPolicy"},
               {"topologySpreadConstraints", "overhead", "schedulingGates", "resourceClaims", "ephemeralContainers",
                "resources"},
               where);
    PodSpecResult r;
    PodTemplate& t = r.spec;
    std::set<std::string> container_names;
    const YAML::Node cs = n["containers"];
    if (!cs || !cs.IsSequence() || cs.size() == 0) fail(cs ? cs : n, "expected " + where + ".containers to be a non-empty list");
    Duration init_total;
    if (const YAML::Node ics = n["initContainers"]; ics && !ics.IsNull()) {
      require_list(ics, where + ".initContainers");
      for (std::size_t i = 0; i < ics.size(); ++i) {
        std::optional<Duration> s;
        t.init_containers.push_back(
            container(ics[i], where + ".initContainers[" + std::to_string(i) + "]", container_names, true, s));
        if (s) init_total += *s;  // init containers run one after another; one without sleep counts 0
      }
    }
    std::optional<Duration> main_max;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      std::optional<Duration> s;
      t.containers.push_back(container(cs[i], where + ".containers[" + std::to_string(i) + "]", container_names, false, s));
      if (!s) {
        if (!r.sleep_missing) r.missing_sleep.reset(cs[i]);
        r.sleep_missing = true;
      } else if (!main_max || *s > *main_max) {
        main_max = *s;
      }
    }
    if (!r.sleep_missing) r.sleep = init_total + *main_max;
    if (const YAML::Node s = n["nodeSelector"]; s && !s.IsNull()) t.node_selector = string_map(s, where + ".nodeSelector");
    if (const YAML::Node a = n["affinity"]; a && !a.IsNull()) affinity(a, t);
    if (const YAML::Node tl = n["tolerations"]; tl && !tl.IsNull()) tolerations(tl, t);
    if (const YAML::Node s = n["schedulerName"]) {
      t.scheduler_name = string_or_null(s, where + ".schedulerName");
      if (t.scheduler_name.empty()) t.scheduler_name = "default-scheduler";
    }
    if (const YAML::Node p = n["priorityClassName"]) t.priority_class_name = string_or_null(p, where + ".priorityClassName");
    t.termination_grace_period_seconds = kDefaultGracePeriod;
    if (const YAML::Node g = n["terminationGracePeriodSeconds"])
      t.termination_grace_period_seconds = integer(g, where + ".terminationGracePeriodSeconds", 0, INT64_MAX / 2'000'000);
    if (const YAML::Node nn = n["nodeName"]) t.node_name = string_or_null(nn, where + ".nodeName");
    r.restart_policy = "Always";  // SetDefaults_PodSpec
    r.restart_node.reset(n);
    if (const YAML::Node rp = n["restartPolicy"]) {
      r.restart_policy = scalar(rp, where + ".restartPolicy");
      r.restart_node.reset(rp);
      if (r.restart_policy != "Always" && r.restart_policy != "OnFailure" && r.restart_policy != "Never")
        fail(rp, "expected " + where + ".restartPolicy Always, OnFailure or Never, got \"" + r.restart_policy + "\"");
    }
    if (const YAML::Node d = n["activeDeadlineSeconds"])
      r.walltime = Duration::seconds(integer(d, where + ".activeDeadlineSeconds", 1, 1'000'000'000'000));
    return r;
  }

  // Fills run time and failure model from the kubesim annotations and the containers' sleeps.
  void run_time(ManifestJob& mj, const PodSpecResult& ps, const KubesimAnnotations& a, const YAML::Node& at) const {
    if (a.duration) {
      mj.job.run_time = *a.duration;
    } else if (ps.sleep) {
      mj.job.run_time = *ps.sleep;
    } else if (opt_.api_object) {
      mj.job.run_time = Duration::max();  // no known end: runs until deleted
    } else {
      fail(ps.missing_sleep,
           "expected the container to run `sleep N` (command [\"sleep\", \"N\"], command [\"sleep\"] with args "
           "[\"N\"], or [\"sh\", \"-c\", \"sleep N\"]) or the " + mj.kind +
               " to have a kubesim.io/duration annotation, so kubesim knows how long it runs");
    }
    if (a.fail_probability) {
      mj.job.failure.probability = *a.fail_probability;
      if (a.exit_code) mj.job.failure.exit_code = *a.exit_code;
      mj.job.failure.after = a.fail_after;
    } else if (a.exit_code || a.fail_after) {
      fail(a.exit_code ? a.exit_node : a.after_node,
           "expected kubesim.io/fail-probability with kubesim.io/exit-code and kubesim.io/fail-after");
    }
    mj.submit_at = a.submit_at;
    mj.job.submit = a.submit_at.value_or(SimTime::zero());
    mj.job.walltime = ps.walltime;
    mj.line = line_of(at);
    mj.file = path();
  }

  static KubesimAnnotations merge(KubesimAnnotations outer, const KubesimAnnotations& inner) {
    if (inner.duration) outer.duration = inner.duration;
    if (inner.fail_probability) outer.fail_probability = inner.fail_probability;
    if (inner.exit_code) {
      outer.exit_code = inner.exit_code;
      outer.exit_node.reset(inner.exit_node);
    }
    if (inner.fail_after) {
      outer.fail_after = inner.fail_after;
      outer.after_node.reset(inner.after_node);
    }
    return outer;
  }

  void job(const YAML::Node& n) {
    check_keys(n, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, {}, "Job");
    Meta m = meta(n, "Job", "namespaced");
    const YAML::Node spec = n["spec"];
    if (!spec) fail(n, "expected Job \"" + m.name + "\" to have a spec");
    require_map(spec, "Job spec");
    check_keys(spec, {"parallelism", "completions", "backoffLimit", "template", "completionMode", "suspend"},
               {"ttlSecondsAfterFinished", "selector", "manualSelector"},
               {"activeDeadlineSeconds", "podFailurePolicy", "backoffLimitPerIndex", "maxFailedIndexes",
                "podReplacementPolicy", "successPolicy", "managedBy"},
               "Job spec");
    ManifestJob mj;
    mj.kind = "Job";
    WorkloadJob& j = mj.job;
    j.as_job = true;
    j.name = m.name;
    j.ns = out_.intern_namespace(m.ns);
    // pkg/apis/batch/v1/defaults.go SetDefaults_Job.
    const YAML::Node par = spec["parallelism"];
    const YAML::Node comp = spec["completions"];
    j.parallelism = par ? static_cast<std::int32_t>(integer(par, "spec.parallelism", 1, INT32_MAX)) : 1;
    if (comp) {
      j.completions = static_cast<std::int32_t>(integer(comp, "spec.completions", 1, INT32_MAX));
    } else if (j.parallelism == 1) {
      j.completions = 1;  // both unset default to 1; a work queue of one pod is the same
    } else {
      fail(par, "work-queue Jobs (spec.parallelism > 1 without spec.completions) are not supported by kubesim");
    }
    j.backoff_limit = kDefaultBackoffLimit;
    if (const YAML::Node b = spec["backoffLimit"])
      j.backoff_limit = static_cast<std::int32_t>(integer(b, "spec.backoffLimit", 0, INT32_MAX));
    if (const YAML::Node cm = spec["completionMode"]) {
      const std::string s = scalar(cm, "spec.completionMode");
      if (s != "NonIndexed" && s != "Indexed") fail(cm, "expected spec.completionMode NonIndexed or Indexed, got \"" + s + "\"");
      // pkg/apis/batch/validation/validation.go: an Indexed Job needs spec.completions.
      if (s == "Indexed" && !comp) fail(cm, "spec.completions: Required value: when completion mode is Indexed");
      j.indexed = s == "Indexed";
    }
    // A suspended Job gets no pods until a client (e.g. Kueue's manager) sets it false.
    if (const YAML::Node s = spec["suspend"]) j.suspend = boolean(s, "spec.suspend");
    const YAML::Node tmpl = spec["template"];
    if (!tmpl) fail(spec, "expected Job \"" + m.name + "\" to have spec.template");
    require_map(tmpl, "spec.template");
    check_keys(tmpl, {"metadata", "spec"}, {}, {}, "spec.template");
    Meta tm = meta(tmpl, "Job", "template");
    const YAML::Node pspec = tmpl["spec"];
    if (!pspec) fail(tmpl, "expected spec.template to have a spec");
    PodSpecResult ps = pod_spec(pspec, "spec.template.spec");
    // pkg/apis/batch/validation/validation.go: a Job's pods restart OnFailure or Never.
    if (ps.restart_policy == "OnFailure")
      fail(ps.restart_node, "restartPolicy OnFailure is not supported by kubesim (use Never)");
    if (ps.restart_policy == "Always")
      fail(ps.restart_node, std::string("expected spec.template.spec.restartPolicy Never (batch/v1 accepts OnFailure or "
                                        "Never; ") +
                                (pspec["restartPolicy"] ? "Always is invalid)" : "the default Always is invalid)"));
    ps.spec.labels = tm.labels;
    ps.spec.annotations = tm.kubesim.all;  // the template's annotations are the pods'
    // pkg/registry/batch/job/strategy.go: the controller's labels on the Job's pods.
    set_label(ps.spec.labels, "batch.kubernetes.io/job-name", m.name);
    set_label(ps.spec.labels, "job-name", m.name);
    run_time(mj, ps, merge(m.kubesim, tm.kubesim), n);
    mj.spec = std::move(ps.spec);
    mj.spec.finalize();
    gpu_request(tm.kubesim, mj.spec);
    out_.jobs.push_back(std::move(mj));
  }

  void pod(const YAML::Node& n) {
    check_keys(n, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, {}, "Pod");
    Meta m = meta(n, "Pod", "namespaced");
    const YAML::Node spec = n["spec"];
    if (!spec) fail(n, "expected Pod \"" + m.name + "\" to have a spec");
    ManifestJob mj;
    mj.kind = "Pod";
    mj.job.as_job = false;
    mj.job.name = m.name;
    mj.job.ns = out_.intern_namespace(m.ns);
    PodSpecResult ps = pod_spec(spec, "spec");
    // An API pod that restarts Always never ends (its container is restarted): it runs until
    // deleted, which is all kubesim needs to model of it.
    const bool runs_forever = opt_.api_object && ps.restart_policy == "Always";
    if (ps.restart_policy != "Never" && !runs_forever)
      fail(ps.restart_node, "restartPolicy " + ps.restart_policy + (spec["restartPolicy"] ? "" : " (the default)") +
                                " is not supported by kubesim for a Pod: set restartPolicy: Never");
    ps.spec.labels = m.labels;
    ps.spec.annotations = m.kubesim.all;
    run_time(mj, ps, m.kubesim, n);
    if (runs_forever) mj.job.run_time = Duration::max();
    mj.spec = std::move(ps.spec);
    mj.spec.finalize();
    gpu_request(m.kubesim, mj.spec);
    out_.jobs.push_back(std::move(mj));
  }

  ResourceNames& names_;
  Manifests& out_;
  ManifestOptions opt_;
};

}  // namespace

void read_manifest_node(const YAML::Node& object, const std::string& file, ResourceNames& names, Manifests& out,
                        const ManifestOptions& options) {
  try {
    Reader(file, names, out, options).object(object);
  } catch (const YAML::Exception& e) {
    throw yaml_error(file, e);
  }
}

void read_manifest_file(const std::string& path, ResourceNames& names, Manifests& out, const ManifestOptions& options) {
  for (const auto& doc : load_yaml_documents(path)) read_manifest_node(doc, path, names, out, options);
}

Manifests read_manifest_file(const std::string& path, ResourceNames& names) {
  Manifests m;
  read_manifest_file(path, names, m);
  return m;
}

void append_manifest_jobs(std::vector<ManifestJob> jobs, Workload& workload, SimTime default_submit) {
  for (auto& mj : jobs) {
    WorkloadJob j = std::move(mj.job);
    if (!mj.submit_at) j.submit = default_submit;
    if (j.id.empty()) j.id = workload.namespaces[j.ns.value()] + "/" + j.name;
    j.pod_template = static_cast<std::uint32_t>(workload.templates.size());
    workload.templates.push_back(std::move(mj.spec));
    workload.jobs.push_back(std::move(j));
  }
}

}  // namespace kubesim
