#include "api/custom_resources.hpp"

#include <gtest/gtest.h>

namespace kubesim::api {
namespace {

using Json = nlohmann::json;

Json widget_crd() {
  return Json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.io"},
    "spec":{"group":"example.io","scope":"Namespaced","names":{"kind":"Widget","plural":"widgets","shortNames":["wd"]},
      "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
        "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","required":["size"],
          "properties":{"size":{"type":"integer"},"q":{"x-kubernetes-int-or-string":true},
                        "tags":{"type":"array","items":{"type":"string"}}}}}}}}]}})");
}

TEST(CustomResources, ValidCrdIsDefaultedAndServedAtItsStorageVersion) {
  Json crd = widget_crd();
  EXPECT_TRUE(default_and_validate_crd(crd).empty());
  const CrdSpec spec = crd_spec(crd);
  EXPECT_EQ(spec.singular, "widget");
  EXPECT_EQ(spec.list_kind, "WidgetList");
  EXPECT_EQ(spec.version, "v1");
  EXPECT_TRUE(spec.namespaced);
  EXPECT_TRUE(spec.status_subresource);
  EXPECT_EQ(spec.short_names, std::vector<std::string>{"wd"});
  const Json status = crd_status(spec, "2026-01-01T00:00:00Z");
  EXPECT_EQ(status["conditions"][1]["type"], "Established");
  EXPECT_EQ(status["storedVersions"], Json::array({"v1"}));
}

TEST(CustomResources, BadCrdGetsTheApiserversFieldErrors) {
  Json crd = widget_crd();
  crd["metadata"]["name"] = "other.example.io";
  crd["spec"]["scope"] = "Global";
  crd["spec"]["versions"][0]["storage"] = false;
  const auto errors = default_and_validate_crd(crd);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], R"(metadata.name: Invalid value: "other.example.io": must be spec.names.plural+"."+spec.group)");
  EXPECT_EQ(errors[1], R"(spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced")");
  EXPECT_NE(errors[2].find("must have exactly one version marked as storage version"), std::string::npos);
  EXPECT_EQ(invalid_message("CustomResourceDefinition.apiextensions.k8s.io", "x", {"a: b"}),
            R"(CustomResourceDefinition.apiextensions.k8s.io "x" is invalid: a: b)");
  const Json status = invalid_status("example.io", "Widget", "w", {"spec.size: Required value"});
  EXPECT_EQ(status["code"], 422);
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldValueRequired");
  EXPECT_EQ(status["details"]["causes"][0]["field"], "spec.size");
}

TEST(CustomResources, CrdUpdateKeepsTheImmutableFields) {
  Json crd = widget_crd();
  default_and_validate_crd(crd);
  Json changed = crd;
  changed["spec"]["scope"] = "Cluster";
  changed["spec"]["names"]["shortNames"] = Json::array({"w"});
  const auto errors = validate_crd_update(changed, crd);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], R"(spec.scope: Invalid value: "Cluster": field is immutable)");
}

TEST(CustomResources, ObjectsAreCheckedAgainstTheSchema) {
  Json crd = widget_crd();
  default_and_validate_crd(crd);
  const Json schema = crd_spec(crd).schema;
  EXPECT_TRUE(validate_against_schema(Json::parse(R"({"metadata":{"name":"x"},"spec":{"size":2,"q":"10%","tags":["a"]}})"), schema).empty());
  const auto errors = validate_against_schema(Json::parse(R"({"spec":{"q":1.5,"tags":["a",2]}})"), schema);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "spec.size: Required value");
  EXPECT_EQ(errors[1], R"(spec.q: Invalid value: "number": spec.q in body must be of type integer,string: "number")");
  EXPECT_EQ(errors[2], R"(spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer")");
}

TEST(CustomResources, NullsOfNonNullableFieldsArePrunedNotRefused) {
  Json crd = widget_crd();
  default_and_validate_crd(crd);
  const Json schema = crd_spec(crd).schema;
  // A Go client's unset struct field (Kueue's ClusterQueue status.pendingWorkloadsStatus).
  Json object = Json::parse(R"({"metadata":{"name":"x"},"spec":{"size":2,"q":null,"tags":[null]}})");
  prune_non_nullable_nulls(object, schema);
  EXPECT_EQ(object, Json::parse(R"({"metadata":{"name":"x"},"spec":{"size":2,"tags":[null]}})"));
  // A null array item is not pruned (prunenulls.go walks properties only): still refused.
  ASSERT_EQ(validate_against_schema(object, schema).size(), 1u);
}

TEST(CustomResources, NamesAreDnsSubdomains) {
  EXPECT_EQ(dns_subdomain_error("pg-1.a"), "");
  EXPECT_NE(dns_subdomain_error("PG"), "");
  EXPECT_NE(dns_subdomain_error("a..b"), "");
  EXPECT_NE(dns_subdomain_error(""), "");
}

}  // namespace
}  // namespace kubesim::api
