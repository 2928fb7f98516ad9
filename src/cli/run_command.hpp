// `kubesim run` (and the run `kubesim serve` drives, serve_command.hpp): the options both
// take, their registration for run, and one simulation from its inputs to its outputs.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "setups/scheduler_setup.hpp"
#include "study/run_inputs.hpp"

namespace kubesim {

struct RunArgs {
  std::string scenario, platform, cluster, workload, swf, scheduler_config, out = "results", model = "realistic";
  std::string scheduler;  // scheduler setups (setups/scheduler_setup.hpp), "A" or "A+B=FILE"; empty: the scenario's
  std::vector<std::string> cache_delays;  // --cache-delay SETUP=SECONDS
  std::vector<std::string> policies;      // --policy NAME=FILE:CLASS (cli/policy_option.hpp)
  bool model_given = false;
  std::uint64_t seed = 1;
  std::size_t max_pods = SimulationOptions{}.max_pods;
  double until = -1;
  std::string swf_cpu = "1";
  std::string swf_memory = "none";
  std::string swf_processors = "machines";
  bool quiet = false;
  // serve
  std::string clock = "realtime";
  std::string address = "127.0.0.1";
  int port = 6443;
  std::string kubeconfig;  // "": <out>/kubesim.kubeconfig (ServeCommand::run)
  std::string builtin_scheduler = "on";
  std::string builtin_controllers = "on";  // serve: "off" drops the setups' controllers (Kueue's)
  int cosim_quiet_ms = -1;  // -1: 20, or 1 under kubesim-timeshim (serve_command.cpp clock_options)
  std::string cosim_write_gate = "off";  // --scheduler-command: off, batch or one (api/clock.hpp)
  double cosim_timer_slack_ms = 2;  // --scheduler-command: how late a scheduler timer may fire (api/clock.hpp)
  double cosim_timeout = -1;
  double cosim_grace = 15;
  std::string decisions;  // --decisions [FILE]: a relative FILE is under --out
  std::string batsim_socket;  // run --batsim-socket ENDPOINT (batsim_server/)
  std::string cosim_hold = "frozen";
  std::string scheduler_command;  // serve --scheduler-command: run under kubesim-timeshim
  std::vector<std::string> apply;  // serve --apply: manifests created through the API at start
  std::string scheduler_log = "kubesim-scheduler.log";
  std::string timeshim;           // default: kubesim-timeshim beside this binary
  std::string cosim_go_map_draws = "pinned";  // --scheduler-command: the shim's --go-map-draws
  bool keep_serving = false;
  std::string auth = "auto";  // serve: token, none, or auto (token unless the address is loopback)
  bool tls = false;
  bool serve = false;
  std::size_t watch_history = 200000;
  // openb traces (cli/openb_run.hpp): --openb-nodes, --openb-pods, --openb-protocol, --policy, --tune
  std::string openb_nodes, openb_pods, policy = "fgd";
  bool openb_protocol = false;
  double tune = 1.3;
};

// The input files of `a` for read_run_inputs: with --scheduler, --scheduler-config is that
// setup's own file (chosen_setups), not kube-scheduler's.
InputFiles input_files(const RunArgs& a);

// The run's scheduler setups: --scheduler's (with --scheduler-config as its file when it names
// one setup), else `fallback` (the scenario's), with --cache-delay applied. `policies`: the
// --policy setups, which --scheduler may name; when neither list names one, they are the run's
// setups (with_policies).
std::vector<SetupChoice> chosen_setups(const RunArgs& a, std::vector<SetupChoice> fallback,
                                       const std::vector<SchedulerSetup>& policies = {});

// --scenario, --platform, --cluster, --workload and --swf into `a` with `help` their help texts
// in this order: platform or cluster, workload or swf, and a scenario excludes all four.
void add_input_options(CLI::App* cmd, RunArgs& a, const std::array<std::string, 5>& help);

// "NAME, NAME, ...": the scheduler setups, for the options' help.
std::string setup_names();

// Runs `a` (a scenario, or a cluster and a workload; served when a.serve) and writes its
// outputs into a.out. Returns the exit status; throws InputError on bad input.
int run_simulation(const RunArgs& a);

// What the commands that run simulations (run, serve, compare) keep: their subcommand, its
// --model option (given or not: a scenario's model applies unless given) and their RunArgs.
class SimulationCommand {
 public:
  bool parsed() const { return cmd_->parsed(); }

 protected:
  CLI::App* cmd_ = nullptr;
  CLI::Option* model_ = nullptr;
  RunArgs args_;
};

class RunCommand : public SimulationCommand {
 public:
  explicit RunCommand(CLI::App& app);
  int run();
};

}  // namespace kubesim
