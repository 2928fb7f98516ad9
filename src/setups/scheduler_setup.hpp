// Scheduler setups: named ways to schedule a run, as people install them on a real cluster
// (kube-scheduler's default profile, scheduler-plugins as its chart installs it, YuniKorn,
// Kueue in front of kube-scheduler, Fluxion, the HPC batch policies). `kubesim run
// --scheduler NAME`, a scenario's `schedulers:` and `kubesim compare --schedulers A,B,...`
// pick them by name.
//
// One setup in a run is the cluster's scheduler: every workload pod gets its schedulerName,
// as the study did by changing schedulerName. Several setups run side by side in one
// cluster, each pod's own schedulerName picking its scheduler; they see each other's pods
// only through the object store, each with its own cache delay.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"

namespace kubesim {

struct SetupOptions {
  std::string config_file;  // the setup's own configuration file; empty: its default
  // The PodGroups the workload's rigid parallel jobs come with (setups/parallel_jobs.hpp),
  // filled by install_setups for a setup that reads them (SchedulerSetup::reads_pod_groups).
  std::vector<PodGroupObject> pod_groups;
};

struct SchedulerSetup {
  std::string name;            // e.g. "default-scheduler"
  std::string description;
  std::string scheduler_name;  // the spec.schedulerName of the pods it schedules
  // False for a setup that admits Jobs and leaves their pods to kube-scheduler (Kueue): it
  // may share its scheduler_name with the setup that schedules them.
  bool schedules_pods = true;
  // The kube-scheduler configuration this setup deploys, when it has its own (null, or
  // nullopt returned: the cluster's kube-scheduler as configured serves its pods).
  std::function<std::optional<SchedulerConfig>(ResourceNames&, const SetupOptions&)> kube_scheduler;
  // Everything else it installs: its scheduler models (SimulationInputs::other_schedulers)
  // and what its pods need (labels). Runs after the pods got their schedulerNames. May be null.
  std::function<void(SimulationInputs&, const SetupOptions&)> install;
  // Reads SetupOptions::pod_groups (scheduler-plugins' Coscheduling): only then are they built,
  // an object per parallel job (18,066 for the NASA trace).
  bool reads_pod_groups = false;
};

// Every setup, in a fixed order.
const std::vector<SchedulerSetup>& scheduler_setups();
// Throws InputError naming the known setups when there is none of that name. `extra`: setups
// a run adds to the built-in ones (Python policies, setups/policy_setup.hpp), found first.
const SchedulerSetup& find_setup(const std::string& name, std::span<const SchedulerSetup> extra = {});

// One scheduler deployed in a run.
struct SetupChoice {
  std::string setup;        // SchedulerSetup::name
  std::string config_file;  // SetupOptions::config_file
  Duration cache_delay;     // added to its informers' watch delay (SchedulerFactory::informer_delay)
  // "NAME" or "NAME+<config file stem>": labels comparisons and output folders.
  std::string label() const;
};

// "A" or "A=CONFIGFILE", several joined by '+' ("default-scheduler+fluxion=f.yaml"): the
// setups of one run. Throws InputError (mentioning `option`) for an empty entry, an unknown
// setup, a missing configuration file or a setup listed twice.
std::vector<SetupChoice> parse_setup_choices(const std::string& text, const std::string& option,
                                            std::span<const SchedulerSetup> extra = {});
// The labels of `choices` joined by '+'.
std::string setups_label(const std::vector<SetupChoice>& choices);

// Installs the setups of one run (see the top of this file). With one setup, its own
// kube-scheduler configuration (if any) replaces scheduler 0's. With several, scheduler 0
// stays the cluster's kube-scheduler (configured by default-scheduler's file when given), any
// other kube-scheduler configuration runs as its own deployment, and two setups that schedule
// pods of one schedulerName are an error. Throws InputError for bad configuration files.
void install_setups(const std::vector<SetupChoice>& choices, SimulationInputs& inputs,
                    std::span<const SchedulerSetup> extra = {});
// The single-setup case with no cache delay.
void apply_setup(const SchedulerSetup& setup, SimulationInputs& inputs, const SetupOptions& options);

}  // namespace kubesim
