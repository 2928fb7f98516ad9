// The pod table's storage: ColdText (a pod's status texts) behaves as the std::string it
// replaced, and HugePageAllocator's blocks (huge-page advised or not) hold what was put in.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/huge_pages.hpp"
#include "model/objects.hpp"

namespace kubesim {
namespace {

TEST(ColdText, ReadsAssignsAndComparesAsAString) {
  ColdText t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.str(), "");
  EXPECT_EQ(t, "");
  t = "OutOfcpu";
  EXPECT_FALSE(t.empty());
  EXPECT_EQ(t, "OutOfcpu");
  EXPECT_EQ(t, std::string("OutOfcpu"));
  EXPECT_NE(t, "DeadlineExceeded");
  const std::string& as_string = t;
  EXPECT_EQ(as_string.size(), 8u);
  t = std::string();  // assigning an empty string frees the text
  EXPECT_TRUE(t.empty());
  t = "x";
  t.clear();
  EXPECT_TRUE(t.empty());
}

TEST(ColdText, CopiesAreIndependent) {
  Pod a;
  a.reason = "Evicted";
  a.message = "The node was low on resource: memory.";
  Pod b = a;
  b.reason = "DeadlineExceeded";
  EXPECT_EQ(a.reason, "Evicted");
  EXPECT_EQ(b.reason, "DeadlineExceeded");
  EXPECT_EQ(b.message, a.message.str());
  Pod c = std::move(b);
  EXPECT_EQ(c.reason, "DeadlineExceeded");
  a = c;
  EXPECT_EQ(a.reason, "DeadlineExceeded");
  EXPECT_TRUE(a.unschedulable_message.empty());
}

TEST(HugePageAllocator, LargeAndSmallBlocksKeepTheirContents) {
  // 3 MiB of integers (huge-page advised) and a small block (ordinary memory).
  HugePageVector<std::uint64_t> big(3u << 17);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i * 7;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % HugePageAllocator<std::uint64_t>::kHugePage, 0u);
  big.push_back(1);  // grows: moves into a new block
  for (std::size_t i = 0; i + 1 < big.size(); ++i) ASSERT_EQ(big[i], i * 7);
  HugePageVector<std::uint64_t> small{1, 2, 3};
  EXPECT_EQ(small[2], 3u);
  HugePageVector<Pod> pods(20000);  // 4 MB of pods
  pods[19999].reason = "OutOfcpu";
  EXPECT_EQ(pods[19999].reason, "OutOfcpu");
}

}  // namespace
}  // namespace kubesim
