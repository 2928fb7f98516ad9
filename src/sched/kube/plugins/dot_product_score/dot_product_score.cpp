#include "sched/kube/plugins/dot_product_score/dot_product_score.hpp"

#include <cmath>

namespace kubesim {
namespace {

// One virtual node: its (cpu, GPU milli) left and the devices the pod would get on it.
struct VirtualNode {
  double cpu = 0;
  double gpu = 0;
  int device = -1;        // a shared GPU (index in the state), or -1: the wholly free GPUs
};

double normalised(double v, double by) { return by > 0 ? v / by : 0; }  // utils.go NormalizeVector

// The score of one match group (curScore after "1 -"); `dims` is the vectors' length (the pod
// vector's, which calculateDotProductScore divides by). In every mode the pod vector is zero
// outside cpu and the virtual node's GPU dimension, so the dot product has these two terms only.
double group_score(const VirtualNode& vn, const GpuNodeState& node, const GpuShape& pod, DotProductArgs::Norm norm,
                   int dims) {
  const double req_cpu = static_cast<double>(pod.cpu);
  const double req_gpu = static_cast<double>(pod.total_milli());
  double by_cpu = static_cast<double>(kMaxSpecCpu);
  double by_gpu = static_cast<double>(kMaxSpecGpu);
  if (norm == DotProductArgs::Norm::kNode) {
    by_cpu = static_cast<double>(node.cpu_capacity);
    by_gpu = static_cast<double>(node.gpus) * kDeviceShareUnits;
  } else if (norm == DotProductArgs::Norm::kPod) {
    by_cpu = req_cpu;
    by_gpu = req_gpu;
  }
  const double dot = normalised(vn.cpu, by_cpu) * normalised(req_cpu, by_cpu) +
                     normalised(vn.gpu, by_gpu) * normalised(req_gpu, by_gpu);
  double s = dot / dims;
  if (norm == DotProductArgs::Norm::kPod) s = std::tanh(s / 10);
  return 1 - s;
}

}  // namespace

DotProductChoice dot_product_choice(const GpuNodeState& node, const GpuShape& pod, const DotProductArgs& args) {
  DotProductChoice out;
  if (node.cpu_left < pod.cpu) return out;  // ToVirtualNodeResourceList: no virtual node
  const std::int64_t request = pod.total_milli();
  const std::int64_t total = node.total_left();
  const std::int64_t idle = static_cast<std::int64_t>(node.fully_free()) * kDeviceShareUnits;
  const auto cpu_left = static_cast<double>(node.cpu_left);
  auto cpu_share = [&](std::int64_t gpu) {  // "divide": the cpu in proportion to the GPU milli
    return args.dim == DotProductArgs::Dim::kDivide
               ? static_cast<double>(node.cpu_left * gpu) / static_cast<double>(total)
               : cpu_left;
  };
  // "extend" (ExtGpuDim): one node vector [cpu left, each partly used GPU's milli left in index
  // order, the wholly free GPUs' milli] (ToFormalizedGpuResourceList: used-up GPUs have no
  // dimension), so its length grows with the node's shared GPUs; every other mode has 2.
  int dims = 2;
  if (args.dim == DotProductArgs::Dim::kExtend) {
    dims = 1 + (idle > 0);
    for (std::uint8_t i = 0; i < node.gpus; ++i) dims += node.left[i] > 0 && node.left[i] < kDeviceShareUnits;
  }
  double best = -1;
  int best_device = -2;  // -2: none, -1: the wholly free GPUs, else a shared GPU
  auto consider = [&](const VirtualNode& vn) {
    const double s = group_score(vn, node, pod, args.norm, dims);
    if (best < s) {
      best = s;
      best_device = vn.device;
    }
  };
  if (args.dim == DotProductArgs::Dim::kMerge) {
    consider(VirtualNode{cpu_left, static_cast<double>(total), -1});
  } else {
    // "share"/"divide" try a shared GPU only for a share pod; "extend" tries every dimension that
    // holds the request (ToVirtualPodResourceList), a cpu-only pod on each: same order, first best.
    const bool any_request = args.dim == DotProductArgs::Dim::kExtend;
    if (request < kDeviceShareUnits || any_request)
      for (std::uint8_t i = 0; i < node.gpus; ++i)
        if (node.left[i] < kDeviceShareUnits && node.left[i] >= request && (node.left[i] > 0 || !any_request))
          consider(VirtualNode{cpu_share(node.left[i]), static_cast<double>(node.left[i]), i});
    if (request <= idle && (idle > 0 || !any_request)) consider(VirtualNode{cpu_share(idle), static_cast<double>(idle), -1});
  }
  if (best_device == -2) return out;
  out.score = static_cast<std::int64_t>(static_cast<double>(kMaxNodeScore) * best);
  if (args.dim == DotProductArgs::Dim::kMerge || pod.count == 0) return out;
  if (best_device >= 0) {
    out.devices.push_back(DeviceGrant{node.device[static_cast<std::size_t>(best_device)], pod.milli});
  } else {
    out.devices = exclusive_gpus(node, pod);
  }
  return out;
}

void DotProductScore::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                            std::span<std::int64_t> scores) const {
  const GpuShape pod = pod_shape(ctx);
  for (std::size_t i = 0; i < nodes.size(); ++i) scores[i] = dot_product_choice(node_state(*nodes[i]), pod, args_).score;
}

}  // namespace kubesim
