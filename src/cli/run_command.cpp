#include "cli/cli_bounds.hpp"
#include "cli/run_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "batsim_server/batsim_server.hpp"
#include "cli/openb_run.hpp"
#include "cli/policy_option.hpp"
#include "cli/run_progress.hpp"
#include "cli/serve_command.hpp"
#include "cli/version.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/output_dir.hpp"
#include "core/parse_number.hpp"
#include "report/human_format.hpp"
#include "report/run_report.hpp"
#include "report/tenant_report.hpp"
#include "sched/volcano/volcano.hpp"
#include "setups/policy_setup.hpp"
#include "study/run_pipeline.hpp"

namespace kubesim {
namespace {

// Refuses, before anything runs, a workload that asks for more pods than --max-pods (a Job
// of completions 2^31-1 once ran until memory was gone).
void check_pod_budget(const Workload& w, std::size_t max_pods) {
  std::size_t pods = 0;
  for (const WorkloadJob& j : w.jobs) {
    const std::size_t asked = j.pods_asked();
    pods += asked;
    if (pods > max_pods)
      throw InputError(w.source, 0,
                       "the workload asks for more than --max-pods " + std::to_string(max_pods) + " pods (at job \"" +
                           (j.name.empty() ? j.id : j.name) + "\", " + std::to_string(asked) +
                           " pod(s)); raise --max-pods if that is intended");
  }
}

// --decisions: kube-scheduler's and Volcano's every decision with its tied best nodes (CSV),
// into `csv`.
void record_decisions(Simulation& sim, std::string& csv) {
  csv = "time,pod,node,best_nodes\n";
  auto record = [&sim, &csv](PodId pod, NodeId chosen, const std::vector<NodeId>& best) {
    const ObjectStore& store = sim.store();
    const Pod& p = store.pod(pod);
    csv += format_seconds(sim.now()) + "," + store.namespace_(p.ns).name + "/" + p.name + "," +
           (chosen.valid() ? store.node(chosen).name : std::string()) + ",";
    for (std::size_t i = 0; i < best.size(); ++i) csv += (i ? " " : "") + store.node(best[i]).name;
    csv += "\n";
  };
  sim.scheduler().set_decision_observer(record);
  for (std::size_t i = 0; i < sim.scheduler_count(); ++i)
    if (auto* vc = dynamic_cast<volcano::Volcano*>(&sim.scheduler_model(i))) vc->set_decision_observer(record);
}

// The summary on stdout (unless --quiet): what ran, how it went (makespan, mean wait,
// utilisation: the headline of report.html), and where the outputs are.
void print_summary(RunPipeline& run, const SimulationOptions& options, const RunArgs& a, const std::string& out,
                   const ReportSettings* report, std::size_t never_scheduled, double wall) {
  const Simulation& sim = run.sim();
  const RunSummary& summary = run.summary();
  std::printf("kubesim %s: %zu jobs, %zu nodes, model %s, seed %llu\n", KUBESIM_VERSION, sim.workload().jobs.size(),
              sim.store().node_count(), options.model.name.c_str(), static_cast<unsigned long long>(a.seed));
  // A count reads "N scheduling attempts"; with an external scheduler the text says who bound
  // the pods ("0 by kubesim's schedulers; 200 pod(s) bound through the API ...").
  const std::string attempts = run.scheduling_attempts_text();
  const bool count_only = attempts.find_first_not_of("0123456789") == std::string::npos;
  std::printf("finished %zu pods, %zu never scheduled, %s%s; simulated %s s in %.3f s wall\n", sim.finished_pods(),
              never_scheduled, count_only ? "" : "scheduling attempts: ", (attempts + (count_only ? " scheduling attempts" : "")).c_str(),
              format_seconds(sim.now()).c_str(), wall);
  if (report && report->tenant_files) {
    // The tenant summary's figures (summary.csv, report.html): queue = container start - Job creation.
    double queue_sum = 0;
    std::size_t started = 0;
    for (const auto& t : summary.tenants) {
      for (const double q : t.queue_times_s) queue_sum += q;
      started += t.queue_times_s.size();
    }
    std::printf("makespan %s, mean wait %s, utilisation %s;", human::duration(summary.makespan_s).c_str(),
                human::duration(started ? queue_sum / static_cast<double>(started) : 0).c_str(),
                human::percent(summary.utilisation).c_str());
    for (const auto& t : summary.tenants)
      std::printf(" %s: %llu/%llu jobs completed, mean queue %.1f s;", t.tenant.c_str(),
                  static_cast<unsigned long long>(t.completed), static_cast<unsigned long long>(t.jobs),
                  t.average_queue_s);
    std::printf("\n");
    std::printf("outputs: %s/report.html, %s/{jobs,schedule,pods,timeseries,queue,summary}.csv, %s/*.svg\n",
                out.c_str(), out.c_str(), out.c_str());
  } else {
    std::printf("%s\n", run_headline(run.job_stats()).c_str());
    std::printf("outputs: %s/report.html, %s/{jobs,schedule,pods}.csv\n", out.c_str(), out.c_str());
  }
}

// A run that ended at a deadlock (Simulation::ended_in_deadlock): one line, its cause.
void report_deadlock(const Simulation& sim, std::size_t pending) {
  const Simulation::StuckJobs stuck = sim.stuck_parallel_jobs();
  std::string held;
  if (stuck.jobs > 0)
    held = ", " + std::to_string(stuck.waiting_pods) + " pod(s) of " + std::to_string(stuck.jobs) +
           " partly placed parallel job(s) holding nodes while they wait for their other ranks (e.g. " +
           stuck.example + ")";
  std::fprintf(stderr,
               "kubesim: deadlock at %.6f s, the run ends: %zu pod(s) pending that no node can take%s, nothing "
               "running that will end, and none of the %zu job(s) still to arrive would fit (jobs not started are "
               "REJECTED in jobs.csv, partly placed ones COMPLETED_KILLED)\n",
               sim.now().to_seconds(), pending, held.c_str(), sim.unsubmitted_jobs());
}

// What did not go as the workload asked, on stderr (stdout for the quota retries).
void report_problems(RunPipeline& run, const RunArgs& a, std::size_t never_scheduled) {
  const Simulation& sim = run.sim();
  if (sim.job_controller().failed_creates() > 0 && !a.quiet)
    std::printf("%llu pod creations refused by admission (ResourceQuota) and retried by the Job controller\n",
                static_cast<unsigned long long>(sim.job_controller().failed_creates()));
  const std::size_t unfinished_jobs = run.unfinished_jobs();
  if (unfinished_jobs > 0)
    std::fprintf(stderr, "kubesim: %zu Job(s) had not finished when the run ended%s%s\n", unfinished_jobs,
                 sim.job_controller().last_create_error().empty() ? "" : "; last pod creation refused: ",
                 sim.job_controller().last_create_error().c_str());
  if (!sim.rejected_pods().empty())
    std::fprintf(stderr, "kubesim: %zu pod(s) refused at creation, e.g.: %s\n", sim.rejected_pods().size(),
                 sim.rejected_pods().front().second.c_str());
  if (sim.ended_in_deadlock()) {
    report_deadlock(sim, never_scheduled);
    return;
  }
  if (never_scheduled > 0)
    std::fprintf(stderr,
                 "kubesim: %zu pod(s) could never be scheduled (a job none of whose pods ran is REJECTED in jobs.csv)\n",
                 never_scheduled);
  if (const JobStats& stats = run.job_stats(); stats.rejected > 0) {
    // Batsim's REJECTED jobs, counted as jobs.csv counts them (report/job_stats.hpp): e.g.
    // batsched's rejection of a job larger than the cluster.
    const PodId first = sim.job_pods()[stats.first_rejected];
    const std::string why = first.valid() ? sim.store().pod(first).unschedulable_message : std::string();
    std::fprintf(stderr, "kubesim: %llu job(s) REJECTED in jobs.csv, the first: job %s%s%s\n",
                 static_cast<unsigned long long>(stats.rejected), sim.workload().jobs[stats.first_rejected].id.c_str(),
                 why.empty() ? "" : ": ", why.c_str());
  }
  if (const Simulation::StuckJobs stuck = sim.stuck_parallel_jobs(); stuck.jobs > 0)
    std::fprintf(stderr,
                 "kubesim: %zu parallel job(s) partially placed when the run ended (deadlock): %zu pod(s) holding "
                 "nodes while waiting for the other ranks, %zu pod(s) pending, e.g. %s (in jobs.csv with the "
                 "nodes they held, COMPLETED_KILLED)\n",
                 stuck.jobs, stuck.waiting_pods, stuck.pending_pods, stuck.example.c_str());
}

// report.html's title and extra parameters for a run without tenants.
struct RunReportHeader {
  std::string title;
  std::vector<std::pair<std::string, std::string>> parameters;
};

// Runs one simulation and writes its outputs into `dir` (an OutputDirectory's staging folder
// or a folder inside it), naming them as `out` (where they will be) in the summary, then
// commits `whole` when given (the run's outputs are then complete); returns the tenant
// summary rows when `report` is given.
RunSummary simulate(SimulationInputs inputs, const SimulationOptions& options, const RunArgs& a, const std::string& dir,
                    const std::string& out, const ReportSettings* report, OutputDirectory* whole,
                    const bsp::GangSpec* gang = nullptr, const RunReportHeader* header = nullptr) {
  const auto wall_start = std::chrono::steady_clock::now();
  for (const auto& [reason, count] : inputs.workload.skipped.by_reason)
    std::fprintf(stderr, "kubesim: skipped %llu job(s) of %s: %s\n", static_cast<unsigned long long>(count),
                 inputs.workload.source.c_str(), reason.c_str());
  check_pod_budget(inputs.workload, options.max_pods);
  RunPipeline run(std::move(inputs), options, report, KUBESIM_VERSION);
  if (header) run.set_run_report(header->title, header->parameters);
  Simulation& sim = run.sim();
  std::string decisions;
  if (!a.decisions.empty()) record_decisions(sim, decisions);
  bool connections_closed = true;
  if (a.serve) {
    connections_closed = serve_simulation(sim, a);
  } else {
    RunProgress progress(sim);
    run.run(gang, [&](double f) { progress.update(f); });
  }
  // Into the staging folder, which replaces the output folder only once every file is written.
  write_report_files(dir, run.finish(RunPipeline::FileForm::kStreamed));
  if (!a.decisions.empty())  // with the run's files (docs/reference/running.md), unless an absolute path
    write_file_atomically(std::filesystem::path(a.decisions).is_absolute() ? a.decisions : dir + "/" + a.decisions, decisions);
  if (whole) whole->commit();
  const std::size_t never_scheduled = sim.pending_pods();  // a pass over every pod: once
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!a.quiet) print_summary(run, options, a, out, report, never_scheduled, wall);
  report_problems(run, a, never_scheduled);
  if (!connections_closed) {
    // serve's clients still hold connections (serve_simulation): the outputs are in place, so
    // end now rather than wait for them; nothing else is left to do in this process.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(0);
  }
  return run.summary();
}

// --builtin-scheduler off: the built-in kube-scheduler serves no profile (an external scheduler
// binds); --builtin-controllers off: the setups' controllers (Kueue's admission) do not run,
// while what the setups did to the workload stays (Jobs created suspended and labelled for a
// queue), so that a real controller under --scheduler-command does their work.
void drop_builtins(const RunArgs& a, SimulationInputs& in) {
  if (a.builtin_scheduler == "off") in.scheduler.profiles.clear();
  if (a.builtin_controllers == "off") in.controllers.clear();
}

SimulationOptions run_options(const RunArgs& a, const RunInputs& in) {
  SimulationOptions options;
  options.seed = a.seed;
  options.max_pods = a.max_pods;
  // --model on the command line wins over the scenario's model.
  options.model = ModelConfig::load(in.model(a.model_given ? a.model : std::string()));
  if (a.until >= 0) {
    options.until = SimTime::from_seconds(a.until);
  } else if (in.scenario.duration) {
    options.until = SimTime::at(*in.scenario.duration);
  }
  // For the identity test only (tests/futile_identity.py): KUBESIM_UNSKIPPED=all makes every
  // futile attempt in full and runs a deadlock to the end; =deadlock only the latter.
  if (const char* unskipped = std::getenv("KUBESIM_UNSKIPPED")) {
    const std::string what = unskipped;
    options.replay_futile_attempts = what != "all";
    options.end_on_deadlock = what != "all" && what != "deadlock";
  }
  return options;
}

// The study's E1: each tenant alone on the cluster, one run each in <out>/<tenant>/, and
// the tenants' summary rows together in <out>/summary.csv.
void run_each_tenant_alone(const RunArgs& a, const Scenario& sc, const SimulationOptions& options,
                           const ReportSettings& report, const std::vector<SetupChoice>& setups,
                           const std::vector<SchedulerSetup>& policies, OutputDirectory& out) {
  std::vector<std::pair<TenantSummary, double>> runs;
  for (const auto& tenant : sc.tenants) {
    ReportSettings alone = report;
    alone.name = sc.name + " (" + tenant + " alone)";
    alone.tenants = {tenant};
    SimulationInputs in = tenant_inputs(sc, tenant);
    // Setups are installed on each run's own inputs.
    if (!setups.empty()) install_setups(setups, in, policies);
    drop_builtins(a, in);
    const RunSummary s =
        simulate(std::move(in), options, a, out.staging() + "/" + tenant, a.out + "/" + tenant, &alone, nullptr);
    for (const auto& t : s.tenants)
      if (t.tenant == tenant) runs.emplace_back(t, s.utilisation);
  }
  write_file_atomically(out.staging() + "/summary.csv", tenants_alone_summary_csv(runs));
  out.commit();
  if (!a.quiet) std::printf("outputs: %s/<tenant>/..., %s/summary.csv (one row per tenant run alone)\n", a.out.c_str(), a.out.c_str());
}

int scenario_command(const RunArgs& a, RunInputs in, const std::vector<SchedulerSetup>& policies) {
  Scenario& sc = in.scenario;
  const SimulationOptions options = run_options(a, in);
  ReportSettings report = in.report();
  const std::vector<SetupChoice> setups = chosen_setups(a, sc.schedulers, policies);
  report.parameters = setup_parameters(setups);
  if (!sc.measured_results_file.empty()) {
    report.measured = in.read_measured();
    // One setup (or none: kube-scheduler) has a real counterpart; several side by side do not.
    if (setups.size() > 1) report.measured = {};
    if (setups.size() == 1) report.setup = setups[0].setup;
  }
  if (a.serve && sc.each_tenant_alone)
    throw InputError(a.scenario, 0, "serve runs one cluster: a scenario with eachTenantAlone needs `kubesim run`");
  if (in.gang && (a.serve || sc.each_tenant_alone))
    throw InputError(a.scenario, in.gang->line, "a bsp: job runs with `kubesim run` and the tenants together (not serve, not eachTenantAlone)");
  OutputDirectory out(a.out);  // locked now: a second run into the same --out fails at once
  if (sc.each_tenant_alone) {
    run_each_tenant_alone(a, sc, options, report, setups, policies, out);
    return 0;
  }
  if (!setups.empty()) install_setups(setups, sc.inputs, policies);
  drop_builtins(a, sc.inputs);
  simulate(std::move(sc.inputs), options, a, out.staging(), a.out, &report, &out, in.gang ? &*in.gang : nullptr);
  return 0;
}

}  // namespace

