#include "setups/scheduler_setup.hpp"

#include "core/error.hpp"
#include "sched/fluxion/fluxion.hpp"

namespace kubesim {

namespace {
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
