// The node and pods of the GPU plugins' unit tests (hand-computed cases in each plugin's
// test): a node with 2 GPUs, one wholly free and one with 400 milli left, 24 of 32 cores free.
#pragma once

#include "cluster/gpu_frag.hpp"

namespace kubesim::gpu_test {

inline const std::string kV100 = "V100M16";

inline GpuNodeState two_gpus(std::int32_t left0 = 1000, std::int32_t left1 = 400) {
  GpuNodeState s;
  s.cpu_capacity = 32000;
  s.cpu_left = 24000;
  s.gpus = 2;
  s.left[0] = left0;
  s.left[1] = left1;
  s.device[0] = 0;
  s.device[1] = 1;
  s.model = &kV100;
  return s;
}

inline GpuShape share(std::int32_t milli, std::int64_t cpu = 4000) { return GpuShape{cpu, milli, 1, ""}; }

// Two typical pods of equal weight: a half-GPU pod and a one-GPU pod.
inline TypicalPods two_typical() {
  return {TypicalPod{GpuShape{4000, 500, 1, ""}, 0.5}, TypicalPod{GpuShape{8000, 1000, 1, ""}, 0.5}};
}

}  // namespace kubesim::gpu_test