InputFiles input_files(const RunArgs& a) {
  InputFiles f;
  f.scenario = a.scenario;
  f.platform = a.platform;
  f.cluster = a.cluster;
  f.workload = a.workload;
  f.swf = a.swf;
  f.openb_nodes = a.openb_nodes;
  f.openb_pods = a.openb_pods;
  f.swf_options = swf_options(a.swf_cpu, a.swf_memory, a.swf_processors);
  if (a.scheduler.empty()) f.scheduler_config = a.scheduler_config;
  return f;
}

std::vector<SetupChoice> chosen_setups(const RunArgs& a, std::vector<SetupChoice> fallback,
                                       const std::vector<SchedulerSetup>& policies) {
  std::vector<SetupChoice> choices = std::move(fallback);
  if (!a.scheduler.empty()) {
    choices = parse_setup_choices(a.scheduler, "--scheduler", policies);
    if (!a.scheduler_config.empty()) {
      if (choices.size() > 1 || !choices[0].config_file.empty())
        throw InputError("", 0, "--scheduler-config goes with one --scheduler setup; give several their files as NAME=FILE");
      choices[0].config_file = a.scheduler_config;
    }
  }
  choices = with_policies(std::move(choices), policies);
  for (const std::string& entry : a.cache_delays) {
    const std::size_t eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    const auto seconds = eq == std::string::npos ? std::nullopt : parse_double(entry.substr(eq + 1));
    if (!seconds || !std::isfinite(*seconds) || *seconds < 0 || *seconds > 1e9)
      throw InputError("", 0, "--cache-delay: expected SETUP=SECONDS with non-negative seconds, got \"" + entry + "\"");
    const auto it = std::find_if(choices.begin(), choices.end(), [&](const SetupChoice& c) { return c.setup == name; });
    if (it == choices.end())
      throw InputError("", 0, "--cache-delay: \"" + name + "\" is not one of the run's scheduler setups (--scheduler or the scenario's schedulers)");
    it->cache_delay = Duration::from_seconds(*seconds);
  }
  return choices;
}

