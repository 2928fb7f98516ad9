#include "setups/volcano_setup.hpp"

#include <memory>

#include "sched/volcano/volcano.hpp"
#include "setups/parallel_jobs.hpp"

namespace kubesim {

void install_volcano(SimulationInputs& in, const SetupOptions& o) {
  auto config = std::make_shared<volcano::Config>(o.config_file.empty() ? volcano::default_config()
                                                                           : volcano::load_config(o.config_file, in.resource_names));
  if (!o.config_file.empty()) add_volcano_jobs(o.config_file, in, *config);
  Workload& w = in.workload;
  const std::size_t shared = w.templates.size();
  for (WorkloadJob& j : w.jobs) {
    if (j.pod_template >= shared || w.templates[j.pod_template].scheduler_name != "volcano") continue;
    if (find_label(w.templates[j.pod_template].annotations, volcano::kGroupNameAnnotation)) continue;  // a Volcano Job's
    const std::string& ns = w.namespaces[j.ns.value()];
    const bool queue = config->find_queue(ns) >= 0 && !find_label(w.templates[j.pod_template].annotations,
                                                                   volcano::kQueueNameAnnotation);
    if (!queue && !is_parallel_job(j)) continue;
    PodTemplate copy = w.templates[j.pod_template];
    if (queue) set_label(copy.annotations, volcano::kQueueNameAnnotation, ns);
    if (is_parallel_job(j)) {
      volcano::PodGroupSpec g;
      g.name = parallel_job_name(w, j);
      g.ns = ns;
      g.min_member = static_cast<std::int32_t>(j.machines);
      PodTemplate effective = copy;
      effective.finalize();
      for (std::size_t r = 0; r < kMaxResources; ++r) g.min_resources[r] = effective.requests[r] * j.machines;
      g.has_min_resources = true;
      g.queue = config->find_queue(ns) >= 0 ? ns : "default";
      g.created = j.submit;
      set_label(copy.annotations, volcano::kGroupNameAnnotation, g.name);
      config->pod_groups.push_back(std::move(g));
    }
    j.pod_template = static_cast<std::uint32_t>(w.templates.size());
    w.templates.push_back(std::move(copy));
  }
  in.other_schedulers.push_back(SchedulerFactory{
      [config](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<volcano::Volcano>(*config, store, host, options.seed);
      },
      Duration()});
}

}  // namespace kubesim
