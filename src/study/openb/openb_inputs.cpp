#include "study/openb/openb_inputs.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "core/error.hpp"

namespace kubesim {
namespace {

constexpr std::int64_t kMebibyte = 1024 * 1024;

}  // namespace

Node openb_node(const OpenbNode& n, int gpu_slot) {
  Node node;
  node.name = n.name;
  node.allocatable[kCpu] = n.cpu_milli;
  node.allocatable[kMemory] = n.memory_mib * kMebibyte;
  node.allowed_pods = 1001;
  if (!n.model.empty()) set_label(node.labels, kGpuModelLabel, n.model);
  if (n.gpus > 0) {
    // As gpu-api.md asks of a reader: the devices of the model, and the count as
    // allocatable nvidia.com/gpu so that whole-GPU requests by count work too.
    node.devices = gpu_devices(n.gpus, n.model);
    node.allocatable[static_cast<std::size_t>(gpu_slot)] = n.gpus;
  }
  node.capacity = node.allocatable;
  return node;
}

PodTemplate openb_pod_template(const OpenbPod& p) {
  PodTemplate t = batch_job_template(p.cpu_milli, p.memory_mib * kMebibyte);
  if (p.num_gpu == 0) return t;
  std::string models;
  for (const std::string& m : p.models) models += (models.empty() ? "" : "|") + m;
  t.device_requests.push_back(gpu_device_request(p.num_gpu, p.gpu_milli, models));
  // The authors' annotations (pkg/type/open-gpu-share/utils/const.go), as data/pod_csv_to_yaml.py writes them.
  set_label(t.annotations, kGpuCountAnnotation, std::to_string(p.num_gpu));
  set_label(t.annotations, kGpuMilliAnnotation, std::to_string(p.gpu_milli));
  if (!models.empty()) set_label(t.annotations, kGpuModelAnnotation, models);
  t.finalize();
  return t;
}

void openb_simulation_inputs(const OpenbTrace& trace, SimulationInputs& in) {
  const int gpu_slot = in.resource_names.slot(kGpuDeviceClass);
  for (const OpenbNode& n : trace.nodes) in.nodes.push_back(openb_node(n, gpu_slot));
  Workload& w = in.workload;
  w.name = openb_workload_name(trace.pods_file);
  w.source = trace.pods_file;
  // One template per distinct request (8,152 pods have a few hundred).
  std::map<std::tuple<std::int64_t, std::int64_t, std::int32_t, std::int32_t, std::vector<std::string>>, std::uint32_t> templates;
  std::vector<std::size_t> order(trace.pods.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return trace.pods[a].creation_s < trace.pods[b].creation_s; });
  for (std::size_t i : order) {
    const OpenbPod& p = trace.pods[i];
    if (!p.timed)
      throw InputError(trace.pods_file, 0, "the trace's own dynamics need creation_time and deletion_time columns (use --openb-protocol)");
    const auto [it, fresh] = templates.try_emplace({p.cpu_milli, p.memory_mib, p.num_gpu, p.gpu_milli, p.models},
                                                   static_cast<std::uint32_t>(w.templates.size()));
    if (fresh) w.templates.push_back(openb_pod_template(p));
    WorkloadJob job;
    job.id = std::to_string(i);
    job.name = p.name;
    job.submit = SimTime::at(Duration::seconds(p.creation_s));
    job.run_time = Duration::seconds(p.deletion_s - p.creation_s);
    job.pod_template = it->second;
    w.jobs.push_back(std::move(job));
  }
}

}  // namespace kubesim
