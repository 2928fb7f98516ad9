#include "setups/scheduler_setup.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/split.hpp"
#include "sched/batch/backfill.hpp"
#include "setups/batch_setup.hpp"
#include "setups/kueue_setup.hpp"
#include "setups/parallel_jobs.hpp"
#include "setups/volcano_setup.hpp"
#include "sched/scheduler_plugins_objects.hpp"
#include "sched/yunikorn/yunikorn.hpp"
#include "sched/fluxion/fluxion.hpp"

namespace kubesim {

namespace {

// scheduler-plugins' install: the parallel jobs' pod-group labels, and the file's
// ElasticQuotas and PodGroups (then the parallel jobs') as objects of the store's kinds, which
// CapacityScheduling and Coscheduling read.
void install_scheduler_plugins(SimulationInputs& in, const SetupOptions& o) {
  label_parallel_job_pod_groups(in.workload, "scheduler-plugins-scheduler");
  SchedulerPluginsObjects objects =
      o.config_file.empty() ? SchedulerPluginsObjects{} : read_scheduler_plugins_objects(o.config_file, in.resource_names);
  objects.pod_groups.insert(objects.pod_groups.end(), o.pod_groups.begin(), o.pod_groups.end());
  in.install_objects.push_back([objects = std::move(objects)](ObjectStore& store) {
    // The study's setup creates the tenants' namespaces before it applies their quotas; a
    // quota counts in the sum of mins whether or not its namespace has pods.
    for (const ElasticQuotaObject& q : objects.elastic_quotas) store.ensure_namespace(q.ns);
    install_elastic_quotas(store, objects.elastic_quotas);
    install_pod_groups(store, objects.pod_groups);
  });
}

// YuniKorn (standalone k8shim: kube-scheduler keeps serving default-scheduler pods). Its
// pods without the applicationId/queue labels get them as the study's notebook set them for
// YuniKorn: one application per pod (applicationId = the pod's own name) in queue
// root.tenants.<namespace> when that leaf exists (the notebook's create_pod_template).
void install_yunikorn(SimulationInputs& in, const SetupOptions& o) {
  auto config = std::make_shared<yunikorn::Config>(
      o.config_file.empty()
          ? yunikorn::load_config_text(yunikorn::kDefaultConfigText, yunikorn::kDefaultConfigName, in.resource_names)
          : yunikorn::load_config(o.config_file, in.resource_names));
  in.other_schedulers.push_back(SchedulerFactory{
      [config](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<yunikorn::YuniKorn>(*config, store, host, options.seed);
      },
      Duration()});
  Workload& w = in.workload;
  const std::size_t shared = w.templates.size();
  // (A parallel job's ranks share its template: one application, with its task group below.)
  for (auto& j : w.jobs) {
    if (j.pod_template >= shared) continue;
    const PodTemplate& t = w.templates[j.pod_template];
    if (t.scheduler_name != "yunikorn") continue;
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
  annotate_parallel_job_task_groups(w, in.resource_names, "yunikorn");
}

// Fluxion runs beside kube-scheduler (which keeps serving default-scheduler pods); its
// config file's informer key overrides the setup's default.
void install_fluxion(SimulationInputs& in, const SetupOptions& o, bool informer) {
  FluxionConfig defaults;
  defaults.informer = informer;
  defaults.reflect_other_schedulers = informer;
  FluxionConfig config = o.config_file.empty() ? defaults : load_fluxion_config(o.config_file, defaults);
  in.other_schedulers.push_back(SchedulerFactory{
      [config](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<FluxionScheduler>(store, host, options.seed, config);
      },
      Duration()});
}
}  // namespace

const std::vector<SchedulerSetup>& scheduler_setups() {
  static const std::vector<SchedulerSetup> kSetups = {
      {"default-scheduler", "kube-scheduler v1.26 with its default profile (or --scheduler-config's)",
       "default-scheduler", true,
       [](ResourceNames& names, const SetupOptions& o) -> std::optional<SchedulerConfig> {
         if (o.config_file.empty()) return std::nullopt;  // the cluster's, as configured
         return load_scheduler_config(o.config_file, names);
       },
       nullptr},
      batch_setup("fcfs", 0, "FCFS batch queue (batsched fcfs_fast): start jobs in order while the head fits"),
      batch_setup("easy-backfill", 1, "EASY backfilling (batsched easy_bf): the head job holds a reservation"),
      batch_setup("conservative-backfill", BackfillSchedule::kAll,
                  "conservative backfilling (batsched conservative_bf): every queued job holds a reservation"),
      {"kueue", "Kueue v0.9 admitting Jobs, and plain pods with its pod integration (--scheduler-config: its "
                "ClusterQueue/LocalQueue/ResourceFlavor/Configuration YAML) in front of kube-scheduler",
       "default-scheduler", false, nullptr, install_kueue},
      {"scheduler-plugins",
       "scheduler-plugins as its release-1.26 chart installs it (Coscheduling, CapacityScheduling, "
       "NodeResourcesAllocatable); --scheduler-config: ElasticQuota and PodGroup objects",
       "scheduler-plugins-scheduler", true,
       [](ResourceNames& names, const SetupOptions& o) -> std::optional<SchedulerConfig> {
         SchedulerPluginsObjects objects =
             o.config_file.empty() ? SchedulerPluginsObjects{} : read_scheduler_plugins_objects(o.config_file, names);
         // Its ElasticQuotas and PodGroups are the store's (install_scheduler_plugins).
         return scheduler_plugins_config(names, objects);
       },
       install_scheduler_plugins,
       true},
      {"yunikorn", "Apache YuniKorn 1.5 (core + k8shim) with a queues.yaml (default: the study's yunikorn-configs.yaml)",
       "yunikorn", true, nullptr, install_yunikorn},
      {"volcano", "Volcano v1.7 (vc-scheduler sessions, its podgroup controller) with a volcano-scheduler.conf, Queues and "
                  "PodGroups (--scheduler-config; default: the release's configuration)",
       "volcano", true, nullptr, install_volcano},
      {"fluxion", "KubeFlux/Fluence: Fluxion's resource graph, informer on (--scheduler-config: Fluxion YAML)",
       "fluxion", true, nullptr, [](SimulationInputs& in, const SetupOptions& o) { install_fluxion(in, o, true); }},
      {"kubeflux-noinformer", "KubeFlux 2021: Fluxion without the informer (stale graph)", "fluxion", true, nullptr,
       [](SimulationInputs& in, const SetupOptions& o) { install_fluxion(in, o, false); }},
  };
  return kSetups;
}

const SchedulerSetup& find_setup(const std::string& name, std::span<const SchedulerSetup> extra) {
  std::string known;
  for (const auto& s : extra) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  for (const auto& s : scheduler_setups()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw InputError("", 0, "unknown scheduler \"" + name + "\" (expected one of: " + known + ")");
}

std::string SetupChoice::label() const {
  return config_file.empty() ? setup : setup + "+" + std::filesystem::path(config_file).stem().string();
}

std::vector<SetupChoice> parse_setup_choices(const std::string& text, const std::string& option,
                                            std::span<const SchedulerSetup> extra) {
  std::vector<SetupChoice> out;
  for (const std::string& entry : split(text, '+')) {
    if (entry.empty())
      throw InputError("", 0, option + ": empty entry in \"" + text + "\" (expected NAME or NAME=CONFIGFILE, several joined by +)");
    SetupChoice c;
    const std::size_t eq = entry.find('=');
    c.setup = entry.substr(0, eq);
    find_setup(c.setup, extra);  // throws for an unknown name, listing the known ones
    if (eq != std::string::npos) {
      c.config_file = entry.substr(eq + 1);
      if (c.config_file.empty()) throw InputError("", 0, option + ": no configuration file after \"" + c.setup + "=\"");
      std::error_code ec;
      if (!std::filesystem::is_regular_file(c.config_file, ec))
        throw InputError(c.config_file, 0, "no such configuration file (in " + option + " " + entry + ")");
    }
    for (const SetupChoice& other : out)
      if (other.setup == c.setup) throw InputError("", 0, option + ": \"" + c.setup + "\" is listed twice in \"" + text + "\"");
    out.push_back(std::move(c));
  }
  return out;
}

std::string setups_label(const std::vector<SetupChoice>& choices) {
  std::string label;
  for (const SetupChoice& c : choices) label += (label.empty() ? "" : "+") + c.label();
  return label;
}

namespace {

// Runs `setup`'s install and gives the models it adds `cache_delay`. A setup that deployed no
// scheduler of its own (`deployed`: its kube-scheduler Deployment) nor added a model is served
// by scheduler 0, which gets the delay instead.
void install_rest(const SchedulerSetup& setup, const SetupOptions& options, Duration cache_delay, bool deployed,
                  SimulationInputs& in) {
  const std::size_t before = in.other_schedulers.size();
  const std::size_t controllers_before = in.controllers.size();
  if (setup.install) setup.install(in, options);
  for (std::size_t i = before; i < in.other_schedulers.size(); ++i) in.other_schedulers[i].informer_delay = cache_delay;
  for (std::size_t i = controllers_before; i < in.controllers.size(); ++i) in.controllers[i].informer_delay = cache_delay;
  if (!deployed && in.other_schedulers.size() == before && in.controllers.size() == controllers_before)
    in.scheduler_informer_delay = cache_delay;
}

SetupOptions setup_options(const SchedulerSetup& setup, const SetupChoice& choice, const Workload& workload) {
  return {choice.config_file, setup.reads_pod_groups ? parallel_job_pod_groups(workload) : std::vector<PodGroupObject>{}};
}

}  // namespace

void install_setups(const std::vector<SetupChoice>& choices, SimulationInputs& in, std::span<const SchedulerSetup> extra) {
  KUBESIM_ASSERT(!choices.empty());
  if (choices.size() == 1) {
    const SchedulerSetup& setup = find_setup(choices[0].setup, extra);
    const SetupOptions options = setup_options(setup, choices[0], in.workload);
    for (auto& t : in.workload.templates) t.scheduler_name = setup.scheduler_name;
    if (setup.kube_scheduler)
      if (std::optional<SchedulerConfig> own = setup.kube_scheduler(in.resource_names, options)) in.scheduler = std::move(*own);
    install_rest(setup, options, choices[0].cache_delay, false, in);
    return;
  }
  std::vector<const SchedulerSetup*> scheduling;  // setups that schedule pods, to find two claiming one name
  for (const SetupChoice& c : choices) {
    const SchedulerSetup& setup = find_setup(c.setup, extra);
    if (setup.schedules_pods) {
      for (const SchedulerSetup* other : scheduling)
        if (other->scheduler_name == setup.scheduler_name)
          throw InputError("", 0, "schedulers " + other->name + " and " + setup.name + " would both schedule the pods of schedulerName " +
                                      setup.scheduler_name + " (list one of them)");
      scheduling.push_back(&setup);
    }
    const SetupOptions options = setup_options(setup, c, in.workload);
    std::optional<SchedulerConfig> own;
    if (setup.kube_scheduler) own = setup.kube_scheduler(in.resource_names, options);
    const bool deployed = own && !own->profile("default-scheduler");
    if (deployed) {
      // Its own Deployment beside the cluster's kube-scheduler (the chart's second scheduler).
      in.other_schedulers.push_back(kube_scheduler_factory(
          [&setup, options](ResourceNames& names) { return std::move(*setup.kube_scheduler(names, options)); },
          c.cache_delay));
    } else if (own) {
      in.scheduler = std::move(*own);  // the cluster's kube-scheduler, configured by this file
    }
    install_rest(setup, options, c.cache_delay, deployed, in);
  }
}

void apply_setup(const SchedulerSetup& setup, SimulationInputs& inputs, const SetupOptions& options) {
  install_setups({SetupChoice{setup.name, options.config_file, Duration()}}, inputs);
}

}  // namespace kubesim
