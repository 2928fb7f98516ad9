// CustomResourceDefinitions (apiextensions.k8s.io/v1) and the custom objects they define,
// as apiextensions-apiserver v1.26 handles them: what a CRD declares and how it is
// defaulted and validated (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/
// v1/defaults.go, validation/validation.go ValidateCustomResourceDefinition), the status it
// is given once served (pkg/controller/establish, status/naming_controller.go), and the
// checks a custom object passes before it is stored (pkg/registry/customresource/strategy.go,
// validator.go: the OpenAPI v3 schema's types, required fields, enums). Pure functions of
// JSON, used by ApiServer's CRD and custom-object handlers (custom_resource_handlers.cpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kubesim::api {

// A CRD's spec as served: its names (defaulted), scope, the storage version and what that
// version declares.
struct CrdSpec {
  std::string name;  // metadata.name: PLURAL.GROUP
  std::string group;
  std::string kind;
  std::string list_kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  std::string version;            // the storage version (the one served)
  bool status_subresource = false;  // that version's subresources.status
  nlohmann::json schema;          // that version's schema.openAPIV3Schema (null: none)
};

// Fills the defaults kube-apiserver sets on a v1 CRD (singular = lowercase kind, listKind =
// kind + "List", conversion strategy None) and returns the field errors of
// ValidateCustomResourceDefinition in its wording ("spec.group: Required value", ...);
// empty when valid. `crd` is the request body (kind and apiVersion already checked).
std::vector<std::string> default_and_validate_crd(nlohmann::json& crd);
// The update's further rules (ValidateCustomResourceDefinitionSpecUpdate): group, plural,
// scope and kind are immutable once established.
std::vector<std::string> validate_crd_update(const nlohmann::json& updated, const nlohmann::json& old);
// The spec of a CRD that passed default_and_validate_crd.
CrdSpec crd_spec(const nlohmann::json& crd);
// status: acceptedNames, conditions NamesAccepted and Established (True at `now`, an RFC 3339
// time), storedVersions.
nlohmann::json crd_status(const CrdSpec& spec, const std::string& now);
// `Kind.group "name" is invalid: ERR` or `... is invalid: [ERR1, ERR2]`, as
// apimachinery/pkg/api/errors NewInvalid words an aggregate.
std::string invalid_message(const std::string& qualified_kind, const std::string& name,
                            const std::vector<std::string>& errors);

// The 422 Invalid Status of those errors (errors.NewInvalid): the message above, and details
// naming the object (`kind` is the Kind, as kubectl prints "The PodGroup \"x\" is invalid")
// with one cause per field error (FieldValueInvalid, FieldValueRequired, ...).
nlohmann::json invalid_status(const std::string& group, const std::string& kind, const std::string& name,
                              const std::vector<std::string>& errors);

// The field errors of a custom object against its version's OpenAPI v3 schema (types,
// required properties, enums, x-kubernetes-int-or-string, nullable; additional properties
// and unknown fields are kept, not pruned), in kube-openapi's wording
// ("spec.minMember: Invalid value: \"string\": spec.minMember in body must be of type
// integer: \"string\""). Schemas nested deeper than 64 levels are not followed further.
std::vector<std::string> validate_against_schema(const nlohmann::json& object, const nlohmann::json& schema);
// Removes the fields whose value is null where the schema neither allows null (nullable) nor
// gives a default, as the apiserver does before it defaults and validates
// (apiextensions-apiserver pkg/apiserver/schema/defaulting/prunenulls.go): Go clients send
// `"field": null` for an unset struct (Kueue's ClusterQueue status.pendingWorkloadsStatus).
void prune_non_nullable_nulls(nlohmann::json& object, const nlohmann::json& schema);

// metadata.name of an object: a DNS-1123 subdomain (apimachinery validation
// NameIsDNSSubdomain); the error's text, or "" when valid.
std::string dns_subdomain_error(const std::string& name);

}  // namespace kubesim::api
