// TaintToleration (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go v1.26)
// and Toleration::tolerates (k8s.io/api/core/v1/toleration.go ToleratesTaint).
#include "sched/kube/plugins/taint_toleration/taint_toleration.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kubesim {
namespace {

const ClusterStats kNoStats{};

using Op = Toleration::Operator;
constexpr auto kNoSchedule = TaintEffect::kNoSchedule;
constexpr auto kPrefer = TaintEffect::kPreferNoSchedule;
constexpr auto kNoExecute = TaintEffect::kNoExecute;

TEST(Toleration, ToleratesTaintRules) {
  struct Case {
    const char* name;
    Toleration t;
    Taint taint;
    bool want;
  };
  const Case cases[] = {
      {"equal, same key value effect", {"k", Op::kEqual, "v", kNoSchedule}, {"k", "v", kNoSchedule}, true},
      {"equal, different value", {"k", Op::kEqual, "v", kNoSchedule}, {"k", "w", kNoSchedule}, false},
      {"equal, different key", {"k", Op::kEqual, "v", kNoSchedule}, {"j", "v", kNoSchedule}, false},
      {"equal, different effect", {"k", Op::kEqual, "v", kNoSchedule}, {"k", "v", kNoExecute}, false},
      {"empty effect matches all effects", {"k", Op::kEqual, "v", std::nullopt}, {"k", "v", kPrefer}, true},
      {"exists ignores value", {"k", Op::kExists, "", kNoSchedule}, {"k", "anything", kNoSchedule}, true},
      {"exists still checks key", {"k", Op::kExists, "", std::nullopt}, {"j", "", kNoSchedule}, false},
      {"exists still checks effect", {"k", Op::kExists, "", kNoExecute}, {"k", "", kNoSchedule}, false},
      {"empty key + exists tolerates everything", {"", Op::kExists, "", std::nullopt}, {"x", "y", kNoExecute}, true},
      {"empty key + exists + effect", {"", Op::kExists, "", kPrefer}, {"x", "y", kNoSchedule}, false},
      // Empty key with Equal: the key check is skipped, the value must still match.
      {"empty key + equal, same value", {"", Op::kEqual, "y", std::nullopt}, {"x", "y", kNoSchedule}, true},
      {"empty key + equal, other value", {"", Op::kEqual, "", std::nullopt}, {"x", "y", kNoSchedule}, false},
      {"equal, empty values", {"k", Op::kEqual, "", std::nullopt}, {"k", "", kNoSchedule}, true},
  };
  for (const auto& c : cases) EXPECT_EQ(c.t.tolerates(c.taint), c.want) << c.name;
}

struct Fixture {
  std::vector<Node> nodes;
  std::vector<NodeInfo> infos;
  std::vector<const NodeInfo*> ptrs;
  ClusterStats stats;  // as the scheduler cache counts them
  explicit Fixture(std::vector<std::vector<Taint>> taints) {
    for (auto& t : taints) {
      Node n;
      n.name = "node" + std::to_string(nodes.size());
      n.taints = std::move(t);
      nodes.push_back(std::move(n));
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      NodeInfo ni;
      ni.set_node(NodeId(static_cast<std::uint32_t>(i)), nodes[i]);
      infos.push_back(ni);
    }
    for (const auto& ni : infos) ptrs.push_back(&ni);
    for (const auto& n : nodes) {
      bool hard = false, soft = false;
      for (const auto& t : n.taints) (t.effect == TaintEffect::kPreferNoSchedule ? soft : hard) = true;
      stats.hard_tainted_nodes += hard;
      stats.soft_tainted_nodes += soft;
    }
  }
  std::vector<std::int64_t> score(const PodTemplate& spec) const {
    ObjectStore store;
    std::vector<std::int64_t> s(ptrs.size(), -1);
    TaintToleration().score(CycleContext{store, PodId(0), spec, stats}, ptrs, s);
    return s;
  }
  // The plugin outlives the result: reasons point into the plugin's interned texts.
  FilterResult filter(const PodTemplate& spec, std::size_t i) const {
    ObjectStore store;
    return plugin.filter(CycleContext{store, PodId(0), spec, stats}, infos[i]);
  }
  TaintToleration plugin;
};

PodTemplate tolerating(std::vector<Toleration> t) {
  PodTemplate p;
  p.tolerations = std::move(t);
  p.finalize();
  return p;
}

TEST(TaintTolerationFilter, NoScheduleAndNoExecuteReject) {
  const Fixture f({{},
                   {{"dedicated", "gpu", kNoSchedule}},
                   {{"dedicated", "gpu", kNoExecute}},
                   {{"dedicated", "gpu", kPrefer}}});
  const PodTemplate plain = tolerating({});
  EXPECT_TRUE(f.filter(plain, 0).ok());
  const FilterResult r1 = f.filter(plain, 1);
  EXPECT_EQ(r1.code, StatusCode::kUnschedulableAndUnresolvable);
  EXPECT_EQ(std::string(r1.reason()).rfind("node(s) had untolerated taint", 0), 0u);
  EXPECT_FALSE(f.filter(plain, 2).ok());
  EXPECT_TRUE(f.filter(plain, 3).ok());  // PreferNoSchedule only affects the score

  const PodTemplate tol = tolerating({{"dedicated", Op::kEqual, "gpu", kNoSchedule}});
  EXPECT_TRUE(f.filter(tol, 1).ok());
  EXPECT_FALSE(f.filter(tol, 2).ok());  // effect mismatch
  const PodTemplate all = tolerating({{"", Op::kExists, "", std::nullopt}});
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(f.filter(all, i).ok()) << i;
}

TEST(TaintTolerationFilter, EveryTaintMustBeTolerated) {
  const Fixture f({{{"a", "1", kNoSchedule}, {"b", "2", kNoSchedule}}});
  EXPECT_FALSE(f.filter(tolerating({{"a", Op::kEqual, "1", std::nullopt}}), 0).ok());
  EXPECT_TRUE(f.filter(tolerating({{"a", Op::kEqual, "1", std::nullopt}, {"b", Op::kExists, "", std::nullopt}}), 0).ok());
}

// taint_toleration.go (v1.26) Filter:
//   errReason := fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
TEST(TaintTolerationFilter, ReasonNamesTheTaint) {
  const Fixture f({{{"dedicated", "gpu", kNoSchedule}}});
  const FilterResult r = f.filter(tolerating({}), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.reason(), "node(s) had untolerated taint {dedicated: gpu}");
}

TEST(TaintTolerationScore, NoTaintsEveryNode100) {
  // DefaultNormalizeScore(reverse=true) with all counts 0: every node MaxNodeScore.
  const Fixture f({{}, {}, {}});
  EXPECT_EQ(f.score(tolerating({})), (std::vector<std::int64_t>{100, 100, 100}));
  ObjectStore store;
  const PodTemplate p = tolerating({});
  const CycleContext ctx{store, PodId(0), p, f.stats};
  EXPECT_EQ(TaintToleration().uniform_score(ctx), std::optional<std::int64_t>(100));
  EXPECT_FALSE(TaintToleration().applies(ctx));  // no NoSchedule/NoExecute taint anywhere
  // All taints tolerated: counts all 0 -> 100 too.
  const Fixture g({{{"a", "1", kPrefer}}, {{"b", "2", kPrefer}}});
  EXPECT_EQ(g.score(tolerating({{"", Op::kExists, "", std::nullopt}})), (std::vector<std::int64_t>{100, 100}));
}

TEST(TaintTolerationScore, CountsIntolerablePreferNoScheduleReversed) {
  const Fixture f({{},
                   {{"a", "1", kPrefer}},
                   {{"a", "1", kPrefer}, {"b", "2", kPrefer}},
                   {{"c", "3", kNoSchedule}},  // NoSchedule taints are not counted by Score
                   {{"a", "1", kPrefer}, {"b", "2", kPrefer}, {"c", "3", kPrefer}, {"d", "4", kPrefer}}});
  // Counts 0,1,2,0,4 -> 100 - 100*c/4.
  EXPECT_EQ(f.score(tolerating({})), (std::vector<std::int64_t>{100, 75, 50, 100, 0}));
  // Counts 0,1,2,0,3 -> 100 - 100*c/3 (integer division): 100, 67, 34, 100, 0.
  const Fixture g({{},
                   {{"a", "1", kPrefer}},
                   {{"a", "1", kPrefer}, {"b", "2", kPrefer}},
                   {},
                   {{"a", "1", kPrefer}, {"b", "2", kPrefer}, {"c", "3", kPrefer}}});
  EXPECT_EQ(g.score(tolerating({})), (std::vector<std::int64_t>{100, 67, 34, 100, 0}));
}

TEST(TaintTolerationScore, OnlyPreferNoScheduleOrEmptyEffectTolerationsCount) {
  const Fixture f({{{"a", "1", kPrefer}}, {}});
  // getAllTolerationPreferNoSchedule keeps tolerations with empty effect or PreferNoSchedule.
  EXPECT_EQ(f.score(tolerating({{"a", Op::kEqual, "1", kPrefer}})), (std::vector<std::int64_t>{100, 100}));
  EXPECT_EQ(f.score(tolerating({{"a", Op::kExists, "", std::nullopt}})), (std::vector<std::int64_t>{100, 100}));
  EXPECT_EQ(f.score(tolerating({{"a", Op::kEqual, "1", kNoSchedule}})), (std::vector<std::int64_t>{0, 100}));
}

TEST(DefaultNormalizeScore, Table) {
  std::vector<std::int64_t> a = {0, 1, 2, 4};
  default_normalize_score(100, false, a);
  EXPECT_EQ(a, (std::vector<std::int64_t>{0, 25, 50, 100}));
  std::vector<std::int64_t> b = {0, 1, 2, 4};
  default_normalize_score(100, true, b);
  EXPECT_EQ(b, (std::vector<std::int64_t>{100, 75, 50, 0}));
  std::vector<std::int64_t> c = {0, 0};
  default_normalize_score(100, false, c);
  EXPECT_EQ(c, (std::vector<std::int64_t>{0, 0}));
  std::vector<std::int64_t> d = {0, 0};
  default_normalize_score(100, true, d);
  EXPECT_EQ(d, (std::vector<std::int64_t>{100, 100}));
  std::vector<std::int64_t> e = {1, 2, 3};
  default_normalize_score(100, false, e);
  EXPECT_EQ(e, (std::vector<std::int64_t>{33, 66, 100}));
}

}  // namespace
}  // namespace kubesim
