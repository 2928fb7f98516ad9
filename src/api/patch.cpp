#include "api/patch.hpp"

#include <algorithm>
#include <limits>

namespace kubesim::api {

using nlohmann::json;

nlohmann::json merge_patch(const nlohmann::json& target, const nlohmann::json& patch) {
  json out = target;
  out.merge_patch(patch);
  return out;
}

nlohmann::json json_patch(const nlohmann::json& target, const nlohmann::json& operations) {
  if (!operations.is_array()) throw PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  try {
    return target.patch(operations);
  } catch (const json::exception& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.<kind>.<id>] ".
    if (const auto close = what.find("] "); what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
      what = what.substr(close + 2);
    throw PatchError(what);
  }
}

std::optional<std::string> strategic_list_key(const std::vector<std::string>& path) {
  if (path.empty()) return std::nullopt;
  const std::string& f = path.back();
  const std::string parent = path.size() >= 2 ? path[path.size() - 2] : "";
  const bool in_container = parent == "containers" || parent == "initContainers" || parent == "ephemeralContainers";
  // core/v1 PodSpec / Container / PodStatus / NodeSpec / NodeStatus, batch/v1 JobStatus,
  // policy/v1 PodDisruptionBudgetStatus and meta/v1 ObjectMeta patch tags (v1.26).
  if (f == "containers" || f == "initContainers" || f == "ephemeralContainers") return "name";
  if (f == "volumes" || f == "imagePullSecrets" || f == "resourceClaims" || f == "schedulingGates") return "name";
  if (f == "env" && in_container) return "name";
  if (f == "ports" && in_container) return "containerPort";
  if (f == "volumeMounts" && in_container) return "mountPath";
  if (f == "volumeDevices" && in_container) return "devicePath";
  if (f == "hostAliases") return "ip";
  if (f == "topologySpreadConstraints") return "topologyKey";
  if (f == "conditions") return "type";  // PodStatus, NodeStatus, JobStatus, PDB status, NamespaceStatus
  if (f == "addresses" && parent == "status") return "type";  // NodeStatus.Addresses
  if (f == "podIPs" && parent == "status") return "ip";
  if (f == "ownerReferences" && parent == "metadata") return "uid";
  if (f == "finalizers" && parent == "metadata") return "";  // patchStrategy:"merge", primitives
  if (f == "podCIDRs" && parent == "spec") return "";        // NodeSpec.PodCIDRs
  // Everything else, notably tolerations, taints, containerStatuses, args, command and
  // nodeSelectorTerms, has no patch strategy: the patch replaces the list.
  return std::nullopt;
}

namespace {

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

using Path = std::vector<std::string>;
Path child(const Path& p, const std::string& f) {
  Path c = p;
  c.push_back(f);
  return c;
}

// mergepatch errors (apimachinery/pkg/util/mergepatch/errors.go).
[[noreturn]] void no_merge_key(const json& m, const std::string& key) {
  throw PatchError("map: " + m.dump() + " does not contain declared merge key: " + key);
}
[[noreturn]] void bad_patch_type(const json& type, const json& m) {
  throw PatchError("unknown patch type: " + type.dump() + " in map: " + m.dump());
}

// The element kind of lists (all elements must share it; lists of lists are refused).
enum class Kind { kNone, kMap, kScalar };
Kind element_kind(std::initializer_list<const json*> lists) {
  Kind kind = Kind::kNone;
  json::value_t type = json::value_t::null;
  for (const json* l : lists) {
    for (const auto& v : *l) {
      if (v.is_array()) throw PatchError("lists of lists are not supported");
      json::value_t t = v.type();
      if (t == json::value_t::number_unsigned || t == json::value_t::number_float) t = json::value_t::number_integer;
      if (kind != Kind::kNone && t != type) throw PatchError("list element types are not identical: " + l->dump());
      type = t;
      kind = v.is_object() ? Kind::kMap : Kind::kScalar;
    }
  }
  return kind;
}

// The value items are compared by: the merge key's value for maps, the item for scalars.
// A map without the key compares as null (as upstream's index()).
const json& identity(const json& item, const std::string& key, Kind kind) {
  static const json null_value;
  if (kind != Kind::kMap) return item;
  if (!item.is_object()) return null_value;
  const auto it = item.find(key);
  return it == item.end() ? null_value : *it;
}

std::size_t index_of(const json& list, const json& item, const std::string& key, Kind kind) {
  const json& id = identity(item, key, kind);
  for (std::size_t i = 0; i < list.size(); ++i)
    if (identity(list[i], key, kind) == id) return i;
  return std::numeric_limits<std::size_t>::max();
}

bool is_delete_item(const json& v) {
  return v.is_object() && v.contains(kDirective) && v[std::string(kDirective)] == "delete";
}

// normalizeSliceOrder: `to_sort` ordered by `order` (stable); $patch: delete items last.
json normalize_slice_order(const json& to_sort, const json& order, const std::string& key, Kind kind) {
  std::vector<json> keep, deletes;
  for (const auto& v : to_sort) {
    if (kind == Kind::kMap) {
      if (!v.contains(key)) no_merge_key(v, key);
      if (is_delete_item(v)) {
        deletes.push_back(v);
        continue;
      }
    }
    keep.push_back(v);
  }
  if (kind == Kind::kMap)
    for (const auto& v : order)
      if (!v.is_object() || !v.contains(key)) no_merge_key(v, key);
  std::stable_sort(keep.begin(), keep.end(), [&](const json& a, const json& b) {
    return index_of(order, a, key, kind) < index_of(order, b, key, kind);
  });
  json out = json::array();
  for (auto& v : keep) out.push_back(std::move(v));
  for (auto& v : deletes) out.push_back(std::move(v));
  return out;
}

// mergeSortedSlice: interleaves the server-only items (left) into the patch items (right),
// keeping each list's order and following the live list's order where both are known.
json merge_sorted(const json& left, const json& right, const json& server_order, const std::string& key, Kind kind) {
  json out = json::array();
  std::size_t i = 0, j = 0;
  const std::size_t none = std::numeric_limits<std::size_t>::max();
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(right[j++]);
    } else if (j >= right.size()) {
      out.push_back(left[i++]);
    } else {
      const std::size_t li = index_of(server_order, left[i], key, kind);
      const std::size_t ri = index_of(server_order, right[j], key, kind);
      if (li != none && ri != none && li < ri) out.push_back(left[i++]);
      else out.push_back(right[j++]);
    }
  }
  return out;
}

