// The FGD paper's experiment protocol on an openb trace, as an explicit run mode
// (`kubesim run --openb-nodes N.csv --openb-pods P.csv --openb-protocol --openb-policy fgd`).
//
// As the authors' simulator runs it (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/core.go Simulate and pkg/simulator/simulator.go), per seed:
//   1. the trace's pods, sorted by name, are shuffled (SortClusterPods with shufflePod);
//   2. inflation ("tune", TunePodsByNodeTotalResource / tuneUpPods): random copies of trace
//      pods are appended until the next copy's GPU milli would take the total request past
//      tune x the cluster's GPUs (tuneDownPods drops random pods when the trace is above it);
//   3. the nodes get a random order (rand.Perm over the name-sorted nodes, a "%04d-" prefix
//      on their names) that decides score ties: the fork's selectHost takes the smallest name
//      among the best scores;
//   4. pods arrive one at a time, nothing ever leaves; a pod is placed on the best-scoring
//      feasible node (filters: cpu, memory, the GPU-share filter: model in the pod's any-of
//      list, a share pod one device with enough free milli, a k-GPU pod k wholly free
//      devices) with its GPUs chosen at Reserve, or dropped at once if no node fits;
//   5. after each pod: used nodes, used GPUs, allocated GPU milli, arrived GPU milli and the
//      cluster's fragmentation (ClusterGpuFragReport), one step.
// Random draws come from kubesim's seeded streams (core/random.hpp), not Go's math/rand, so a
// seed's permutation differs from the authors' run of that seed; the distribution over seeds
// is the same. The Random policy draws from the streams of the RandomScore and Open-Gpu-Share
// plugins, as they do (one node draw when two or more nodes fit, one GPU draw per GPU with
// room), so `kubesim run` with the plugin profile places every pod as the protocol does
// (openb_plugin_identity_test.cpp checks it for the six policies).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "study/openb/gpu_share_policy.hpp"
#include "workload/openb_csv.hpp"

namespace kubesim::openb {

struct ProtocolOptions {
  Policy policy = Policy::Fgd;
  std::uint64_t seed = 42;
  double tune = 1.3;  // inflate (or trim) the workload to tune x the cluster's GPUs; <= 0: as is
  bool record_placements = false;  // fill ProtocolResult::placements (a test's comparison)
};

// One line of the authors' log per pod: "[Alloc]" and "[Report] ... (origin)".
struct ProtocolStep {
  std::int64_t used_nodes = 0;
  std::int64_t used_gpus = 0;
  std::int64_t used_gpu_milli = 0;
  std::int64_t arrived_gpu_milli = 0;
  double frag_milli = 0;  // the paper's fragmentation amount (all classes but q3)
  double frag_ratio = 0;  // percent of the idle GPU milli
  double q124_ratio = 0;
};

// Where the protocol put one arrived pod: the trace node (index into OpenbTrace::nodes; -1:
// dropped) and the GPUs Reserve gave it (the node's GPU indices, 0-based).
struct ProtocolPlacement {
  std::int32_t node = -1;
  DeviceGrants gpus;
};

struct ProtocolResult {
  std::int64_t total_gpus = 0;
  std::size_t pods = 0;     // arrived, inflation included
  std::size_t placed = 0;
  std::size_t dropped = 0;  // fit nowhere
  std::vector<ProtocolStep> steps;  // one per arrived pod
  // With ProtocolOptions::record_placements: the arrivals (trace pod indices, clones repeat
  // their original), each one's placement, and the nodes in tie-break order (trace node
  // indices: the first of equal scores wins).
  std::vector<std::size_t> arrivals;
  std::vector<ProtocolPlacement> placements;
  std::vector<std::size_t> node_order;
  TypicalPods typical;  // the trace's typical pods (before inflation), as the scores used them
};

// Runs the protocol. Throws InputError when the trace does not suit it (a node with more than
// 8 GPUs, more than 64 GPU models).
ProtocolResult run_protocol(const OpenbTrace& trace, const ProtocolOptions& options);

}  // namespace kubesim::openb