void add_input_options(CLI::App* cmd, RunArgs& a, const std::array<std::string, 5>& help) {
  auto* scenario = cmd->add_option("--scenario", a.scenario, help[0])->check(CLI::ExistingFile);
  auto* platform = cmd->add_option("--platform", a.platform, help[1])->check(CLI::ExistingFile);
  auto* cluster = cmd->add_option("--cluster", a.cluster, help[2])->check(CLI::ExistingFile);
  platform->excludes(cluster);
  auto* workload = cmd->add_option("--workload", a.workload, help[3])->check(CLI::ExistingFile);
  auto* swf = cmd->add_option("--swf", a.swf, help[4])->check(CLI::ExistingFile);
  workload->excludes(swf);
  for (auto* o : {platform, cluster, workload, swf}) scenario->excludes(o);
}

std::string setup_names() {
  std::string names;
  for (const auto& setup : scheduler_setups()) names += (names.empty() ? "" : ", ") + setup.name;
  return names;
}

int run_simulation(const RunArgs& a) {
  const std::vector<SchedulerSetup> policies = load_policies(a.policies);
  RunInputs in = read_run_inputs(input_files(a));
  if (in.from_scenario) return scenario_command(a, std::move(in), policies);
  SimulationInputs& inputs = in.scenario.inputs;
  std::shared_ptr<BatsimServer> batsim;  // --batsim-socket: a Batsim scheduler decides
  RunReportHeader header{in.scenario.name, {}};
  if (!a.batsim_socket.empty()) {
    if (!a.scheduler.empty()) throw InputError("", 0, "--batsim-socket: the Batsim scheduler decides, give no --scheduler");
    batsim = std::make_shared<BatsimServer>(a.batsim_socket);
    BatsimServer::install(batsim, inputs);
    header.parameters.emplace_back("scheduler", "a Batsim scheduler over --batsim-socket");
  } else if (const std::vector<SetupChoice> setups = chosen_setups(a, {}, policies); !setups.empty()) {
    install_setups(setups, inputs, policies);
    header.parameters = setup_parameters(setups);
  } else {
    header.parameters.emplace_back("scheduler", "default-scheduler");
    if (!in.scenario.scheduler_config.empty())
      header.parameters.emplace_back("scheduler configuration",
                                     std::filesystem::path(in.scenario.scheduler_config).filename().string());
  }
  drop_builtins(a, inputs);
  const SimulationOptions options = run_options(a, in);
  OutputDirectory out(a.out);
  simulate(std::move(inputs), options, a, out.staging(), a.out, nullptr, &out, nullptr, &header);
  if (batsim) batsim->finish();
  return 0;
}

