// The GPU pod shapes of a workload (every pod it asks for: each job's template times its
// pods), and their typical pods (cluster/gpu_frag.hpp): what the FGD plugins and the GPU
// metrics weigh fragmentation by, when nothing else is given.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cluster/gpu_frag.hpp"
#include "model/resources.hpp"
#include "workload/workload.hpp"

namespace kubesim {

std::vector<std::pair<GpuShape, std::uint64_t>> workload_gpu_shapes(const Workload& workload,
                                                                     const ResourceNames& names);
TypicalPods workload_typical_pods(const Workload& workload, const ResourceNames& names);

}  // namespace kubesim
