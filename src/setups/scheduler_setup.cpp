#include "setups/scheduler_setup.hpp"

#include "core/error.hpp"
#include "sched/batch/backfill.hpp"
#include "setups/batch_setup.hpp"
#include "setups/kueue_setup.hpp"
#include "sched/scheduler_plugins_objects.hpp"

namespace kubesim {

const std::vector<SchedulerSetup>& scheduler_setups() {
  static const std::vector<SchedulerSetup> kSetups = {
      {"default-scheduler", "kube-scheduler v1.26 with its default profile (or --scheduler-config's)",
       "default-scheduler",
       [](SimulationInputs& in, const SetupOptions& o) {
         in.scheduler = o.config_file.empty() ? default_scheduler_config(in.resource_names)
                                              : load_scheduler_config(o.config_file, in.resource_names);
       }},
      batch_setup("fcfs", 0, "FCFS batch queue (batsched fcfs_fast): start jobs in order while the head fits"),
      batch_setup("easy-backfill", 1, "EASY backfilling (batsched easy_bf): the head job holds a reservation"),
      batch_setup("conservative-backfill", BackfillSchedule::kAll,
                  "conservative backfilling (batsched conservative_bf): every queued job holds a reservation"),
      {"kueue", "Kueue v0.9 admitting Jobs (--scheduler-config: its ClusterQueue/LocalQueue/ResourceFlavor YAML) in front of kube-scheduler's default profile",
       "default-scheduler", install_kueue},
      {"scheduler-plugins",
       "scheduler-plugins as its release-1.26 chart installs it (Coscheduling, CapacityScheduling, "
       "NodeResourcesAllocatable); --scheduler-config: ElasticQuota and PodGroup objects",
       "scheduler-plugins-scheduler",
       [](SimulationInputs& in, const SetupOptions& o) {
         const SchedulerPluginsObjects objects = o.config_file.empty()
                                                     ? SchedulerPluginsObjects{}
                                                     : read_scheduler_plugins_objects(o.config_file, in.resource_names);
         in.scheduler = scheduler_plugins_config(in.resource_names, objects);
       }},
  };
  return kSetups;
}

const SchedulerSetup& find_setup(const std::string& name) {
  std::string known;
  for (const auto& s : scheduler_setups()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw InputError("", 0, "unknown scheduler \"" + name + "\" (expected one of: " + known + ")");
}

void apply_setup(const SchedulerSetup& setup, SimulationInputs& inputs, const SetupOptions& options) {
  setup.install(inputs, options);
  for (auto& t : inputs.workload.templates) t.scheduler_name = setup.scheduler_name;
}

}  // namespace kubesim
