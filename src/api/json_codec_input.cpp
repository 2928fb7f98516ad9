// JSON bodies of API creates -> model objects. Pods, Jobs, quotas, priority classes, PDBs
// and namespaces go through the manifest reader (workload/k8s_manifest) with
// ManifestOptions::api_object; JSON is YAML, so the body is handed over as JSON text.
#include <yaml-cpp/yaml.h>

#include <set>

#include "api/json_codec.hpp"
#include "core/error.hpp"
#include "core/quantity.hpp"

namespace kubesim::api {

using nlohmann::json;

namespace {

[[noreturn]] void invalid(const std::string& problem) { throw InputError("", 0, problem); }

std::string kind_of(const json& body) {
  if (!body.is_object()) invalid("expected the request body to be a JSON object");
  const auto it = body.find("kind");
  return it != body.end() && it->is_string() ? it->get<std::string>() : "";
}

// The ns name of the single namespaced object read into `m` (entry 0 is "default").
std::string namespace_name(const Manifests& m, NamespaceId id) { return m.namespaces[id.value()]; }

}  // namespace

Manifests read_api_object(const nlohmann::json& body, std::string_view default_namespace, ResourceNames& names) {
  if (!body.is_object()) invalid("expected the request body to be a JSON object");
  ManifestOptions options;
  options.default_namespace = std::string(default_namespace.empty() ? "default" : default_namespace);
  options.only_default_namespace = !default_namespace.empty();
  options.api_object = true;
  Manifests out;
  YAML::Node node;
  try {
    node = YAML::Load(body.dump());
  } catch (const YAML::Exception& e) {
    invalid(std::string("malformed body: ") + e.what());
  }
  try {
    read_manifest_node(node, "", names, out, options);
  } catch (const InputError& e) {
    invalid(e.problem());  // no file, no line: the message alone
  }
  return out;
}

ParsedJob parse_pod_or_job(const nlohmann::json& body, std::string_view kind, std::string_view default_namespace,
                           ResourceNames& names) {
  const std::string k = kind_of(body);
  if (k != kind) invalid("expected kind " + std::string(kind) + ", got \"" + k + "\"");
  Manifests m = read_api_object(body, default_namespace, names);
  if (m.jobs.size() != 1) invalid("expected one " + std::string(kind));
  ParsedJob out;
  out.ns = namespace_name(m, m.jobs[0].job.ns);
  out.job = std::move(m.jobs[0]);
  out.job.job.ns = NamespaceId();
  return out;
}

ParsedQuota parse_quota(const nlohmann::json& body, std::string_view default_namespace, ResourceNames& names) {
  if (kind_of(body) != "ResourceQuota") invalid("expected kind ResourceQuota");
  Manifests m = read_api_object(body, default_namespace, names);
  ParsedQuota out;
  out.ns = namespace_name(m, m.quotas.at(0).ns);
  out.quota = std::move(m.quotas[0]);
  out.quota.ns = NamespaceId();
  return out;
}

PriorityClass parse_priority_class(const nlohmann::json& body) {
  if (kind_of(body) != "PriorityClass") invalid("expected kind PriorityClass");
  ResourceNames names;
  Manifests m = read_api_object(body, "", names);
  return m.priority_classes.at(0);
}

ParsedPdb parse_pdb(const nlohmann::json& body, std::string_view default_namespace) {
  if (kind_of(body) != "PodDisruptionBudget") invalid("expected kind PodDisruptionBudget");
  ResourceNames names;
  Manifests m = read_api_object(body, default_namespace, names);
  ParsedPdb out;
  out.ns = namespace_name(m, m.pod_disruption_budgets.at(0).ns);
  out.pdb = std::move(m.pod_disruption_budgets[0]);
  out.pdb.ns = NamespaceId();
  return out;
}

std::string parse_namespace(const nlohmann::json& body) {
  if (kind_of(body) != "Namespace") invalid("expected kind Namespace");
  ResourceNames names;
  Manifests m = read_api_object(body, "", names);
  return m.namespaces.back();
}

// ---- Node ------------------------------------------------------------------------------
// core/v1 Node as a client (a test harness, kubectl create) registers it. Only the fields
// scheduling reads are kept; everything else of the body is the caller's to store.

namespace {

const json* member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string string_field(const json& v, const std::string& where) {
  if (!v.is_string()) invalid("expected " + where + " to be a string");
  return v.get<std::string>();
}

void resource_list(const json& list, const std::string& where, ResourceNames& names, Resources& out,
                   std::optional<std::int64_t>& pods) {
  if (!list.is_object()) invalid("expected " + where + " to be a map");
  for (const auto& [name, value] : list.items()) {
    std::string text;
    if (value.is_string()) text = value.get<std::string>();
    else if (value.is_number_integer()) text = std::to_string(value.get<std::int64_t>());
    else invalid("expected " + where + "." + name + " to be a quantity");
    std::string error;
    auto q = Quantity::parse(text, &error);
    if (!q || q->negative()) invalid(where + "." + name + ": " + (q ? "must be non-negative" : error));
    if (q->out_of_range()) invalid(where + "." + name + ": must be at most 9223372036854775806");
    if (name == "pods") {
      pods = q->value();
      continue;
    }
    const int slot = names.slot(name);
    if (slot < 0) continue;  // more resource kinds than slots: not schedulable on anyway
    out[static_cast<std::size_t>(slot)] = slot == static_cast<int>(kCpu) ? q->milli_value() : q->value();
  }
}

}  // namespace

Node parse_node(const nlohmann::json& body, ResourceNames& names) {
  if (kind_of(body) != "Node") invalid("expected kind Node");
  Node n;
  const json* md = member(body, "metadata");
  const json* name = md ? member(*md, "name") : nullptr;
  if (!name) invalid("metadata.name: Required value: name or generateName is required");
  n.name = string_field(*name, "metadata.name");
  if (n.name.empty()) invalid("metadata.name: Required value: name or generateName is required");
  if (const json* labels = md ? member(*md, "labels") : nullptr) {
    if (!labels->is_object()) invalid("expected metadata.labels to be a map");
    for (const auto& [k, v] : labels->items()) set_label(n.labels, k, string_field(v, "metadata.labels." + k));
  }
  if (const json* spec = member(body, "spec")) {
    if (const json* u = member(*spec, "unschedulable")) {
      if (!u->is_boolean()) invalid("expected spec.unschedulable to be a boolean");
      n.unschedulable = u->get<bool>();
    }
    if (const json* taints = member(*spec, "taints")) {
      if (!taints->is_array()) invalid("expected spec.taints to be a list");
      for (std::size_t i = 0; i < taints->size(); ++i) {
        const json& t = (*taints)[i];
        const std::string w = "spec.taints[" + std::to_string(i) + "]";
        Taint taint;
        const json* key = member(t, "key");
        if (!key) invalid(w + ".key: Required value");
        taint.key = string_field(*key, w + ".key");
        if (const json* v = member(t, "value")) taint.value = string_field(*v, w + ".value");
        const json* effect = member(t, "effect");
        if (!effect) invalid(w + ".effect: Required value");
        auto e = parse_taint_effect(string_field(*effect, w + ".effect"));
        if (!e) invalid(w + ".effect: Unsupported value: \"" + effect->dump() + "\"");
        taint.effect = *e;
        n.taints.push_back(std::move(taint));
      }
    }
  }
  if (const json* status = member(body, "status")) {
    std::optional<std::int64_t> cap_pods, alloc_pods;
    bool has_allocatable = false;
    if (const json* c = member(*status, "capacity")) resource_list(*c, "status.capacity", names, n.capacity, cap_pods);
    if (const json* a = member(*status, "allocatable")) {
      has_allocatable = true;
      resource_list(*a, "status.allocatable", names, n.allocatable, alloc_pods);
    }
    // pkg/registry/core/node/strategy.go (v1.26): allocatable defaults to capacity.
    if (!has_allocatable) n.allocatable = n.capacity;
    if (alloc_pods) n.allowed_pods = *alloc_pods;
    else if (cap_pods) n.allowed_pods = *cap_pods;
    if (const json* conds = member(*status, "conditions"); conds && conds->is_array())
      for (const auto& c : *conds)
        if (c.is_object() && c.value("type", "") == "Ready") n.ready = c.value("status", "") == "True";
  }
  return n;
}

}  // namespace kubesim::api
