#include "platform/cluster_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"
#include "core/limits.hpp"
#include "core/yaml_input.hpp"
#include "platform/device_yaml.hpp"

namespace kubesim {
namespace {

constexpr std::int64_t kDefaultMaxPods = 110;           // kubelet --max-pods default

// k8s.io/kubernetes/pkg/apis/core/helper: IsExtendedResourceName requires a domain-qualified
// name outside kubernetes.io; hugepages-<size> is a native resource we also accept as a slot.
bool is_extended_resource_name(std::string_view name) {
  if (name.rfind("hugepages-", 0) == 0) return name.size() > 10;
  std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == name.size()) return false;
  std::string_view domain = name.substr(0, slash);
  if (domain == "kubernetes.io") return false;
  if (domain.size() > 14 && domain.substr(domain.size() - 14) == ".kubernetes.io") return false;
  return true;
}

class ClusterYamlReader : YamlInput {
 public:
  ClusterYamlReader(const std::string& path, ResourceNames& names) : YamlInput(path), names_(names) {}

  ClusterSpec read(const YAML::Node& root) {
    if (root.IsNull() || !root.IsDefined())
      throw InputError(path(), line_of(root), "expected a map with a nodeGroups list, got an empty document");
    require_map(root, "the document");
    check_keys(root, {"nodeGroups"}, "the document");
    const YAML::Node groups = root["nodeGroups"];
    if (!groups) throw InputError(path(), line_of(root), "expected a nodeGroups key");
    require_list(groups, "nodeGroups");
    for (std::size_t i = 0; i < groups.size(); ++i) read_group(groups[i], i);
    if (spec_.nodes.empty()) throw InputError(path(), line_of(groups), "expected at least one node group");
    spec_.source = path();
    return std::move(spec_);
  }

 private:
  // Fills `out` from a resource map; returns pods if given. `mask` records which slots were set.
  std::optional<std::int64_t> read_resources(const YAML::Node& map, const std::string& where, Resources& out,
                                             std::uint32_t& mask) {
    require_map(map, where);
    std::optional<std::int64_t> pods;
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string name = scalar(kv.first, "a resource name in " + where);
      if (!seen.insert(name).second) fail(kv.first, "duplicate resource \"" + name + "\" in " + where);
      const std::string what = where + "." + name;
      Quantity q = quantity(kv.second, what);
      if (name == "pods") {
        pods = q.value();
        continue;
      }
      int slot;
      if (name == "cpu" || name == "memory" || name == "ephemeral-storage") {
        slot = names_.slot(name);
      } else if (is_extended_resource_name(name)) {
        slot = names_.slot(name);
        if (slot < 0)
          fail(kv.first, "too many resource kinds: \"" + name + "\" does not fit (at most " +
                             std::to_string(kMaxResources) + " including cpu, memory and ephemeral-storage)");
      } else {
        fail(kv.first, "unknown resource \"" + name + "\" in " + where +
                           " (expected cpu, memory, ephemeral-storage, pods or a domain-qualified extended resource "
                           "such as nvidia.com/gpu)");
      }
      out[static_cast<std::size_t>(slot)] = slot == static_cast<int>(kCpu) ? q.milli_value() : q.value();
      mask |= 1u << slot;
    }
    return pods;
  }

