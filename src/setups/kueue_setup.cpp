#include "setups/kueue_setup.hpp"

#include "core/error.hpp"
#include "sched/kueue/kueue_controller.hpp"
#include "setups/parallel_jobs.hpp"

namespace kubesim {

void install_kueue(SimulationInputs& in, const SetupOptions& o) {
  if (o.config_file.empty())
    throw InputError("", 0, "the kueue setup needs --scheduler-config with its ClusterQueue/LocalQueue/ResourceFlavor YAML");
  kueue::Config config = kueue::load_config(o.config_file, in.resource_names);
  parallel_jobs_as_indexed_jobs(in.workload, "default-scheduler");  // what Kueue admits: Jobs (then labelled below)
  for (auto& j : in.workload.jobs) {
    if (!j.as_job) continue;
    const std::string& ns = in.workload.namespaces[j.ns.value()];
    for (const auto& lq : config.local_queues) {
      if (lq.ns != ns) continue;
      set_label(j.job_labels, kueue::kQueueNameLabel, lq.name);
      j.suspend = true;
      break;
    }
  }
  add_controller(in, ControllerFactory{[config](ObjectStore& store, ControllerHost& host,
                                                const SimulationOptions&) -> std::unique_ptr<Controller> {
                                         return std::make_unique<kueue::Controller>(store, host, config);
                                       },
                                       Duration()});
}

}  // namespace kubesim
