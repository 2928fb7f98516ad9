#include "sched/scheduler_plugins_objects.hpp"

#include "core/yaml_input.hpp"

namespace kubesim {
namespace {

class ObjectsReader : YamlInput {
 public:
  ObjectsReader(std::string path, ResourceNames& names) : YamlInput(std::move(path)), names_(names) {}

  // A v1.ResourceList: cpu in millicores, the others in units. Marks the resources present.
  Resources resource_list(const YAML::Node& list, const std::string& where, std::array<bool, kMaxResources>* present) {
    require_map(list, where);
    Resources out;
    for (const auto& kv : list) {
      const std::string name = scalar(kv.first, where + " key");
      const int slot = names_.slot(name);
      if (slot < 0) fail(kv.first, "too many distinct resources (at most 8), cannot add \"" + name + "\"");
      const Quantity q = quantity(kv.second, where + "." + name);
      out[static_cast<std::size_t>(slot)] = slot == static_cast<int>(kCpu) ? q.milli_value() : q.value();
      if (present) (*present)[static_cast<std::size_t>(slot)] = true;
    }
    return out;
  }

  void metadata(const YAML::Node& doc, std::string* name, std::string* ns) {
    const YAML::Node m = doc["metadata"];
    require_map(m, "metadata");
    check_keys(m, {"name", "namespace"}, {"labels", "annotations", "creationTimestamp", "uid", "resourceVersion"}, {},
               "metadata");
    if (!m["name"]) fail(m, "metadata.name is required");
    *name = scalar(m["name"], "metadata.name");
    *ns = m["namespace"] ? scalar(m["namespace"], "metadata.namespace") : "default";
  }

  SchedulerPluginsObjects read() {
    SchedulerPluginsObjects out;
    for (const YAML::Node& doc : load_yaml_documents(path())) {
      if (!doc || doc.IsNull()) continue;
      try {
        require_map(doc, "object");
        check_keys(doc, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, {}, "object");
        const std::string api = doc["apiVersion"] ? scalar(doc["apiVersion"], "apiVersion") : "";
        if (api != "scheduling.x-k8s.io/v1alpha1" && api != "scheduling.sigs.k8s.io/v1alpha1")
          fail(doc["apiVersion"] ? doc["apiVersion"] : doc,
               "expected apiVersion scheduling.x-k8s.io/v1alpha1, got \"" + api + "\"");
        const std::string kind = doc["kind"] ? scalar(doc["kind"], "kind") : "";
        const YAML::Node spec = doc["spec"];
        if (kind == "ElasticQuota") {
          ElasticQuotaObject eq;
          metadata(doc, &eq.name, &eq.ns);
          if (spec) {
            require_map(spec, "spec");
            check_keys(spec, {"min", "max"}, "spec");
          }
          // newElasticQuotaInfo: an absent min is 0, an absent max unbounded.
          if (spec && spec["min"]) eq.min = resource_list(spec["min"], "spec.min", nullptr);
          if (spec && spec["max"]) {
            eq.max = resource_list(spec["max"], "spec.max", &eq.max_set);
          } else {
            for (std::size_t r = 0; r < kMaxResources; ++r) {
              eq.max[r] = std::numeric_limits<std::int64_t>::max();
              eq.max_set[r] = true;
            }
          }
          // The capacity-scheduling KEP (scheduler-plugins kep/9-capacity-scheduling) defines
          // min as guaranteed and max as the upper bound, so min <= max; the plugin itself does
          // not check it and would compute nonsense shares, so a min above max is refused here.
          for (std::size_t r = 0; r < kMaxResources; ++r)
            if (eq.max_set[r] && eq.min[r] > eq.max[r])
              fail(spec["min"], "spec.min." + names_.name(r) + " (" + std::to_string(eq.min[r]) +
                                    ") is larger than spec.max." + names_.name(r) + " (" +
                                    std::to_string(eq.max[r]) + "): expected min <= max");
          out.elastic_quotas.push_back(std::move(eq));
        } else if (kind == "PodGroup") {
          PodGroupObject pg;
          metadata(doc, &pg.name, &pg.ns);
          require_map(spec, "spec");
          check_keys(spec, {"minMember", "minResources", "scheduleTimeoutSeconds"}, "spec");
          if (spec["minMember"]) pg.min_member = static_cast<std::int32_t>(integer(spec["minMember"], "spec.minMember", 0, 1 << 30));
          if (spec["minResources"]) pg.min_resources = resource_list(spec["minResources"], "spec.minResources", nullptr);
          if (spec["scheduleTimeoutSeconds"])
            pg.schedule_timeout_seconds = static_cast<std::int32_t>(
                integer(spec["scheduleTimeoutSeconds"], "spec.scheduleTimeoutSeconds", 0, 1 << 30));
          out.pod_groups.push_back(std::move(pg));
        } else {
          fail(doc["kind"] ? doc["kind"] : doc, "expected kind ElasticQuota or PodGroup, got \"" + kind + "\"");
        }
      } catch (const YAML::Exception& e) {
        throw yaml_error(path(), e, "unexpected value: ");
      }
    }
    return out;
  }

 private:
  ResourceNames& names_;
};

}  // namespace

SchedulerPluginsObjects read_scheduler_plugins_objects(const std::string& path, ResourceNames& names) {
  return ObjectsReader(path, names).read();
}

namespace {

// The CREATE of a typed object: false (nothing created) when the store has no such kind, the
// object's namespace does not exist (kube-apiserver's NamespaceLifecycle admission refuses
// it), or the namespace has one of that name (AlreadyExists).
template <typename T>
bool create_typed(ObjectStore& store, const KindInfo& info, const T& object) {
  const std::optional<ObjectKind> kind = store.find_kind(info.group, info.plural);
  const std::optional<NamespaceId> ns = store.find_namespace(object.ns);
  if (!kind || !ns || store.find(*kind, *ns, object.name)) return false;
  store.create(*kind, ObjectMeta{object.name, *ns, 0, false}, object);
  return true;
}

// Registers the typed kind `info` once (the kind id if already there) and creates `objects`.
template <typename T>
ObjectKind install_kind(ObjectStore& store, const KindInfo& info, const std::vector<T>& objects) {
  const ObjectKind kind = store.ensure_kind<T>(info);
  for (const T& o : objects) create_typed(store, info, o);
  return kind;
}

}  // namespace

KindInfo pod_group_kind() {
  return KindInfo{kPodGroupApiGroup, "v1alpha1", "PodGroup", kPodGroupPlural, true, KindStorage::kTyped, {}};
}

ObjectKind install_pod_groups(ObjectStore& store, const std::vector<PodGroupObject>& groups) {
  return install_kind(store, pod_group_kind(), groups);
}

bool create_pod_group(ObjectStore& store, const PodGroupObject& group) {
  return create_typed(store, pod_group_kind(), group);
}

KindInfo elastic_quota_kind() {
  return KindInfo{kPodGroupApiGroup, "v1alpha1", "ElasticQuota", kElasticQuotaPlural, true, KindStorage::kTyped, {}};
}

ObjectKind install_elastic_quotas(ObjectStore& store, const std::vector<ElasticQuotaObject>& quotas) {
  return install_kind(store, elastic_quota_kind(), quotas);
}

bool create_elastic_quota(ObjectStore& store, const ElasticQuotaObject& quota) {
  return create_typed(store, elastic_quota_kind(), quota);
}

}  // namespace kubesim
