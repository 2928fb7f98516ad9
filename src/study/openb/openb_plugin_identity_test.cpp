// One implementation of the FGD paper's policies (lead's note, issue 26): the openb protocol
// mode (openb_protocol.hpp, its own compact loop) and kube-scheduler with the plugin profile of
// the same policy (examples/gpu-sharing/<policy>.yaml: Open-Gpu-Share + the score plugin)
// choose the same node and the same GPUs for every pod, on the trimmed trace of examples/openb
// inflated to 1.3x its GPUs, for all six policies.
//
// The kube-scheduler side gets what the protocol defines: the pods in the protocol's arrival
// order, one at a time (each scheduled before the next is created), nothing ever leaving; the
// nodes named by their tie-break rank ("%04d-<name>", as the authors' fork names them), so the
// profile's smallest-name tie-break is the protocol's first-in-order; the trace's typical pods;
// the same seed (the Random policy draws from the plugins' own streams). A pod the protocol
// drops stays pending here (nothing leaves, so no retry can fit it).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "core/test_paths.hpp"
#include "sched/kube/scheduler.hpp"
#include "study/openb/openb_inputs.hpp"
#include "study/openb/openb_protocol.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"

namespace kubesim::openb {
namespace {

constexpr std::uint64_t kSeed = 42;

const char* config_file(Policy p) {
  switch (p) {
    case Policy::Random: return "random.yaml";
    case Policy::DotProd: return "dotprod.yaml";
    case Policy::GpuClustering: return "clustering.yaml";
    case Policy::GpuPacking: return "packing.yaml";
    case Policy::BestFit: return "bestfit.yaml";
    case Policy::Fgd: return "fgd.yaml";
  }
  return "";
}

std::string rank_name(std::size_t rank, const std::string& name) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%04zu-", rank);
  return prefix + name;
}

// The protocol's placements replayed through kube-scheduler: the number of pods placed alike
// (same node, same GPUs, or dropped by both); the first difference reported.
std::size_t same_placements(const OpenbTrace& trace, Policy policy, const ProtocolResult& expected) {
  ObjectStore store;
  store.ensure_namespace("default");
  const std::string config_path = testing::source_dir() + "/examples/gpu-sharing/" + config_file(policy);
  SchedulerConfig config = load_scheduler_config(config_path, store.resource_names());
  config.typical_pods = std::make_shared<const TypicalPods>(expected.typical);
  testing::FakeSchedulerHost host{&store};
  Scheduler scheduler(store, std::move(config), SchedulerLatencies{}, kSeed, host);
  host.attach(&scheduler);
  store.add_listener(&host);
  const int gpu_slot = store.resource_names().slot(kGpuDeviceClass);
  std::vector<std::string> node_name(trace.nodes.size());
  for (std::size_t rank = 0; rank < expected.node_order.size(); ++rank) {
    const std::size_t idx = expected.node_order[rank];
    Node n = openb_node(trace.nodes[idx], gpu_slot);
    n.name = node_name[idx] = rank_name(rank, n.name);
    store.create_node(std::move(n));
  }
  std::size_t same = 0;
  for (std::size_t k = 0; k < expected.arrivals.size(); ++k) {
    const OpenbPod& src = trace.pods[expected.arrivals[k]];
    const PodTemplateId t = store.add_template(openb_pod_template(src));
    const PodId pod = store.create_pod(testing::PodBuilder(t).name(src.name + "-" + std::to_string(k)));
    host.run_until(SimTime::at(Duration::seconds(static_cast<std::int64_t>(k))));
    const ProtocolPlacement& want = expected.placements[k];
    const Pod& got = store.pod(pod);
    const std::string got_node = got.node.valid() ? store.node(got.node).name : "(pending)";
    const std::string want_node = want.node < 0 ? "(pending)" : node_name[static_cast<std::size_t>(want.node)];
    const DeviceGrants got_gpus(got.devices().begin(), got.devices().end());
    if (got_node == want_node && got_gpus == want.gpus) {
      ++same;
      continue;
    }
    ADD_FAILURE() << policy_label(policy) << ": arrival " << k << " (" << src.name << "): protocol " << want_node << " "
                  << to_string(want.gpus) << ", kube-scheduler " << got_node << " " << to_string(got_gpus);
    return same;
  }
  return same;
}

TEST(OpenbPluginIdentity, ProtocolAndPluginProfilePlaceEveryPodAlike) {
  const std::string ex = testing::source_dir() + "/examples/openb/";
  const OpenbTrace trace = read_openb_trace(ex + "small_nodes.csv", ex + "small_pods.csv");
  for (Policy policy : kPolicies) {
    ProtocolOptions options{policy, kSeed, 1.3};
    options.record_placements = true;
    const ProtocolResult expected = run_protocol(trace, options);
    ASSERT_EQ(expected.placements.size(), expected.pods);
    EXPECT_GT(expected.dropped, 0U) << "inflated past the cluster: some pods fit nowhere";
    EXPECT_EQ(same_placements(trace, policy, expected), expected.pods) << policy_label(policy);
  }
}

}  // namespace
}  // namespace kubesim::openb
