// The `bsp:` section of a scenario: one BSP job of the study (src/bsp/gang_study.hpp) run as a
// gang of task pods on the simulated cluster (gang_run.hpp).
//
//   bsp:
//     data: ../../data/gang        # the study's data folder (relative to the scenario), required
//     namespace: bsp               # where the task pods live (default bsp)
//     start: 0                     # seconds: when the job starts
//     steps: 400                   # supersteps (default: config.ini simulation_length)
//     plan: forecasts              # trace the planner sees: forecasts | actual
//     execute: actual              # trace the supersteps run on: actual | forecasts
//     controller: dynamic-mpc      # exppo | static-window | dynamic-mpc
//     window: 3                    # static-window's w
//     horizon: 10                  # dynamic-mpc's H (default: config.ini window_size)
//     checkpointPenalty: 15        # seconds per reconfiguration (default: config.ini's)
//     gangScheduler: coscheduling  # how the task pods form a gang (gang_run.hpp):
//                                  #   coscheduling: scheduler-plugins' Coscheduling; the job
//                                  #     creates its PodGroup (minMember = the task count)
//                                  #   yunikorn: YuniKorn task groups with placeholders (one
//                                  #     application per set of task pods)
//                                  #   kueue: a Kueue plain-pod group (Kueue v0.6+; one pod
//                                  #     group per set of task pods) admitted all or nothing
//                                  #   volcano: a Volcano PodGroup per set of task pods
//                                  #     (minMember = the task count), bound all or nothing
//     schedulerName: ...           # default: scheduler-plugins-scheduler (coscheduling),
//                                  # yunikorn (yunikorn), default-scheduler (kueue),
//                                  # volcano (volcano)
//     podGroup: bsp                # the gang's name: the PodGroup (label
//                                  # scheduling.x-k8s.io/pod-group), or YuniKorn's
//                                  # applicationId / Kueue's pod-group-name prefix
//                                  # ("<podGroup>-<generation>"); "": no gang
//     queue: root.bsp              # yunikorn: the application's queue (label queue; default
//                                  # root.default, as the shim's); kueue (required): the
//                                  # LocalQueue (label kueue.x-k8s.io/queue-name); volcano:
//                                  # the PodGroups' Queue (default: default)
//     priorityClassName: ""        # of the task pods
//     terminationGracePeriodSeconds: 30
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace YAML {
class Node;
}

namespace kubesim {
class YamlInput;  // core/yaml_input.hpp
struct Scenario;  // scenario/scenario.hpp
}

namespace kubesim::bsp {

// The real gang scheduler the study's pods are written for (bsp.gangScheduler): it decides the
// pods' schedulerName, their group and queue labels and which objects the run installs.
enum class GangScheduler { kCoscheduling, kYuniKorn, kKueue, kVolcano };
// Its name in the scenario file: coscheduling | yunikorn | kueue.
std::string_view gang_scheduler_name(GangScheduler g);


struct GangSpec {
  std::string source;  // the scenario file and the line of its bsp: section, for errors
  int line = 0;
  std::string data_dir;
  std::string namespace_name = "bsp";
  double start_seconds = 0;
  int steps = 0;  // 0: config.ini's
  std::string plan = "forecasts";
  std::string execute = "actual";
  std::string controller = "dynamic-mpc";
  int window = 1;
  int horizon = 0;        // 0: config.ini's
  double penalty = -1;    // < 0: config.ini's
  GangScheduler gang_scheduler = GangScheduler::kCoscheduling;
  std::string scheduler_name = "scheduler-plugins-scheduler";
  std::string pod_group = "bsp";
  std::string queue;  // yunikorn's queue label, or kueue's LocalQueue; empty: none
  std::string priority_class_name;
  std::int64_t termination_grace_period_seconds = 30;
};

// Reads the section (every key checked, InputError with the scenario's file and line).
GangSpec read_gang_spec(const YamlInput& in, const YAML::Node& node, const std::filesystem::path& scenario_dir);
// The scenario's `bsp:` section read (scenario/ keeps it unparsed, as bsp/ sits above it);
// nullopt when it has none. Callers read it right after the scenario, so that a bad section
// fails before the run starts.
std::optional<GangSpec> read_gang_spec(const Scenario& scenario);

}  // namespace kubesim::bsp
