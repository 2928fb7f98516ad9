#include "setups/scheduler_setup.hpp"

#include "core/error.hpp"
#include "sched/batch/backfill.hpp"
#include "setups/batch_setup.hpp"
#include "setups/kueue_setup.hpp"
#include "sched/scheduler_plugins_objects.hpp"
#include "sched/yunikorn/yunikorn.hpp"
#include "sched/fluxion/fluxion.hpp"

namespace kubesim {

namespace {

// YuniKorn: kube-scheduler serves nobody; the YuniKorn model serves schedulerName yunikorn.
// Pods without the applicationId/queue labels get them as the study's notebook set them for
// YuniKorn: one application per pod (applicationId = the pod's own name) in queue
// root.tenants.<namespace> when that leaf exists (the notebook's create_pod_template).
void install_yunikorn(SimulationInputs& in, const SetupOptions& o) {
  auto config = std::make_shared<yunikorn::Config>(
      o.config_file.empty()
          ? yunikorn::load_config_text(yunikorn::kDefaultConfigText, yunikorn::kDefaultConfigName, in.resource_names)
          : yunikorn::load_config(o.config_file, in.resource_names));
  in.scheduler = SchedulerConfig{};
  in.other_schedulers.push_back(SchedulerFactory{
      [config](ObjectStore& store, SchedulerHost& host, std::uint64_t seed) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<yunikorn::YuniKorn>(*config, store, host, seed);
      },
      Duration()});
  Workload& w = in.workload;
  const std::size_t shared = w.templates.size();
  for (auto& j : w.jobs) {
    if (j.pod_template >= shared) continue;
    const PodTemplate& t = w.templates[j.pod_template];
    if (find_label(t.labels, "applicationId") || find_label(t.labels, "yunikorn.apache.org/app-id")) continue;
    PodTemplate copy = t;
    const std::string& ns = w.namespaces[j.ns.value()];
    std::string name = !j.name.empty() ? j.name : w.name + "-" + j.id;
    if (name.rfind(ns + "-", 0) != 0) name = ns + "-" + name;
    set_label(copy.labels, "applicationId", name);
    if (!find_label(t.labels, "queue") && !find_label(t.labels, "yunikorn.apache.org/queue") &&
        config->find("root.tenants." + ns) >= 0)
      set_label(copy.labels, "queue", "root.tenants." + ns);
    j.pod_template = static_cast<std::uint32_t>(w.templates.size());
    w.templates.push_back(std::move(copy));
  }
}

// Fluxion runs beside kube-scheduler (which keeps serving default-scheduler pods); its
// config file's informer key overrides the setup's default.
void install_fluxion(SimulationInputs& in, const SetupOptions& o, bool informer) {
  FluxionConfig defaults;
  defaults.informer = informer;
  defaults.reflect_other_schedulers = informer;
  FluxionConfig config = o.config_file.empty() ? defaults : load_fluxion_config(o.config_file, defaults);
  in.other_schedulers.push_back(SchedulerFactory{
      [config](ObjectStore& store, SchedulerHost& host, std::uint64_t seed) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<FluxionScheduler>(store, host, seed, config);
      },
      Duration()});
}
}  // namespace

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
      {"yunikorn", "Apache YuniKorn 1.5 (core + k8shim) with a queues.yaml (default: the study's yunikorn-configs.yaml)",
       "yunikorn", install_yunikorn},
      {"fluxion", "KubeFlux/Fluence: Fluxion's resource graph, informer on (--scheduler-config: Fluxion YAML)",
       "fluxion", [](SimulationInputs& in, const SetupOptions& o) { install_fluxion(in, o, true); }},
      {"kubeflux-noinformer", "KubeFlux 2021: Fluxion without the informer (stale graph)", "fluxion",
       [](SimulationInputs& in, const SetupOptions& o) { install_fluxion(in, o, false); }},
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
