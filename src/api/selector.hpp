// List and watch filters: ?labelSelector= as apimachinery/pkg/labels/selector.go Parse and
// ?fieldSelector= as apimachinery/pkg/fields/selector.go ParseSelector, with the selectable
// fields of each kind (pkg/registry/<group>/<kind>/strategy.go ToSelectableFields and the
// field label conversions of pkg/apis/<group>/v1/conversion.go).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/objects.hpp"

namespace kubesim::api {

// A selector that does not parse; the server answers 400 with the message.
class SelectorError : public std::runtime_error {
 public:
  explicit SelectorError(const std::string& message) : std::runtime_error(message) {}
};

// ---- label selectors -----------------------------------------------------------------
struct LabelRequirement {
  enum class Op : std::uint8_t { kExists, kDoesNotExist, kEquals, kNotEquals, kIn, kNotIn, kGt, kLt };
  std::string key;
  Op op = Op::kExists;
  std::vector<std::string> values;  // sorted, unique (a sets.String upstream)
  // selector.go Requirement.Matches: != and notin match objects without the label.
  bool matches(const Labels& labels) const;
};

struct LabelQuery {
  std::vector<LabelRequirement> requirements;  // sorted by key; all must match
  bool empty() const { return requirements.empty(); }
  bool matches(const Labels& labels) const;
  // The labels of a JSON object's metadata.labels (absent or null: no labels).
  bool matches_object(const nlohmann::json& object) const;
};

// "a=b,c!=d,e in (x,y),f notin (z),g,!h,i>3"; "" selects everything. Throws SelectorError.
LabelQuery parse_label_selector(std::string_view text);

// ---- field selectors -----------------------------------------------------------------
// The value of a selectable field of one object; nullopt: the kind has no such field label.
using FieldGetter = std::function<std::optional<std::string>(std::string_view field)>;

struct FieldRequirement {
  std::string field;
  bool equal = true;  // = and ==; false for !=
  std::string value;  // unescaped
};

struct FieldQuery {
  std::vector<FieldRequirement> requirements;  // all must match
  bool empty() const { return requirements.empty(); }
  // The first field the kind does not support (the server answers 400
  // "field label not supported: <field>"), or nullopt.
  std::optional<std::string> unsupported_field(const FieldGetter& get) const;
  bool matches(const FieldGetter& get) const;  // an unsupported field reads as ""
};

// "status.phase!=Succeeded,status.phase!=Failed", with \, \= \\ escapes in values.
// Throws SelectorError.
FieldQuery parse_field_selector(std::string_view text);

// The selectable fields of each kind, read from the object's JSON (kubesim's own output).
// Every kind has metadata.name and metadata.namespace (DefaultMetaV1FieldSelectorConversion).
std::optional<std::string> object_meta_field(const nlohmann::json& obj, std::string_view field);
// metadata.*, spec.nodeName, spec.restartPolicy, spec.schedulerName, spec.serviceAccountName,
// spec.hostNetwork, status.phase, status.podIP, status.nominatedNodeName.
std::optional<std::string> pod_field(const nlohmann::json& pod, std::string_view field);
std::optional<std::string> node_field(const nlohmann::json& node, std::string_view field);  // + spec.unschedulable
std::optional<std::string> namespace_field(const nlohmann::json& ns, std::string_view field);  // + status.phase
std::optional<std::string> job_field(const nlohmann::json& job, std::string_view field);  // + status.successful
// core/v1 Event: involvedObject.{kind,namespace,name,uid,apiVersion,resourceVersion,fieldPath},
// reason, reportingComponent, source, type (events.k8s.io/v1 bodies read through regarding,
// reportingController and deprecatedSource).
std::optional<std::string> event_field(const nlohmann::json& event, std::string_view field);

// The getter for a resource (plural, e.g. "pods", "nodes", "events"); other resources
// support the metadata fields only.
FieldGetter field_getter(std::string_view resource, const nlohmann::json& object);

// A list or watch filter: ?labelSelector= and ?fieldSelector= of one resource.
class Selection {
 public:
  // False with `error` set (the 400 message) when a selector does not parse or names a
  // field the resource cannot select on.
  bool parse(std::string_view resource, const std::string* labels, const std::string* fields, std::string* error);
  bool matches(const nlohmann::json& object) const {
    if (!labels_.empty() && !labels_.matches_object(object)) return false;
    return fields_.empty() || fields_.matches(field_getter(resource_, object));
  }

 private:
  std::string resource_;
  LabelQuery labels_;
  FieldQuery fields_;
};

}  // namespace kubesim::api
