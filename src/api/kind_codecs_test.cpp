#include "api/kind_codecs.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace kubesim::api {
namespace {

TEST(ElasticQuotaCodec, RoundTripsMinAndMax) {
  ResourceNames names;
  ElasticQuotaObject q;
  const std::string json = R"({"metadata":{"name":"q","namespace":"team"},
    "spec":{"min":{"cpu":"500m","memory":"1Gi"},"max":{"cpu":2,"nvidia.com/gpu":"1"}}})";
  ASSERT_EQ(decode_elastic_quota(json, q, names), "");
  EXPECT_EQ(q.name, "q");
  EXPECT_EQ(q.ns, "team");
  EXPECT_EQ(q.min[kCpu], 500);
  EXPECT_EQ(q.min[kMemory], std::int64_t{1} << 30);
  EXPECT_EQ(q.max[kCpu], 2000);
  EXPECT_TRUE(q.max_set[kCpu]);
  EXPECT_FALSE(q.max_set[kMemory]);  // a max list without memory: memory's max is 0 for the plugin
  EXPECT_EQ(elastic_quota_json(q, names).dump(),
            R"({"spec":{"max":{"cpu":"2","nvidia.com/gpu":"1"},"min":{"cpu":"500m","memory":"1Gi"}}})");
}

TEST(ElasticQuotaCodec, AbsentMaxIsUnboundedAndLeftOut) {
  ResourceNames names;
  ElasticQuotaObject q;
  ASSERT_EQ(decode_elastic_quota(R"({"metadata":{"name":"q"},"spec":{"min":{"cpu":"1"}}})", q, names), "");
  EXPECT_TRUE(q.max_set[kMemory]);
  EXPECT_EQ(q.max[kMemory], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(elastic_quota_json(q, names).dump(), R"({"spec":{"min":{"cpu":"1"}}})");
}

TEST(ElasticQuotaCodec, RefusesMinAboveMaxAndBadQuantities) {
  ResourceNames names;
  ElasticQuotaObject q;
  EXPECT_EQ(decode_elastic_quota(R"({"metadata":{},"spec":{"min":{"cpu":"2"},"max":{"cpu":"1500m"}}})", q, names),
            "spec.min.cpu: Invalid value: \"2\": must be less than or equal to spec.max.cpu (1500m)");
  EXPECT_EQ(decode_elastic_quota(R"({"metadata":{},"spec":{"max":{"memory":"lots"}}})", q, names),
            "spec.max.memory: Invalid value: \"lots\": quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(decode_elastic_quota(R"({"metadata":{},"spec":{"min":[1]}})", q, names),
            "spec.min: Invalid value: [1]: expected a map of quantities");
}

}  // namespace
}  // namespace kubesim::api
