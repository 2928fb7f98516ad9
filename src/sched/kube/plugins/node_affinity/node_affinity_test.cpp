// NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go v1.26;
// component-helpers/scheduling/corev1/nodeaffinity; apimachinery labels.Requirement.Matches).
#include "sched/kube/plugins/node_affinity/node_affinity.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace kubesim {
namespace {

const ClusterStats kNoStats{};

using Op = NodeSelectorRequirement::Operator;

Node make_node(std::string name, Labels labels) {
  Node n;
  n.name = std::move(name);
  for (auto& [k, v] : labels) set_label(n.labels, k, v);
  return n;
}

NodeSelectorTerm expr(std::vector<NodeSelectorRequirement> reqs) {
  NodeSelectorTerm t;
  t.match_expressions = std::move(reqs);
  return t;
}

TEST(NodeSelectorTerm, Operators) {
  const Node n = make_node("node-a", {{"zone", "z1"}, {"gen", "5"}, {"tier", "gold"}});
  struct Case {
    const char* name;
    NodeSelectorRequirement r;
    bool want;
  };
  const Case cases[] = {
      {"In match", {"zone", Op::kIn, {"z0", "z1"}}, true},
      {"In no match", {"zone", Op::kIn, {"z2"}}, false},
      {"In missing label", {"absent", Op::kIn, {"x"}}, false},
      {"NotIn match", {"zone", Op::kNotIn, {"z2"}}, true},
      {"NotIn excluded", {"zone", Op::kNotIn, {"z1"}}, false},
      {"NotIn missing label matches", {"absent", Op::kNotIn, {"x"}}, true},
      {"Exists", {"tier", Op::kExists, {}}, true},
      {"Exists missing", {"absent", Op::kExists, {}}, false},
      {"DoesNotExist", {"absent", Op::kDoesNotExist, {}}, true},
      {"DoesNotExist present", {"tier", Op::kDoesNotExist, {}}, false},
      {"Gt", {"gen", Op::kGt, {"4"}}, true},
      {"Gt equal", {"gen", Op::kGt, {"5"}}, false},
      {"Lt", {"gen", Op::kLt, {"6"}}, true},
      {"Lt equal", {"gen", Op::kLt, {"5"}}, false},
      {"Gt negative bound", {"gen", Op::kGt, {"-1"}}, true},
      {"Gt non-integer label", {"tier", Op::kGt, {"1"}}, false},
      {"Gt non-integer value", {"gen", Op::kGt, {"x"}}, false},
      {"Gt missing label", {"absent", Op::kGt, {"1"}}, false},
      {"Gt needs exactly one value", {"gen", Op::kGt, {"1", "2"}}, false},
  };
  for (const auto& c : cases) EXPECT_EQ(node_selector_term_matches(expr({c.r}), n), c.want) << c.name;
}

TEST(NodeSelectorTerm, RequirementsAreAndedAndEmptyTermMatchesNothing) {
  const Node n = make_node("node-a", {{"zone", "z1"}, {"tier", "gold"}});
  EXPECT_TRUE(node_selector_term_matches(expr({{"zone", Op::kIn, {"z1"}}, {"tier", Op::kExists, {}}}), n));
  EXPECT_FALSE(node_selector_term_matches(expr({{"zone", Op::kIn, {"z1"}}, {"tier", Op::kIn, {"silver"}}}), n));
  EXPECT_FALSE(node_selector_term_matches(NodeSelectorTerm{}, n));
}

TEST(NodeSelectorTerm, MatchFieldsMetadataName) {
  const Node n = make_node("node-a", {});
  NodeSelectorTerm t;
  t.match_fields = {{"metadata.name", Op::kIn, {"node-a"}}};
  EXPECT_TRUE(node_selector_term_matches(t, n));
  t.match_fields = {{"metadata.name", Op::kIn, {"node-b"}}};
  EXPECT_FALSE(node_selector_term_matches(t, n));
  t.match_fields = {{"metadata.name", Op::kNotIn, {"node-b"}}};
  EXPECT_TRUE(node_selector_term_matches(t, n));
  // Fields and expressions in one term are ANDed.
  t.match_fields = {{"metadata.name", Op::kIn, {"node-a"}}};
  t.match_expressions = {{"zone", Op::kExists, {}}};
  EXPECT_FALSE(node_selector_term_matches(t, n));
}

PodTemplate with_selector(Labels sel, std::vector<NodeSelectorTerm> required = {}) {
  PodTemplate p;
  for (auto& [k, v] : sel) set_label(p.node_selector, k, v);
  p.affinity.required_terms = std::move(required);
  p.has_affinity = !p.affinity.required_terms.empty();
  p.finalize();
  return p;
}

TEST(NodeAffinityFilter, NodeSelectorAndRequiredTerms) {
  const Node a = make_node("a", {{"disk", "ssd"}, {"zone", "z1"}});
  const Node b = make_node("b", {{"disk", "hdd"}, {"zone", "z2"}});
  EXPECT_TRUE(pod_matches_node_selector_and_affinity(with_selector({}), a));
  EXPECT_TRUE(pod_matches_node_selector_and_affinity(with_selector({{"disk", "ssd"}}), a));
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(with_selector({{"disk", "ssd"}}), b));
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(with_selector({{"disk", "ssd"}, {"zone", "z2"}}), a));
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(with_selector({{"gpu", ""}}), a));  // absent label
  // Terms are ORed.
  const auto either = with_selector({}, {expr({{"zone", Op::kIn, {"z9"}}}), expr({{"disk", Op::kIn, {"hdd"}}})});
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(either, a));
  EXPECT_TRUE(pod_matches_node_selector_and_affinity(either, b));
  // nodeSelector and affinity must both match.
  const auto both = with_selector({{"disk", "ssd"}}, {expr({{"zone", Op::kIn, {"z2"}}})});
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(both, a));
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(both, b));
  // An empty term among the ORed terms matches nothing, the other may still match.
  const auto with_empty = with_selector({}, {NodeSelectorTerm{}, expr({{"zone", Op::kExists, {}}})});
  EXPECT_TRUE(pod_matches_node_selector_and_affinity(with_empty, a));
  EXPECT_FALSE(pod_matches_node_selector_and_affinity(with_selector({}, {NodeSelectorTerm{}}), a));
}