  void read_group(const YAML::Node& g, std::size_t index) {
    std::string where = "nodeGroups[" + std::to_string(index) + "]";
    require_map(g, where);
    check_keys(g, {"name", "count", "allocatable", "capacity", "labels", "taints", "unschedulable", "devices"}, where);

    const YAML::Node name_node = g["name"];
    if (!name_node) fail(g, "expected " + where + " to have a name");
    const std::string name = scalar(name_node, where + ".name");
    if (name.empty()) fail(name_node, "expected " + where + ".name to be non-empty");
    where += " (" + name + ")";

    std::int64_t count = 1;
    if (const YAML::Node c = g["count"]) {
      // The cluster's nodes together are bounded (core/limits.hpp): 10^7 nodes once ran out
      // of memory before a line was written.
      const auto room = kMaxNodes - static_cast<std::int64_t>(spec_.nodes.size());
      count = integer(c, where + ".count", 1, std::max<std::int64_t>(room, 1));
      if (room < 1) fail(c, "the cluster has more than " + std::to_string(kMaxNodes) + " nodes (the limit)");
    }

    Node proto;
    const YAML::Node alloc = g["allocatable"];
    if (!alloc) fail(g, "expected " + where + " to have allocatable resources (at least cpu)");
    std::uint32_t alloc_mask = 0;
    std::optional<std::int64_t> pods = read_resources(alloc, where + ".allocatable", proto.allocatable, alloc_mask);
    if (!(alloc_mask & (1u << kCpu))) fail(alloc, "expected " + where + ".allocatable to have cpu");
    proto.allowed_pods = pods.value_or(kDefaultMaxPods);

    proto.capacity = proto.allocatable;
    if (const YAML::Node cap = g["capacity"]) {
      std::uint32_t cap_mask = 0;
      Resources given;
      read_resources(cap, where + ".capacity", given, cap_mask);  // capacity.pods is accepted but not modelled
      for (std::size_t i = 0; i < kMaxResources; ++i) {
        if (!(cap_mask & (1u << i))) continue;
        if (given[i] < proto.allocatable[i])
          fail(cap, where + ": allocatable " + names_.name(i) + " (" + std::to_string(proto.allocatable[i]) +
                        ") exceeds capacity (" + std::to_string(given[i]) + ")");
        proto.capacity[i] = given[i];
      }
    }

    if (const YAML::Node labels = g["labels"]) {
      require_map(labels, where + ".labels");
      std::set<std::string> seen;
      for (const auto& kv : labels) {
        std::string key = scalar(kv.first, "a label key in " + where);
        if (key.empty()) fail(kv.first, "expected label keys in " + where + " to be non-empty");
        if (!seen.insert(key).second) fail(kv.first, "duplicate label \"" + key + "\" in " + where);
        std::string value = string_or_null(kv.second, where + ".labels." + key);
        set_label(proto.labels, std::move(key), std::move(value));
      }
    }

    if (const YAML::Node taints = g["taints"]) {
      require_list(taints, where + ".taints");
      for (std::size_t i = 0; i < taints.size(); ++i) {
        const YAML::Node t = taints[i];
        const std::string tw = where + ".taints[" + std::to_string(i) + "]";
        require_map(t, tw);
        check_keys(t, {"key", "value", "effect"}, tw);
        Taint taint;
        const YAML::Node key = t["key"];
        if (!key) fail(t, "expected " + tw + " to have a key");
        taint.key = scalar(key, tw + ".key");
        if (taint.key.empty()) fail(key, "expected " + tw + ".key to be non-empty");
        if (const YAML::Node v = t["value"]) taint.value = string_or_null(v, tw + ".value");
        const YAML::Node effect = t["effect"];
        if (!effect) fail(t, "expected " + tw + " to have an effect (NoSchedule, PreferNoSchedule or NoExecute)");
        const std::string e = scalar(effect, tw + ".effect");
        auto parsed = parse_taint_effect(e);
        if (!parsed)
          fail(effect, "expected " + tw + ".effect to be NoSchedule, PreferNoSchedule or NoExecute, got \"" + e + "\"");
        taint.effect = *parsed;
        proto.taints.push_back(std::move(taint));
      }
    }

    if (const YAML::Node devices = g["devices"]) {
      proto.devices = read_devices_yaml(*this, devices, where + ".devices");
      check_gpu_count(devices, where, proto);
    }
    if (const std::string* model = find_label(proto.labels, kGpuModelLabel)) gpu_model(g, where, *model, proto);

    if (const YAML::Node u = g["unschedulable"]) {
      proto.unschedulable = boolean(u, where + ".unschedulable");
    }

    const int group_line = line_of(g);
    for (std::int64_t i = 0; i < count; ++i) {
      Node node = proto;
      node.name = name + "-" + std::to_string(i);
      if (auto [it, inserted] = node_lines_.emplace(node.name, group_line); !inserted)
        fail(name_node, "duplicate node name \"" + node.name + "\" (also produced by the group at line " +
                            std::to_string(it->second) + ")");
      set_label(node.labels, "kubernetes.io/hostname", node.name);
      spec_.nodes.push_back(std::move(node));
    }
  }

  // The label kGpuModelLabel names the model of the node's GPUs (the FGD authors' fork reads
  // it, open-gpu-share/utils/node.go GetGpuModelOfNode): a node without a device list gets its
  // allocatable nvidia.com/gpu count of shareable GPUs of that model; declared GPUs without a
  // model take it, and one of another model is an error.
  void gpu_model(const YAML::Node& g, const std::string& where, const std::string& model, Node& proto) const {
    const YAML::Node at = g["labels"][kGpuModelLabel];
    if (model.empty()) fail(at, "expected the " + std::string(kGpuModelLabel) + " label of " + where + " to name a GPU model");
    if (proto.devices.empty()) {
      const int slot = names_.find(kGpuDeviceClass);
      const std::int64_t count = slot >= 0 ? proto.allocatable[static_cast<std::size_t>(slot)] : 0;
      if (count <= 0)
        fail(at, "expected " + where + " to have allocatable nvidia.com/gpu (or devices) for its GPU model label");
      proto.devices = gpu_devices(count, model);
      return;
    }
    for (Device& d : proto.devices) {
      if (d.device_class != kGpuDeviceClass) continue;
      if (d.model.empty()) d.model = model;
      if (d.model != model)
        fail(at, where + ": GPU model label \"" + model + "\" differs from a declared device's model \"" + d.model + "\"");
    }
  }

  // A node declaring GPUs and an allocatable nvidia.com/gpu count must agree on the number.
  void check_gpu_count(const YAML::Node& devices, const std::string& where, const Node& proto) const {
    const int slot = names_.find(kGpuDeviceClass);
    if (slot < 0) return;
    const std::int64_t declared = std::count_if(proto.devices.begin(), proto.devices.end(),
                                                [](const Device& d) { return d.device_class == kGpuDeviceClass; });
    const std::int64_t allocatable = proto.allocatable[static_cast<std::size_t>(slot)];
    if (allocatable != 0 && declared != allocatable)
      fail(devices, where + ": " + std::to_string(declared) + " nvidia.com/gpu devices declared, allocatable has " +
                        std::to_string(allocatable));
  }

  ResourceNames& names_;
  ClusterSpec spec_;
  std::map<std::string, int> node_lines_;
};

}  // namespace

ClusterSpec read_cluster_yaml(const std::string& path, ResourceNames& names) {
  return ClusterYamlReader(path, names).read(load_yaml_file(path));
}

ClusterSpec read_cluster_yaml_node(const YAML::Node& root, const std::string& path, ResourceNames& names) {
  try {
    return ClusterYamlReader(path, names).read(root);
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e);
  }
}

}  // namespace kubesim
