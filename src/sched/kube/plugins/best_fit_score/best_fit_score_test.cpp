// BestFitScore on a hand-computed case (best_fit_score.go getBestFitScore).
#include <gtest/gtest.h>

#include "sched/kube/plugins/best_fit_score/best_fit_score.hpp"
#include "sched/kube/plugins/gpu_plugin/gpu_test_nodes.hpp"

namespace kubesim {
namespace {

using namespace gpu_test;

TEST(BestFitScore, LessLeftScoresHigher) {
  // (24000-4000)/128000*0.5 + (1400-500)/8000*0.5 = 0.134375 -> (1-0.134375)*100 = 86.
  EXPECT_EQ(best_fit_score(two_gpus(), share(500)), 86);
  // A fuller node: (600-500)/8000*0.5 + 0.078125 -> 91.5625 -> 91.
  EXPECT_EQ(best_fit_score(two_gpus(200, 400), share(500)), 91);
  EXPECT_EQ(best_fit_score(two_gpus(), share(500, 30000)), -1);  // not enough cpu
}

}  // namespace
}  // namespace kubesim
