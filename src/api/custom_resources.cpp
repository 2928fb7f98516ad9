#include "api/custom_resources.hpp"

#include <cctype>
#include <set>

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A value in a field error, as apimachinery's field.Error prints it: strings quoted, numbers
// and booleans bare, anything else as its JSON.
std::string shown(const Json& v) {
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string required(const std::string& path, const std::string& detail = {}) {
  return path + ": Required value" + (detail.empty() ? "" : ": " + detail);
}
std::string invalid(const std::string& path, const Json& value, const std::string& detail) {
  return path + ": Invalid value: " + shown(value) + ": " + detail;
}
std::string unsupported(const std::string& path, const Json& value, const std::vector<std::string>& supported) {
  std::string s = path + ": Unsupported value: " + shown(value) + ": supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) s += (i ? ", \"" : "\"") + supported[i] + "\"";
  return s;
}

std::string str(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// apimachinery/pkg/util/validation IsDNS1035Label (a version name).
bool is_dns1035_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !std::islower(static_cast<unsigned char>(s.front()))) return false;
  for (const char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
  return s.back() != '-';
}

// IsDNS1123Label: a lowercase RFC 1123 label (plural, singular, kind's lowercase, short names).
bool is_dns1123_label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (const char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
  return s.front() != '-' && s.back() != '-';
}

