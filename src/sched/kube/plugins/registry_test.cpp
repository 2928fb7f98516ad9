#include "sched/kube/plugins/registry.hpp"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

TEST(PluginRegistry, InTreeHoldsTheDefaultPluginsAndNoOutOfTreeOnes) {
  const PluginRegistry r = in_tree_registry();
  for (const char* name : {"NodeResourcesFit", "TaintToleration", "DefaultPreemption", "VolumeBinding", "ImageLocality"})
    EXPECT_TRUE(r.contains(name)) << name;
  for (const char* name : {"Coscheduling", "CapacityScheduling", "NodeResourcesAllocatable", "NoSuchPlugin"})
    EXPECT_FALSE(r.contains(name)) << name;
  EXPECT_TRUE(out_of_tree_registry().contains("Coscheduling"));
  EXPECT_TRUE(out_of_tree_registry().contains("NodeResourcesFit"));
}

TEST(PluginRegistry, FactoriesMakeThePluginsKubesimModels) {
  const PluginRegistry r = in_tree_registry();
  const PluginArgs args;
  const auto fit = r.make("NodeResourcesFit", args);
  ASSERT_NE(fit, nullptr);
  EXPECT_STREQ(fit->name(), "NodeResourcesFit");
  const auto* filter = dynamic_cast<const FilterPlugin*>(fit.get());
  ASSERT_NE(filter, nullptr);
  EXPECT_TRUE(filter->is_fits_request());
  const auto taints = r.make("TaintToleration", args);
  ASSERT_NE(taints, nullptr);
  EXPECT_FALSE(dynamic_cast<const FilterPlugin*>(taints.get())->is_fits_request());
  EXPECT_EQ(r.make("VolumeBinding", args), nullptr);  // accepted, not modelled
  EXPECT_EQ(r.make("NoSuchPlugin", args), nullptr);
  // scheduler-plugins' plugins that read the cluster's objects need them.
  EXPECT_EQ(out_of_tree_registry().make("Coscheduling", args), nullptr);
  EXPECT_NE(out_of_tree_registry().make("NodeResourcesAllocatable", args), nullptr);
}

}  // namespace
}  // namespace kubesim
