#include "api/selector.hpp"

#include <gtest/gtest.h>

namespace kubesim::api {
namespace {

using nlohmann::json;

bool label_match(const std::string& selector, const Labels& labels) {
  return parse_label_selector(selector).matches(labels);
}

TEST(ApiLabelSelectorTest, OperatorsMatchAsUpstream) {
  const Labels l = {{"app", "web"}, {"size", "5"}, {"tier", "front"}};  // sorted by key
  EXPECT_TRUE(label_match("", l));
  EXPECT_TRUE(label_match("app=web", l));
  EXPECT_TRUE(label_match("app==web", l));
  EXPECT_FALSE(label_match("app=db", l));
  EXPECT_TRUE(label_match("app!=db", l));
  EXPECT_TRUE(label_match("missing!=x", l));  // != matches objects without the label
  EXPECT_TRUE(label_match("app in (db, web)", l));
  EXPECT_FALSE(label_match("app notin (db,web)", l));
  EXPECT_TRUE(label_match("missing notin (a)", l));
  EXPECT_TRUE(label_match("tier", l));
  EXPECT_FALSE(label_match("!tier", l));
  EXPECT_TRUE(label_match("!missing", l));
  EXPECT_TRUE(label_match("  app = web ,  tier in ( front ) ", l));
  EXPECT_TRUE(label_match("size>3,size<6", l));
  EXPECT_FALSE(label_match("size>5", l));
  EXPECT_TRUE(label_match("example.com/x!=y", l));
  EXPECT_FALSE(label_match("app=", l));
  EXPECT_TRUE(label_match("empty=", {{"empty", ""}}));
}

TEST(ApiLabelSelectorTest, ParsedRequirementsSortedByKey) {
  LabelQuery q = parse_label_selector("z=1,a in (c,b,b)");
  ASSERT_EQ(q.requirements.size(), 2u);
  EXPECT_EQ(q.requirements[0].key, "a");
  EXPECT_EQ(q.requirements[0].op, LabelRequirement::Op::kIn);
  EXPECT_EQ(q.requirements[0].values, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(q.requirements[1].op, LabelRequirement::Op::kEquals);
}

TEST(ApiLabelSelectorTest, Errors) {
  for (const char* bad : {"a in ()", "a in (b", "a b", "=b", "a=b,", "a=(b)", "-a=b", "a>b", "a=b c", "a in b", "!a=b"})
    EXPECT_THROW(parse_label_selector(bad), SelectorError) << bad;
}

TEST(ApiLabelSelectorTest, MatchesJsonObject) {
  json pod = json::parse(R"({"metadata":{"labels":{"app":"web"}}})");
  EXPECT_TRUE(parse_label_selector("app=web").matches_object(pod));
  EXPECT_FALSE(parse_label_selector("app").matches_object(json::parse(R"({"metadata":{}})")));
}

// kube-scheduler's pod informer filter.
TEST(ApiFieldSelectorTest, SchedulerPodFilter) {
  FieldQuery q = parse_field_selector("status.phase!=Succeeded,status.phase!=Failed");
  ASSERT_EQ(q.requirements.size(), 2u);
  EXPECT_FALSE(q.requirements[0].equal);
  json pod = json::parse(R"({"metadata":{"name":"p","namespace":"default"},"spec":{"nodeName":"n1"},
                             "status":{"phase":"Running"}})");
  auto get = field_getter("pods", pod);
  EXPECT_EQ(q.unsupported_field(get), std::nullopt);
  EXPECT_TRUE(q.matches(get));
  pod["status"]["phase"] = "Failed";
  EXPECT_FALSE(q.matches(get));
  EXPECT_TRUE(parse_field_selector("spec.nodeName=n1").matches(get));
  EXPECT_TRUE(parse_field_selector("spec.nodeName==n1,metadata.namespace=default").matches(get));
  EXPECT_TRUE(parse_field_selector("status.nominatedNodeName=").matches(get));
  EXPECT_EQ(parse_field_selector("spec.bogus=x").unsupported_field(get), "spec.bogus");
  EXPECT_TRUE(parse_field_selector("").empty());
}

TEST(ApiFieldSelectorTest, EscapesAndErrors) {
  FieldQuery q = parse_field_selector(R"(metadata.name=a\,b\=c\\d)");
  ASSERT_EQ(q.requirements.size(), 1u);
  EXPECT_EQ(q.requirements[0].value, R"(a,b=c\d)");
  EXPECT_THROW(parse_field_selector("metadata.name"), SelectorError);
  EXPECT_THROW(parse_field_selector(R"(metadata.name=a\x)"), SelectorError);
  EXPECT_THROW(parse_field_selector("metadata.name=a=b"), SelectorError);
  try {
    parse_field_selector("foo");
  } catch (const SelectorError& e) {
    EXPECT_EQ(std::string(e.what()), "invalid selector: 'foo'; can't understand 'foo'");
  }
}

TEST(ApiFieldSelectorTest, PerKindFields) {
  json node = json::parse(R"({"metadata":{"name":"n"},"spec":{"unschedulable":true}})");
  EXPECT_EQ(node_field(node, "spec.unschedulable"), "true");
  EXPECT_EQ(node_field(json::parse(R"({"metadata":{"name":"n"}})"), "spec.unschedulable"), "false");
  EXPECT_EQ(node_field(node, "status.phase"), std::nullopt);
  EXPECT_EQ(namespace_field(json::parse(R"({"status":{"phase":"Active"}})"), "status.phase"), "Active");
  EXPECT_EQ(job_field(json::parse(R"({"status":{"succeeded":3}})"), "status.successful"), "3");
  EXPECT_EQ(job_field(json::parse(R"({"status":{}})"), "status.successful"), "0");
  json ev = json::parse(R"({"metadata":{"name":"e","namespace":"default"},"reason":"Scheduled","type":"Normal",
    "involvedObject":{"kind":"Pod","name":"p","uid":"u"},"source":{"component":"default-scheduler"},
    "reportingComponent":"default-scheduler"})");
  EXPECT_EQ(event_field(ev, "involvedObject.name"), "p");
  EXPECT_EQ(event_field(ev, "involvedObject.fieldPath"), "");
  EXPECT_EQ(event_field(ev, "source"), "default-scheduler");
  EXPECT_EQ(event_field(ev, "reason"), "Scheduled");
  json ev2 = json::parse(R"({"regarding":{"kind":"Pod","name":"q"},"reportingController":"default-scheduler"})");
  EXPECT_EQ(event_field(ev2, "involvedObject.name"), "q");
  EXPECT_EQ(event_field(ev2, "reportingComponent"), "default-scheduler");
  EXPECT_EQ(field_getter("leases", ev)("metadata.name"), "e");
  EXPECT_EQ(field_getter("leases", ev)("reason"), std::nullopt);
  EXPECT_EQ(pod_field(json::parse(R"({"spec":{}})"), "spec.hostNetwork"), "false");
}

}  // namespace
}  // namespace kubesim::api