void validate_names(const Json& names, std::vector<std::string>& errs) {
  // validation.go ValidateCustomResourceDefinitionNames (and the spec's required names).
  const std::string plural = str(names, "plural"), singular = str(names, "singular"), kind = str(names, "kind");
  if (plural.empty()) errs.push_back(required("spec.names.plural"));
  else if (!is_dns1123_label(plural))
    errs.push_back(invalid("spec.names.plural", plural, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
  if (singular.empty()) errs.push_back(required("spec.names.singular"));
  else if (!is_dns1123_label(singular))
    errs.push_back(invalid("spec.names.singular", singular, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"));
  if (kind.empty()) errs.push_back(required("spec.names.kind"));
  else if (!is_dns1123_label(lower(kind)))
    errs.push_back(invalid("spec.names.kind", kind, "may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?"));
  if (str(names, "listKind").empty()) errs.push_back(required("spec.names.listKind"));
  if (const auto it = names.find("shortNames"); it != names.end() && it->is_array())
    for (std::size_t i = 0; i < it->size(); ++i)
      if (!(*it)[i].is_string() || !is_dns1123_label((*it)[i].get<std::string>()))
        errs.push_back(invalid("spec.names.shortNames[" + std::to_string(i) + "]", (*it)[i], "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"));
}

void validate_versions(const Json& spec, std::vector<std::string>& errs) {
  const auto vs = spec.find("versions");
  if (vs == spec.end() || !vs->is_array() || vs->empty()) {
    errs.push_back(required("spec.versions", "must have exactly one version marked as storage version"));
    return;
  }
  int storage = 0;
  std::set<std::string> seen;
  bool unique = true;
  for (std::size_t i = 0; i < vs->size(); ++i) {
    const Json& v = (*vs)[i];
    const std::string path = "spec.versions[" + std::to_string(i) + "]";
    const std::string name = v.is_object() ? str(v, "name") : std::string();
    if (!is_dns1035_label(name))
      errs.push_back(invalid(path + ".name", name, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"));
    unique = seen.insert(name).second && unique;
    if (!v.is_object()) continue;
    if (v.value("storage", false) == true) ++storage;
    // apiextensions/v1: every version needs a schema (validation.go, "schemas are required").
    const auto schema = v.find("schema");
    if (schema == v.end() || !schema->is_object() || !schema->contains("openAPIV3Schema"))
      errs.push_back(required(path + ".schema.openAPIV3Schema", "schemas are required"));
    else if (!(*schema)["openAPIV3Schema"].is_object() || str((*schema)["openAPIV3Schema"], "type") != "object")
      errs.push_back(invalid(path + ".schema.openAPIV3Schema.type", (*schema)["openAPIV3Schema"].value("type", Json("")), "must be object at the root"));
  }
  if (!unique) errs.push_back(invalid("spec.versions", *vs, "must contain unique version names"));
  if (storage != 1) errs.push_back(invalid("spec.versions", *vs, "must have exactly one version marked as storage version"));
}

}  // namespace

std::vector<std::string> default_and_validate_crd(Json& crd) {
  std::vector<std::string> errs;
  Json& spec = crd["spec"];
  if (!spec.is_object()) spec = Json::object();
  Json& names = spec["names"];
  if (!names.is_object()) names = Json::object();
  // v1/defaults.go SetDefaults_CustomResourceDefinitionSpec.
  const std::string kind = str(names, "kind");
  if (str(names, "singular").empty() && !kind.empty()) names["singular"] = lower(kind);
  if (str(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
  if (!spec.contains("conversion")) spec["conversion"] = {{"strategy", "None"}};
  const std::string group = str(spec, "group");
  const std::string name = str(crd["metadata"], "name");
  if (name != str(names, "plural") + "." + group)
    errs.push_back(invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
  if (group.empty()) errs.push_back(required("spec.group"));
  else if (!dns_subdomain_error(group).empty()) errs.push_back(invalid("spec.group", group, dns_subdomain_error(group)));
  else if (group.find('.') == std::string::npos) errs.push_back(invalid("spec.group", group, "should be a domain with at least one dot"));
  const std::string scope = str(spec, "scope");
  if (scope.empty()) errs.push_back(required("spec.scope"));
  else if (scope != "Cluster" && scope != "Namespaced") errs.push_back(unsupported("spec.scope", scope, {"Cluster", "Namespaced"}));
  validate_versions(spec, errs);
  validate_names(names, errs);
  return errs;
}

std::vector<std::string> validate_crd_update(const Json& updated, const Json& old) {
  std::vector<std::string> errs;
  const auto immutable = [&](const char* path, const Json& a, const Json& b) {
    if (a != b) errs.push_back(invalid(path, a, "field is immutable"));
  };
  const Json& s = updated["spec"];
  const Json& o = old["spec"];
  immutable("spec.scope", s.value("scope", Json()), o.value("scope", Json()));
  immutable("spec.names.kind", s["names"].value("kind", Json()), o["names"].value("kind", Json()));
  immutable("spec.group", s.value("group", Json()), o.value("group", Json()));
  immutable("spec.names.plural", s["names"].value("plural", Json()), o["names"].value("plural", Json()));
  return errs;
}

CrdSpec crd_spec(const Json& crd) {
  const Json& spec = crd["spec"];
  const Json& names = spec["names"];
  CrdSpec out;
  out.name = str(crd["metadata"], "name");
  out.group = str(spec, "group");
  out.kind = str(names, "kind");
  out.list_kind = str(names, "listKind");
  out.plural = str(names, "plural");
  out.singular = str(names, "singular");
  for (const char* key : {"shortNames", "categories"})
    if (const auto it = names.find(key); it != names.end() && it->is_array())
      for (const Json& n : *it)
        if (n.is_string()) (key[0] == 's' ? out.short_names : out.categories).push_back(n.get<std::string>());
  out.namespaced = str(spec, "scope") == "Namespaced";
  for (const Json& v : spec["versions"]) {
    if (v.value("storage", false) != true) continue;
    out.version = str(v, "name");
    const auto sub = v.find("subresources");
    out.status_subresource = sub != v.end() && sub->is_object() && sub->contains("status");
    if (const auto schema = v.find("schema"); schema != v.end() && schema->is_object())
      out.schema = schema->value("openAPIV3Schema", Json());
  }
  return out;
}

Json crd_status(const CrdSpec& spec, const std::string& now) {
  Json accepted = {{"plural", spec.plural}, {"singular", spec.singular}, {"kind", spec.kind}, {"listKind", spec.list_kind}};
  if (!spec.short_names.empty()) accepted["shortNames"] = spec.short_names;
  if (!spec.categories.empty()) accepted["categories"] = spec.categories;
  const auto condition = [&](const char* type, const char* reason, const char* message) {
    return Json{{"type", type}, {"status", "True"}, {"lastTransitionTime", now}, {"reason", reason}, {"message", message}};
  };
  return {{"acceptedNames", accepted},
          {"conditions",
           {condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted")}},
          {"storedVersions", {spec.version}}};
}

std::string invalid_message(const std::string& qualified_kind, const std::string& name,
                            const std::vector<std::string>& errors) {
  std::string msg = qualified_kind + " \"" + name + "\" is invalid: ";
  if (errors.size() == 1) return msg + errors.front();
  msg += "[";
  for (std::size_t i = 0; i < errors.size(); ++i) msg += (i ? ", " : "") + errors[i];
  return msg + "]";
}

Json invalid_status(const std::string& group, const std::string& kind, const std::string& name,
                    const std::vector<std::string>& errors) {
  Json causes = Json::array();
  for (const std::string& e : errors) {
    const auto colon = e.find(": ");
    const std::string message = colon == std::string::npos ? e : e.substr(colon + 2);
    const char* reason = message.rfind("Required value", 0) == 0      ? "FieldValueRequired"
                         : message.rfind("Unsupported value", 0) == 0 ? "FieldValueNotSupported"
                         : message.rfind("Forbidden", 0) == 0         ? "FieldValueForbidden"
                                                                      : "FieldValueInvalid";
    causes.push_back({{"reason", reason}, {"message", message}, {"field", colon == std::string::npos ? "" : e.substr(0, colon)}});
  }
  Json details = {{"name", name}, {"kind", kind}, {"causes", causes}};
  if (!group.empty()) details["group"] = group;
  return {{"kind", "Status"},  {"apiVersion", "v1"},    {"metadata", Json::object()},
          {"status", "Failure"}, {"message", invalid_message(kind + (group.empty() ? "" : "." + group), name, errors)},
          {"reason", "Invalid"}, {"details", details},  {"code", 422}};
}

std::string dns_subdomain_error(const std::string& name) {
  // apimachinery/pkg/util/validation IsDNS1123Subdomain.
  static const std::string kMessage =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  if (name.size() > 253) return "must be no more than 253 characters";
  if (name.empty()) return kMessage;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
    if (!alnum && c != '-' && c != '.') return kMessage;
    const bool edge = i == 0 || i + 1 == name.size() || name[i - 1] == '.' || name[i + 1] == '.';
    if (edge && !alnum) return kMessage;
  }
  return {};
}

namespace {

constexpr int kMaxSchemaDepth = 64;

std::string joined(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// The JSON type name of a value as kube-openapi reports it.
const char* type_name(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool type_matches(const std::string& type, const Json& v, const Json& schema) {
  if (schema.value("x-kubernetes-int-or-string", false) == true) return v.is_number_integer() || v.is_string();
  if (type.empty()) return true;
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "string") return v.is_string();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return true;
}

// apiextensions-apiserver/pkg/apiserver/validation (kube-openapi's validate package) for the
// keywords listed in validate_against_schema's contract. Recursion follows the schema (its
// depth bounded here), not the object.
void validate_value(const Json& v, const Json& schema, const std::string& path, int depth, std::vector<std::string>& errs) {
  if (!schema.is_object() || depth > kMaxSchemaDepth) return;
  const std::string type = str(schema, "type");
  if (v.is_null()) {
    if (schema.value("nullable", false) != true && !type.empty())
      errs.push_back(invalid(path, "null", path + " in body must be of type " + type + ": \"null\""));
    return;
  }
  if (!type_matches(type, v, schema)) {
    const std::string want = schema.value("x-kubernetes-int-or-string", false) == true ? "integer,string" : type;
    errs.push_back(invalid(path, type_name(v), path + " in body must be of type " + want + ": \"" + type_name(v) + "\""));
    return;
  }
  if (const auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    std::vector<std::string> allowed;
    for (const Json& a : *e) {
      found = found || a == v;
      allowed.push_back(a.is_string() ? a.get<std::string>() : a.dump());
    }
    if (!found) errs.push_back(unsupported(path, v, allowed));
  }
  if (v.is_object()) {
    const auto props = schema.find("properties");
    if (const auto req = schema.find("required"); req != schema.end() && req->is_array())
      for (const Json& r : *req)
        if (r.is_string() && !v.contains(r.get<std::string>())) errs.push_back(required(joined(path, r.get<std::string>())));
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, value] : v.items()) {
      if (depth == 0 && key == "metadata") continue;  // validated as ObjectMeta, not by the schema
      const std::string child = joined(path, key);
      if (props != schema.end() && props->is_object() && props->contains(key))
        validate_value(value, (*props)[key], child, depth + 1, errs);
      else if (additional != schema.end() && additional->is_object())
        validate_value(value, *additional, child, depth + 1, errs);
    }
  } else if (v.is_array()) {
    if (const auto items = schema.find("items"); items != schema.end())
      for (std::size_t i = 0; i < v.size(); ++i)
        validate_value(v[i], *items, path + "[" + std::to_string(i) + "]", depth + 1, errs);
  }
}

}  // namespace

namespace {

void prune_nulls(Json& v, const Json& schema, int depth) {
  if (!schema.is_object() || depth > kMaxSchemaDepth) return;
  if (v.is_array()) {
    if (const auto items = schema.find("items"); items != schema.end())
      for (Json& item : v) prune_nulls(item, *items, depth + 1);
    return;
  }
  if (!v.is_object()) return;
  const auto props = schema.find("properties");
  const auto additional = schema.find("additionalProperties");
  for (auto it = v.begin(); it != v.end();) {
    const Json* child = nullptr;
    if (props != schema.end() && props->is_object() && props->contains(it.key())) child = &(*props)[it.key()];
    else if (additional != schema.end() && additional->is_object()) child = &*additional;
    if (child != nullptr && child->is_object() && it->is_null() && child->value("nullable", false) != true &&
        !child->contains("default")) {
      it = v.erase(it);
      continue;
    }
    if (child != nullptr) prune_nulls(*it, *child, depth + 1);
    ++it;
  }
}

}  // namespace

void prune_non_nullable_nulls(Json& object, const Json& schema) { prune_nulls(object, schema, 0); }

std::vector<std::string> validate_against_schema(const Json& object, const Json& schema) {
  std::vector<std::string> errs;
  validate_value(object, schema, "", 0, errs);
  return errs;
}

}  // namespace kubesim::api
