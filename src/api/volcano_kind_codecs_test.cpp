#include "api/volcano_kind_codecs.hpp"

#include <gtest/gtest.h>

namespace kubesim::api {
namespace {

TEST(VolcanoQueueCodec, RoundTripsTheSpecWithTheWebhooksDefaults) {
  ResourceNames names;
  volcano::QueueSpec q;
  ASSERT_EQ(decode_volcano_queue(R"({"metadata":{"name":"research"},
    "spec":{"weight":3,"capability":{"cpu":"4","memory":"8Gi"},"guarantee":{"resource":{"cpu":"500m"}},
    "reclaimable":false}})", q, names), "");
  EXPECT_EQ(q.name, "research");
  EXPECT_EQ(q.weight, 3);
  EXPECT_EQ(q.capability[kCpu], 4000);
  EXPECT_EQ(q.capability_slots, (1u << kCpu) | (1u << kMemory));
  EXPECT_EQ(q.guarantee[kCpu], 500);
  EXPECT_FALSE(q.reclaimable);
  EXPECT_TRUE(q.open);
  EXPECT_EQ(volcano_queue_json(q, names).dump(),
            R"({"spec":{"capability":{"cpu":"4","memory":"8Gi"},"guarantee":{"resource":{"cpu":"500m"}},)"
            R"("reclaimable":false,"weight":3}})");
  // mutate_queue.go: weight 1 and reclaimable true when absent (or weight 0).
  ASSERT_EQ(decode_volcano_queue(R"({"metadata":{"name":"q"},"spec":{"weight":0}})", q, names), "");
  EXPECT_EQ(q.weight, 1);
  EXPECT_TRUE(q.reclaimable);
  EXPECT_EQ(q.capability_slots, 0u);
  ASSERT_EQ(decode_volcano_queue(R"({"metadata":{"name":"q"},"status":{"state":"Closed"}})", q, names), "");
  EXPECT_FALSE(q.open);
}

TEST(VolcanoQueueCodec, RefusesWhatTheValidatingWebhookRefuses) {
  ResourceNames names;
  volcano::QueueSpec q;
  EXPECT_EQ(decode_volcano_queue(R"({"metadata":{"name":"q"},"spec":{"weight":-2}})", q, names),
            "spec.weight: Invalid value: -2: queue weight must be a positive integer");
  EXPECT_EQ(decode_volcano_queue(R"({"metadata":{"name":"q"},"status":{"state":"Closing"}})", q, names),
            "status.state: Invalid value: \"Closing\": queue state must be in [Open Closed]");
  EXPECT_EQ(decode_volcano_queue(R"({"metadata":{"name":"q"},"spec":{"capability":{"cpu":"x"}}})", q, names).substr(0, 46),
            "spec.capability.cpu: Invalid value: \"x\": quant");
}

}  // namespace
}  // namespace kubesim::api
