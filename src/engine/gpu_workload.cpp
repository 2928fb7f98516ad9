#include "engine/gpu_workload.hpp"

#include <map>

namespace kubesim {

std::vector<std::pair<GpuShape, std::uint64_t>> workload_gpu_shapes(const Workload& workload,
                                                                     const ResourceNames& names) {
  const int gpu_slot = names.find(kGpuDeviceClass);
  std::vector<std::uint64_t> per_template(workload.templates.size(), 0);
  for (const WorkloadJob& j : workload.jobs)
    if (j.pod_template < per_template.size()) per_template[j.pod_template] += j.pods_asked();
  std::map<GpuShape, std::uint64_t> counts;
  for (std::size_t t = 0; t < per_template.size(); ++t)
    if (per_template[t] > 0) counts[gpu_shape(workload.templates[t], gpu_slot)] += per_template[t];
  return {counts.begin(), counts.end()};
}

TypicalPods workload_typical_pods(const Workload& workload, const ResourceNames& names) {
  return typical_pods(workload_gpu_shapes(workload, names));
}

}  // namespace kubesim