TEST(NodeAffinityFilter, PluginStatusAndApplies) {
  const Node a = make_node("a", {{"disk", "ssd"}});
  NodeInfo ni;
  ni.set_node(NodeId(0), a);
  ObjectStore store;
  NodeAffinityPlugin plugin;
  const PodTemplate none = with_selector({});
  EXPECT_FALSE(plugin.applies(CycleContext{store, PodId(0), none, kNoStats}));
  const PodTemplate hdd = with_selector({{"disk", "hdd"}});
  const CycleContext ctx{store, PodId(0), hdd, kNoStats};
  EXPECT_TRUE(plugin.applies(ctx));
  const FilterResult r = plugin.filter(ctx, ni);
  EXPECT_EQ(r.code, StatusCode::kUnschedulableAndUnresolvable);
  EXPECT_EQ(r.reason(), "node(s) didn't match Pod's node affinity/selector");
  const PodTemplate ssd = with_selector({{"disk", "ssd"}});
  EXPECT_TRUE(plugin.filter(CycleContext{store, PodId(0), ssd, kNoStats}, ni).ok());
}

TEST(NodeAffinityScore, PreferredWeightsNormalized) {
  std::vector<Node> nodes = {make_node("n0", {}), make_node("n1", {{"zone", "z1"}}),
                             make_node("n2", {{"zone", "z1"}, {"disk", "ssd"}}), make_node("n3", {{"disk", "ssd"}})};
  std::vector<NodeInfo> infos(nodes.size());
  std::vector<const NodeInfo*> ptrs;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    infos[i].set_node(NodeId(static_cast<std::uint32_t>(i)), nodes[i]);
    ptrs.push_back(&infos[i]);
  }
  PodTemplate p;
  p.affinity.preferred = {{2, expr({{"zone", Op::kIn, {"z1"}}})},
                          {6, expr({{"disk", Op::kExists, {}}})},
                          {0, expr({{"zone", Op::kExists, {}}})}};  // weight 0 ignored
  p.has_affinity = true;
  p.finalize();
  ObjectStore store;
  std::vector<std::int64_t> scores(4, -1);
  NodeAffinityPlugin().score(CycleContext{store, PodId(0), p, kNoStats}, ptrs, scores);
  // Sums 0, 2, 8, 6 -> DefaultNormalizeScore(100, reverse=false): 100*s/8 -> 0, 25, 100, 75.
  EXPECT_EQ(scores, (std::vector<std::int64_t>{0, 25, 100, 75}));

  PodTemplate q;  // no preferences: all 0, left at 0 (not reversed)
  q.finalize();
  NodeAffinityPlugin().score(CycleContext{store, PodId(0), q, kNoStats}, ptrs, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace kubesim