RunCommand::RunCommand(CLI::App& app) {
  RunArgs& run = args_;
  cmd_ = app.add_subcommand("run", "simulate a cluster running a workload; write jobs.csv, schedule.csv, pods.csv");
  CLI::App* run_cmd = cmd_;
  add_input_options(run_cmd, run,
                    {"scenario YAML: cluster, tenants, quotas, priorities, jobs, failures (writes the multi-tenant "
                     "tables, charts and report.html as well)",
                     "SimGrid/Batsim platform XML (hosts become nodes)", "kubesim cluster YAML (node groups)",
                     "Batsim v4 JSON workload", "SWF trace (Parallel Workloads Archive)"});
  run_cmd->add_option("--scheduler-config", run.scheduler_config,
                      "KubeSchedulerConfiguration YAML of kube-scheduler (for a scenario: in place of its "
                      "schedulerConfig; refused if it names its schedulers); with --scheduler: that setup's "
                      "configuration file")
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--scheduler", run.scheduler,
                      "schedule every pod with this scheduler setup (" + setup_names() +
                          "); several joined by + (A+B=CONFIGFILE) run side by side, each pod's schedulerName "
                          "picking its scheduler (default: the scenario's schedulers, else kube-scheduler)");
  add_policy_option(run_cmd, run.policies);
  run_cmd->add_option("--cache-delay", run.cache_delays,
                      "SETUP=SECONDS: how far that scheduler's informer cache lags behind the API server (repeatable)");
  run_cmd->add_option("--seed", run.seed, "seed of all random streams (same seed, same outputs)")->capture_default_str();
  run_cmd->add_option("--max-pods", run.max_pods, "refuse a workload or run that would create more pods than this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  model_ = run_cmd->add_option("--model", run.model, "latency model: realistic, ideal (all latencies zero) or a YAML file")
      ->capture_default_str();
  run_cmd->add_option("--out", run.out, "output directory")->capture_default_str();
  run_cmd->add_option("--until", run.until, "stop at this simulated time (seconds, at most 1e8)")->check(simulated_seconds());
  run_cmd->add_option("--decisions", run.decisions,
                      "write kube-scheduler's and Volcano's decisions to this CSV file (a relative one under --out; "
                      "no FILE: decisions.csv): time, pod, chosen node and every node with the best score")
      ->expected(0, 1)
      ->default_str("decisions.csv");
  run_cmd->add_option("--swf-cpu-per-processor", run.swf_cpu, "cpu request per SWF processor (a quantity)")
      ->capture_default_str();
  run_cmd->add_option("--swf-memory", run.swf_memory, "SWF memory request: none, requested (field 10) or used (field 7)")
      ->check(CLI::IsMember({"none", "requested", "used"}))
      ->capture_default_str();
  run_cmd->add_option("--swf-processors", run.swf_processors,
                      "what an SWF processor is: machines (P processors = P pods, one per node, as Batsim's res) or cores (one pod "
                      "of P times --swf-cpu-per-processor on one node, as Batkube)")
      ->check(CLI::IsMember({"machines", "cores"}))
      ->capture_default_str();
  run_cmd->add_option("--batsim-socket", run.batsim_socket,
                      "let a Batsim scheduler (batsched, pybatsim) decide over Batsim's v4 protocol: the ZeroMQ endpoint "
                      "it listens on, e.g. tcp://localhost:28000 (kubesim connects, as Batsim's -s)");
  run_cmd->add_flag("--quiet", run.quiet, "print no summary");
  add_openb_options(run_cmd, run);
  run_cmd->footer(
      "Examples:\n"
      "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2\n"
      "  kubesim run --scenario examples/multitenant/e4.yaml --seed 3 --out results/e4-seed3\n"
      "  kubesim run --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "              --workload data/batkube/spaced_200_delay170.json --out results/spaced\n"
      "  kubesim run --cluster examples/nasa/cluster.yaml --swf data/swf/NASA-iPSC-1993-3.1-cln.swf \\\n"
      "              --swf-processors cores --out results/nasa\n"
      "  kubesim run --platform data/batsim/platform_cluster128.xml --swf data/swf/NASA-iPSC-1993-3.1-cln.swf \\\n"
      "              --scheduler easy-backfill --out results/nasa-machines\n"
      "  kubesim run --platform data/batkube/1node_6core.xml --workload data/batkube/200_delay170.json \\\n"
      "              --model ideal --seed 7 --out results/ideal\n"
      "  kubesim run --openb-nodes examples/openb/small_nodes.csv --openb-pods examples/openb/small_pods.csv \\\n"
      "              --openb-protocol --openb-policy fgd --seed 42 --out results/openb-fgd\n"
      "  kubesim run --openb-nodes examples/openb/small_nodes.csv --openb-pods examples/openb/small_pods.csv \\\n"
      "              --out results/openb-replay");
}

int RunCommand::run() {
  RunArgs& run = args_;
  run.model_given = model_->count() > 0;
  if (run.openb_protocol) return run_openb_protocol(run);
  if (!run.openb_pods.empty()) return run_simulation(run);
  if (!run.scenario.empty()) {
    if (!run.batsim_socket.empty()) throw InputError("", 0, "--batsim-socket runs a --platform and a --workload or --swf, not a scenario");
    return run_simulation(run);
  }
  if (run.platform.empty() && run.cluster.empty())
    throw InputError("", 0, "run needs a cluster: --platform FILE or --cluster FILE");
  if (run.workload.empty() && run.swf.empty())
    throw InputError("", 0, "run needs a workload: --workload FILE or --swf FILE");
  return run_simulation(run);
}

}  // namespace kubesim