// normalizeElementOrder after partitioning `merged` by presence in `patch_order`.
json enforce_order(const json& merged, const json& patch_order, const json& server_order, const std::string& key,
                   Kind kind) {
  json patch_items = json::array(), server_only = json::array();
  const std::size_t none = std::numeric_limits<std::size_t>::max();
  for (const auto& v : merged) {
    if (kind == Kind::kMap && !(v.is_object() && v.contains(key))) no_merge_key(v, key);
    (index_of(patch_order, v, key, kind) == none ? server_only : patch_items).push_back(v);
  }
  return merge_sorted(normalize_slice_order(server_only, server_order, key, kind),
                      normalize_slice_order(patch_items, patch_order, key, kind), server_order, key, kind);
}

json merge_map(json original, json patch, const Path& path);

// mergeSlice: a list with patchStrategy merge.
json merge_slice(json original, const json& patch, const std::string& key, const Path& path, bool delete_list) {
  if (original.empty() && patch.empty()) return original;
  const Kind kind = element_kind({&original, &patch});
  json patch_list = patch;
  json merged;
  if (kind != Kind::kMap) {
    if (delete_list) {
      json out = json::array();
      for (const auto& v : original)
        if (std::find(patch.begin(), patch.end(), v) == patch.end()) out.push_back(v);
      return out;
    }
    merged = original;
    for (const auto& v : patch)
      if (std::find(merged.begin(), merged.end(), v) == merged.end()) merged.push_back(v);
  } else {
    if (key.empty()) throw PatchError("cannot merge lists without merge key for type map");
    // mergeSliceWithSpecialElements.
    json plain = json::array();
    bool replace = false;
    for (const auto& v : patch) {
      const auto d = v.find(kDirective);
      if (d == v.end()) {
        plain.push_back(v);
      } else if (*d == "delete") {
        if (!v.contains(key)) no_merge_key(v, key);
        json kept = json::array();
        for (const auto& o : original)
          if (!(o.is_object() && o.contains(key) && o[key] == v[key])) kept.push_back(o);
        original = std::move(kept);
      } else if (*d == "replace") {
        replace = true;
      } else if (*d == "merge") {
        throw PatchError("merging lists cannot yet be specified in the patch");
      } else {
        bad_patch_type(*d, v);
      }
    }
    if (replace) {
      original = plain;
      plain = json::array();
    }
    patch_list = plain;
    // mergeSliceWithoutSpecialElements.
    merged = original;
    for (const auto& v : plain) {
      if (!v.contains(key)) no_merge_key(v, key);
      bool found = false;
      for (auto& o : merged) {
        if (o.is_object() && o.contains(key) && o[key] == v[key]) {
          o = merge_map(o, v, path);
          found = true;
          break;
        }
      }
      if (!found) merged.push_back(merge_map(json::object(), v, path));
    }
  }
  return enforce_order(merged, patch_list, original, key, kind);
}

// validatePatchWithSetOrderList: the patch's items appear in $setElementOrder, in its order.
void validate_set_order(const json& patch_list, const json& order, const std::string& key, Kind kind) {
  std::size_t p = 0, o = 0;
  std::vector<const json*> items;
  for (const auto& v : patch_list)
    if (!(v.is_object() && v.contains(kDirective))) items.push_back(&v);
  while (p < items.size() && o < order.size()) {
    if (identity(*items[p], key, kind) == identity(order[o], key, kind)) ++p;
    ++o;
  }
  if (p < items.size())
    throw PatchError("The order in patch list:\n" + patch_list.dump() + "\n doesn't match $setElementOrder list:\n" +
                     order.dump() + "\n");
}

