// GPU metrics of a run with GPUs (devices of the nvidia.com/gpu class on some node): it listens
// to the store's change feed (the API's view) and keeps, over time,
//  - the GPU milli allocated, split into whole GPUs (grants of 1000) and shares (< 1000), and
//    the GPUs wholly free;
//  - the FGD paper's fragmentation (cluster/gpu_frag.hpp): the fragmentation amount of the
//    cluster for the typical pods (GPU milli) and its ratio to the free GPU milli
//    (PreFilterFragGpuRatio, hkust-adsl/kubernetes-scheduler-simulator plugin_utils.go);
//  - every device's use: one interval per (pod, device) from the binding to the pod's end.
// A pod holds its devices from the change that binds it (node set) to the one that ends it
// (terminal or deleted). Each node's fragmentation is recomputed only when the node changes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster/gpu_frag.hpp"
#include "engine/simulation.hpp"

namespace kubesim {

// The cluster's GPU figures after the changes of one instant.
struct GpuSample {
  SimTime time;
  std::int64_t whole_milli = 0;   // held by whole-GPU grants
  std::int64_t shared_milli = 0;  // held by shares of a GPU
  std::int32_t free_gpus = 0;     // GPUs with nothing allocated
  double frag_milli = 0;          // the fragmentation amount (sum except Q3)
  std::int64_t free_milli = 0;    // GPU milli not allocated
  double frag_ratio() const { return free_milli > 0 ? frag_milli / static_cast<double>(free_milli) : 0; }
};

// One device held by one pod.
struct DeviceInterval {
  NodeId node;
  std::uint16_t device = 0;
  PodId pod;
  std::int32_t share = 0;
  SimTime start;
  SimTime end = SimTime::never();  // never: held at the end of the run
};

struct GpuSeries {
  std::int64_t capacity_milli = 0;  // all GPUs of the cluster
  std::int32_t gpus = 0;
  std::size_t typical_pods = 0;
  std::vector<GpuSample> samples;     // one per instant with a GPU or cpu change of a GPU node
  std::vector<DeviceInterval> devices;  // in start order
};

class GpuRecorder : public ChangeListener {
 public:
  // `typical`: the pods the fragmentation is weighed by (empty: the kube-scheduler's, else the
  // workload's, engine/gpu_workload.hpp).
  explicit GpuRecorder(const Simulation& sim, std::shared_ptr<const TypicalPods> typical = nullptr);
  // Whether the simulation's cluster has GPUs (else a recorder records nothing).
  static bool cluster_has_gpus(const ObjectStore& store);

  void on_change(const Change& change) override;
  // Closes the last sample. Call once, after the run.
  void finish();
  const GpuSeries& series() const { return series_; }

 private:
  struct NodeGpus {
    GpuNodeState state;
    double frag = 0;
    std::vector<std::uint8_t> access;
  };
  struct Held {
    NodeId node;
    std::uint32_t first_interval = 0;  // its devices' intervals, consecutive
    std::uint32_t intervals = 0;
  };
  void ensure_nodes();
  void hold(PodId pod, NodeId node, SimTime now);
  void release(PodId pod, SimTime now);
  void refresh(NodeId node);
  void sample(SimTime now);

  const Simulation& sim_;
  std::shared_ptr<const TypicalPods> typical_;
  GpuSeries series_;
  std::vector<NodeGpus> nodes_;  // by NodeId
  std::vector<Held> held_;       // by PodId
  std::vector<std::int64_t> cpu_held_;  // by PodId: the cpu request accounted
  GpuSample current_;
  bool active_ = false;
  bool dirty_ = false;
};

}  // namespace kubesim
