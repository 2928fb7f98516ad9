// Registered object kinds: one registration gives a kind its store (create / get / list /
// update / delete with the global resourceVersion) and its change feed, delivered only to
// the listeners that asked for it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/object_store.hpp"

namespace kubesim {
namespace {

struct Widget {
  int size = 0;
};

struct Recorder final : ChangeListener {
  std::vector<Change> seen;
  void on_change(const Change& change) override { seen.push_back(change); }
};

KindInfo widget_kind() { return KindInfo{"example.com", "v1", "Widget", "widgets", true, KindStorage::kTyped, {}}; }

TEST(KindRegistry, BuiltinsComeFirstAndRegisteredKindsAreFoundByResource) {
  ObjectStore store;
  EXPECT_EQ(store.kind_count(), kBuiltinKinds);
  EXPECT_EQ(store.kind_info(ObjectKind::kJob).api_version(), "batch/v1");
  EXPECT_EQ(store.find_kind("", "pods"), ObjectKind::kPod);
  const ObjectKind widget = store.register_kind<Widget>(widget_kind());
  EXPECT_EQ(static_cast<std::size_t>(widget), kBuiltinKinds);
  EXPECT_FALSE(is_builtin(widget));
  EXPECT_EQ(store.find_kind("example.com", "widgets"), widget);
  EXPECT_EQ(store.kind_info(widget).storage, KindStorage::kTyped);
  EXPECT_THROW(store.register_kind<Widget>(widget_kind()), InputError);
}

TEST(KindRegistry, TypedObjectsHaveTheirLifeCycleAndResourceVersions) {
  ObjectStore store;
  const NamespaceId ns = store.ensure_namespace("default");
  const ObjectKind widget = store.register_kind<Widget>(widget_kind());
  const std::uint32_t id = store.create(widget, ObjectMeta{"w", ns, 0, false}, Widget{3});
  EXPECT_EQ(store.meta(widget, id).resource_version, store.resource_version());
  EXPECT_EQ(store.get<Widget>(widget, id).size, 3);
  store.update<Widget>(widget, id, [](Widget& w) { w.size = 4; });
  EXPECT_EQ(store.get<Widget>(widget, id).size, 4);
  EXPECT_EQ(store.meta(widget, id).resource_version, store.resource_version());
  EXPECT_EQ(store.find(widget, ns, "w"), id);
  EXPECT_EQ(static_cast<const Widget*>(store.object(widget, id))->size, 4);
  store.remove(widget, id);
  EXPECT_TRUE(store.meta(widget, id).deleted);
  EXPECT_FALSE(store.find(widget, ns, "w"));
  EXPECT_EQ(store.object_count(widget), 1u);
}

TEST(KindRegistry, OpaqueCustomResourcesKeepTheirJson) {
  ObjectStore store;
  const ObjectKind crd = store.register_custom_kind(
      KindInfo{"kubeflow.org", "v1", "MPIJob", "mpijobs", true, KindStorage::kOpaque, {}});
  EXPECT_EQ(store.kind_info(crd).storage, KindStorage::kOpaque);
  const std::uint32_t id = store.create(crd, ObjectMeta{"m", NamespaceId(0), 0, false}, OpaqueObject{R"({"spec":{}})"});
  EXPECT_EQ(store.get<OpaqueObject>(crd, id).json, R"({"spec":{}})");
}

TEST(KindRegistry, ListenersHearOnlyTheKindsTheyAskedFor) {
  ObjectStore store;
  Recorder builtins, widgets;
  store.add_listener(&builtins);
  const ObjectKind widget = store.register_kind<Widget>(widget_kind());
  store.add_listener(&widgets, KindSet{widget});
  const NamespaceId ns = store.ensure_namespace("default");
  const std::uint32_t id = store.create(widget, ObjectMeta{"w", ns, 0, false}, Widget{});
  store.remove(widget, id);
  ASSERT_EQ(builtins.seen.size(), 1u);
  EXPECT_EQ(builtins.seen[0].kind, ObjectKind::kNamespace);
  ASSERT_EQ(widgets.seen.size(), 2u);
  EXPECT_EQ(widgets.seen[0].type, ChangeType::kAdded);
  EXPECT_EQ(widgets.seen[1].type, ChangeType::kDeleted);
  EXPECT_EQ(widgets.seen[1].id, id);
}

}  // namespace
}  // namespace kubesim