// mergePatchIntoOriginal: the lists that come with a $setElementOrder directive.
void apply_set_element_order(json& original, json& patch, const Path& path) {
  std::vector<std::string> directives;
  for (const auto& [k, v] : patch.items())
    if (starts_with(k, kSetElementOrder)) directives.push_back(k);
  for (const std::string& d : directives) {
    const json order = patch[d];
    patch.erase(d);
    const std::string field = d.substr(kSetElementOrder.size());
    if (field.empty()) throw PatchError("invalid patch: $setElementOrder without a field name");
    if (!order.is_array()) throw PatchError("invalid patch: " + d + " must be a list");
    const bool in_original = original.contains(field) && !original[field].is_null();
    const bool in_patch = patch.contains(field) && !patch[field].is_null();
    if (!in_original && !in_patch) continue;
    const json original_list = in_original ? original[field] : json::array();
    const json patch_list = in_patch ? patch[field] : json::array();
    if (!original_list.is_array() || !patch_list.is_array())
      throw PatchError("invalid patch: " + field + " must be a list");
    const Path fpath = child(path, field);
    const std::optional<std::string> key = strategic_list_key(fpath);
    const std::string k = key.value_or("");
    const Kind kind = element_kind({&original_list, &patch_list});
    validate_set_order(patch_list, order, k, kind);
    json merged;
    if (!in_patch) merged = original_list;
    else if (key) merged = merge_slice(original_list, patch_list, k, fpath, false);
    else merged = patch_list;
    if (kind == Kind::kNone) {
      original[field] = merged;
    } else {
      original[field] = enforce_order(merged, order, original_list, k, kind);
    }
    patch.erase(field);
  }
}

// mergeMap (StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls).
json merge_map(json original, json patch, const Path& path) {
  if (!patch.is_object()) throw PatchError("invalid patch: expected a map, got " + patch.dump());
  if (const auto d = patch.find(kDirective); d != patch.end()) {
    if (*d == "replace") {
      patch.erase(std::string(kDirective));
      return merge_map(json::object(), patch, path);  // the typed round-trip drops nulls
    }
    if (*d == "delete") return json::object();
    bad_patch_type(*d, patch);
  }
  if (!original.is_object()) original = json::object();
  // applyRetainKeysDirective.
  if (const auto r = patch.find(kRetainKeys); r != patch.end()) {
    const json keys = *r;
    patch.erase(std::string(kRetainKeys));
    if (!keys.is_array()) throw PatchError("invalid patch: $retainKeys must be a list of strings");
    auto retained = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), json(k)) != keys.end(); };
    for (const auto& [k, v] : patch.items())
      if (!v.is_null() && !starts_with(k, kDeleteFromPrimitiveList) && !starts_with(k, kSetElementOrder) && !retained(k))
        throw PatchError("invalid patch: $retainKeys does not contain " + k);
    std::vector<std::string> drop;
    for (const auto& [k, v] : original.items())
      if (!retained(k)) drop.push_back(k);
    for (const auto& k : drop) original.erase(k);
  }
  apply_set_element_order(original, patch, path);
  for (auto& [pk, pv] : patch.items()) {
    std::string k = pk;
    bool delete_list = false;
    if (starts_with(k, kDeleteFromPrimitiveList)) {
      k = k.substr(kDeleteFromPrimitiveList.size());
      if (k.empty()) throw PatchError("invalid patch: $deleteFromPrimitiveList without a field name");
      delete_list = true;
      if (!pv.is_array()) throw PatchError("invalid patch: " + pk + " must be a list");
      // Upstream copies the deletion list in when the field is absent; absent stays absent.
      if (!original.contains(k) || !original[k].is_array()) continue;
    }
    if (pv.is_null()) {
      original.erase(k);
      continue;
    }
    const Path fpath = child(path, k);
    const std::optional<std::string> key = strategic_list_key(fpath);
    if (!original.contains(k) || original[k].is_null()) {
      // Upstream takes the patch value as is; the typed decode that follows drops nulls and
      // directives, which merging into an empty value reproduces.
      if (pv.is_object()) original[k] = merge_map(json::object(), pv, fpath);
      else if (pv.is_array() && key) original[k] = merge_slice(json::array(), pv, *key, fpath, false);
      else original[k] = pv;
      continue;
    }
    json& ov = original[k];
    if (ov.is_object() && pv.is_object()) {
      ov = merge_map(std::move(ov), pv, fpath);
    } else if (ov.is_array() && pv.is_array()) {
      if (key) ov = merge_slice(std::move(ov), pv, *key, fpath, delete_list);
      else ov = pv;
    } else {
      ov = pv;
    }
  }
  return original;
}

}  // namespace

nlohmann::json strategic_merge_patch(const nlohmann::json& target, const nlohmann::json& patch) {
  if (!patch.is_object()) throw PatchError("invalid JSON document: a strategic merge patch must be a JSON object");
  return merge_map(target, patch, {});
}

}  // namespace kubesim::api
