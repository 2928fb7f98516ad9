#include "core/random.hpp"

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/distribution.hpp"
#include "core/error.hpp"

namespace kubesim {
namespace {

std::vector<std::uint64_t> draws(RandomStream s, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(s.next_u64());
  return out;
}

TEST(RandomStream, SameSeedAndNameSameSequence) {
  EXPECT_EQ(draws(RandomStream(42, "scheduler/select-host"), 100), draws(RandomStream(42, "scheduler/select-host"), 100));
}

TEST(RandomStream, DifferentNamesOrSeedsDiffer) {
  const auto a = draws(RandomStream(42, "kubelet/startup"), 16);
  const auto b = draws(RandomStream(42, "kubelet/status"), 16);
  const auto c = draws(RandomStream(43, "kubelet/startup"), 16);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  // Not merely shifted copies of each other either.
  std::set<std::uint64_t> sa(a.begin(), a.end());
  for (auto v : b) EXPECT_EQ(sa.count(v), 0u);
}

TEST(RandomStream, DrawingFromOneStreamDoesNotAffectAnother) {
  RandomStream x(7, "x");
  RandomStream y(7, "y");
  const RandomStream y_copy = y;
  for (int i = 0; i < 1000; ++i) x.next_u64();
  EXPECT_EQ(draws(y, 10), draws(y_copy, 10));
}

TEST(RandomStream, UniformBelowRange) {
  RandomStream s(1, "range");
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(s.uniform_below(1), 0u);
  for (std::uint64_t n : {2ull, 3ull, 7ull, 1000ull, (1ull << 63) + 1}) {
    for (int i = 0; i < 2000; ++i) EXPECT_LT(s.uniform_below(n), n);
  }
}

TEST(RandomStream, UniformBelowRoughlyUniform) {
  RandomStream s(2024, "uniformity");
  constexpr int kBuckets = 10;
  constexpr int kDraws = 200'000;
  int count[kBuckets] = {};
  for (int i = 0; i < kDraws; ++i) ++count[s.uniform_below(kBuckets)];
  // Expected 20000 per bucket, sd ~134: allow 5%, i.e. ~7 sd.
  double chi2 = 0;
  for (int c : count) {
    EXPECT_NEAR(c, kDraws / kBuckets, kDraws / kBuckets * 0.05);
    const double d = c - kDraws / kBuckets;
    chi2 += d * d / (kDraws / kBuckets);
  }
  EXPECT_LT(chi2, 40.0);  // 9 degrees of freedom: p(chi2 > 40) < 1e-5
}

TEST(RandomStream, Uniform01AndNormal) {
  RandomStream s(3, "moments");
  double sum = 0, sum_n = 0, sum_n2 = 0;
  constexpr int kN = 100'000;
  for (int i = 0; i < kN; ++i) {
    const double u = s.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    const double z = s.standard_normal();
    sum_n += z;
    sum_n2 += z * z;
  }
  EXPECT_NEAR(sum / kN, 0.5, 0.01);
  EXPECT_NEAR(sum_n / kN, 0.0, 0.02);
  EXPECT_NEAR(sum_n2 / kN, 1.0, 0.03);
}

TEST(Distribution, ParseValid) {
  struct Case {
    const char* spec;
    const char* canonical;
  };
  const Case cases[] = {
      {"fixed:2", "fixed:2"},           {"2", "fixed:2"},
      {"0", "fixed:0"},                 {"0.5", "fixed:0.5"},
      {"uniform:1:2", "uniform:1:2"},   {"uniform:3:3", "uniform:3:3"},
      {"normal:1:0.2", "normal:1:0.2"}, {"normal:-1:0", "normal:-1:0"},
      {"lognormal:0:1", "lognormal:0:1"}, {"exponential:3", "exponential:3"},
      {"fixed:+1.5", "fixed:1.5"},
  };
  for (const auto& c : cases) EXPECT_EQ(Distribution::parse(c.spec, "f", 1).to_string(), c.canonical) << c.spec;
  EXPECT_TRUE(Distribution::parse("0", "f", 1).is_zero());
  EXPECT_TRUE(Distribution().is_zero());
  EXPECT_FALSE(Distribution::parse("fixed:1", "f", 1).is_zero());
  EXPECT_FALSE(Distribution::parse("uniform:0:0", "f", 1).is_zero());
}

TEST(Distribution, ParseInvalid) {
  const char* bad[] = {"",          "fixed",         "fixed:",        "fixed:-1",   "-1",
                       "uniform:2:1", "uniform:-1:1", "uniform:1",    "normal:1:-1", "lognormal:0:-1",
                       "exponential:-1", "exponential:1:2", "gauss:1", "fixed:abc", "fixed:inf",
                       "fixed:nan", "inf",            "fixed:1:2",    "fixed:1 x",  "uniform:1:2:3"};
  for (const char* spec : bad) EXPECT_THROW(Distribution::parse(spec, "model.yaml", 7), InputError) << spec;
}

TEST(Distribution, ErrorMessageNamesFileAndLine) {
  try {
    Distribution::parse("gauss:1", "model.yaml", 7);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "model.yaml");
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(std::string(e.what()),
              "model.yaml:7: invalid distribution \"gauss:1\": expected fixed:S, uniform:A:B, normal:MEAN:SD, "
              "lognormal:MU:SIGMA or exponential:MEAN (seconds, non-negative)");
  }
}

TEST(Distribution, FixedDrawsNothing) {
  RandomStream s(9, "latency");
  const RandomStream before = s;
  EXPECT_EQ(Distribution::parse("fixed:1.25", "f", 1).sample(s), Duration::micros(1'250'000));
  EXPECT_EQ(Distribution::parse("0", "f", 1).sample(s), Duration());
  EXPECT_EQ(Distribution::fixed(Duration::millis(3)).sample(s), Duration::millis(3));
  EXPECT_EQ(Distribution().sample(s), Duration());
  EXPECT_EQ(draws(s, 8), draws(before, 8));
}

TEST(Distribution, RandomKindsDrawAndStayInRange) {
  RandomStream s(9, "latency");
  const RandomStream before = s;
  const Distribution u = Distribution::parse("uniform:0.002:0.006", "f", 1);
  for (int i = 0; i < 1000; ++i) {
    const Duration d = u.sample(s);
    EXPECT_GE(d, Duration::micros(2000));
    EXPECT_LE(d, Duration::micros(6000));
  }
  EXPECT_NE(draws(s, 4), draws(before, 4));
  // A draw is clamped at zero.
  const Distribution neg = Distribution::parse("normal:-100:0.001", "f", 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(neg.sample(s), Duration());
  // Exponential mean ~ 2 s.
  const Distribution e = Distribution::parse("exponential:2", "f", 1);
  double sum = 0;
  for (int i = 0; i < 20000; ++i) sum += e.sample(s).to_seconds();
  EXPECT_NEAR(sum / 20000, 2.0, 0.1);
}

TEST(Distribution, SampleIsDeterministicPerStream) {
  const Distribution n = Distribution::parse("normal:1.0:0.2", "f", 1);
  RandomStream a(5, "kubelet/startup");
  RandomStream b(5, "kubelet/startup");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(n.sample(a), n.sample(b));
}

}  // namespace
}  // namespace kubesim
