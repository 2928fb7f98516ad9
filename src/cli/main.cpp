// kubesim command line: `run` simulates a cluster with a workload and writes Batsim-compatible
// outputs; `convert` turns SWF traces into Batsim workloads. Bad input gives one line on
// stderr naming file, line and problem, a non-zero exit, and no output files.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "api/api_server.hpp"
#include "api/clock.hpp"
#include "api/shimmed_scheduler.hpp"
#include "api/http_server.hpp"
#include "calibrate/calibrate_command.hpp"
#include "bsp/gang_run.hpp"
#include "cli/bsp_command.hpp"
#include "cli/sweep_command.hpp"
#include "core/atomic_file.hpp"
#include "core/output_dir.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "engine/simulation.hpp"
#include "metrics/completion_recorder.hpp"
#include "metrics/tenant_recorder.hpp"
#include "platform/cluster_yaml.hpp"
#include "platform/simgrid_platform.hpp"
#include "report/batsim_csv.hpp"
#include "report/measured_results.hpp"
#include "report/tenant_report.hpp"
#include "scenario/scenario.hpp"
#include "setups/scheduler_setup.hpp"
#include "study/compare.hpp"
#include "study/compare_report.hpp"
#include "study/run_pipeline.hpp"
#include "workload/batsim_workload.hpp"
#include "workload/swf.hpp"
#include "workload/swf_to_batsim.hpp"

#ifndef KUBESIM_VERSION
#define KUBESIM_VERSION "0.1.0"
#endif

namespace kubesim {
namespace {

struct RunArgs {
  std::string scenario, platform, cluster, workload, swf, scheduler_config, out = "results", model = "realistic";
  std::string scheduler;  // scheduler setups (setups/scheduler_setup.hpp), "A" or "A+B=FILE"; empty: the scenario's
  std::vector<std::string> cache_delays;  // --cache-delay SETUP=SECONDS
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
  std::string kubeconfig = "kubesim.kubeconfig";
  std::string builtin_scheduler = "on";
  int cosim_quiet_ms = 20;
  double cosim_timeout = -1;
  double cosim_grace = 15;
  std::string decisions;  // --decisions FILE
  std::string cosim_hold = "frozen";
  std::string scheduler_command;  // serve --scheduler-command: run under kubesim-timeshim
  std::string scheduler_log = "kubesim-scheduler.log";
  std::string timeshim;           // default: kubesim-timeshim beside this binary
  bool keep_serving = false;
  std::string auth = "auto";  // serve: token, none, or auto (token unless the address is loopback)
  bool tls = false;
  bool serve = false;
  std::size_t watch_history = 200000;
};

// A progress bar on stderr, shown only on a terminal and only once a run has taken more
// than a second of wall time. Wall time is used for display only, never for decisions.
class ProgressBar {
 public:
  ProgressBar() : enabled_(::isatty(2) != 0), start_(std::chrono::steady_clock::now()) {}
  void update(double fraction) {
    if (!enabled_) return;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < std::chrono::seconds(1)) return;
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), static_cast<int>(fraction * 100));
    shown_ = true;
  }
  ~ProgressBar() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

bool serve_simulation(Simulation& sim, const RunArgs& a);
void check_pod_budget(const Workload& w, std::size_t max_pods);

// Runs one simulation and writes its outputs into `dir` (an OutputDirectory's staging folder
// or a folder inside it), naming them as `out` (where they will be) in the summary, then
// commits `whole` when given (the run's outputs are then complete); returns the tenant
// summary rows when `report` is given.
RunSummary simulate(SimulationInputs inputs, const SimulationOptions& options, const RunArgs& a, const std::string& dir,
                    const std::string& out, const ReportSettings* report, OutputDirectory* whole, const bsp::GangSpec* gang = nullptr) {
  const auto wall_start = std::chrono::steady_clock::now();
  for (const auto& [reason, count] : inputs.workload.skipped.by_reason)
    std::fprintf(stderr, "kubesim: skipped %llu job(s) of %s: %s\n", static_cast<unsigned long long>(count),
                 inputs.workload.source.c_str(), reason.c_str());
  check_pod_budget(inputs.workload, options.max_pods);
  RunPipeline run(std::move(inputs), options, report, KUBESIM_VERSION);
  Simulation& sim = run.sim();
  // --decisions: kube-scheduler's every decision with its tied best nodes (CSV).
  std::string decisions = "time,pod,node,best_nodes\n";
  if (!a.decisions.empty())
    sim.scheduler().set_decision_observer([&](PodId pod, NodeId chosen, const std::vector<NodeId>& best) {
      const ObjectStore& store = sim.store();
      const Pod& p = store.pod(pod);
      decisions += format_seconds(sim.now()) + "," + store.namespace_(p.ns).name + "/" + p.name + "," +
                   (chosen.valid() ? store.node(chosen).name : std::string()) + ",";
      for (std::size_t i = 0; i < best.size(); ++i) decisions += (i ? " " : "") + store.node(best[i]).name;
      decisions += "\n";
    });
  bool connections_closed = true;
  if (a.serve) {
    connections_closed = serve_simulation(sim, a);
  } else {
    ProgressBar bar;
    run.run(gang, [&](double f) { bar.update(f); });
  }
  // Into the staging folder, which replaces the output folder only once every file is written.
  write_report_files(dir, run.finish(RunPipeline::FileForm::kStreamed));
  if (!a.decisions.empty()) write_file_atomically(a.decisions, decisions);
  if (whole) whole->commit();
  const RunSummary& summary = run.summary();
  const std::size_t never_scheduled = sim.pending_pods();  // a pass over every pod: once
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!a.quiet) {
    std::printf("kubesim %s: %zu jobs, %zu nodes, model %s, seed %llu\n", KUBESIM_VERSION, sim.workload().jobs.size(),
                sim.store().node_count(), options.model.name.c_str(), static_cast<unsigned long long>(a.seed));
    std::printf("finished %zu pods, %zu never scheduled, %llu scheduling attempts; simulated %s s in %.3f s wall\n",
                sim.finished_pods(), never_scheduled, static_cast<unsigned long long>(sim.scheduling_attempts()),
                format_seconds(sim.now()).c_str(), wall);
    if (report) {
      std::printf("utilisation %.4f;", summary.utilisation);
      for (const auto& t : summary.tenants)
        std::printf(" %s: %llu/%llu jobs completed, mean queue %.1f s;", t.tenant.c_str(),
                    static_cast<unsigned long long>(t.completed), static_cast<unsigned long long>(t.jobs),
                    t.average_queue_s);
      std::printf("\n");
      std::printf("outputs: %s/{jobs,schedule,pods,timeseries,queue,summary}.csv, %s/*.svg, %s/report.html\n",
                  out.c_str(), out.c_str(), out.c_str());
    } else {
      std::printf("outputs: %s/{jobs,schedule,pods}.csv\n", out.c_str());
    }
  }
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
  if (never_scheduled > 0)
    std::fprintf(stderr,
                 "kubesim: %zu pod(s) could never be scheduled (a job none of whose pods ran is REJECTED in jobs.csv)\n",
                 never_scheduled);
  if (const RunPipeline::Rejected rejected = run.rejected_jobs(); rejected.count > 0) {
    // Batsim's REJECTED jobs, counted: e.g. batsched's rejection of a job larger than the cluster.
    const PodId first = sim.job_pods()[rejected.first];
    const std::string why = first.valid() ? sim.store().pod(first).unschedulable_message : std::string();
    std::fprintf(stderr, "kubesim: %zu job(s) REJECTED in jobs.csv, the first: job %s%s%s\n", rejected.count,
                 sim.workload().jobs[rejected.first].id.c_str(), why.empty() ? "" : ": ", why.c_str());
  }
  if (const Simulation::StuckJobs stuck = sim.stuck_parallel_jobs(); stuck.jobs > 0)
    std::fprintf(stderr,
                 "kubesim: %zu parallel job(s) partially placed when the run ended (deadlock): %zu pod(s) holding "
                 "nodes while waiting for the other ranks, %zu pod(s) pending, e.g. %s (in jobs.csv with the "
                 "nodes they held, COMPLETED_KILLED)\n",
                 stuck.jobs, stuck.waiting_pods, stuck.pending_pods, stuck.example.c_str());
  if (!connections_closed) {
    // serve's clients still hold connections (serve_simulation): the outputs are in place, so
    // end now rather than wait for them; nothing else is left to do in this process.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(0);
  }
  return summary;
}

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

// The kubeconfig a client needs: the server, its CA when it serves TLS, the bearer token
// when it asks for one.
std::string kubeconfig_text(const std::string& server, const std::string& ca_pem, const std::string& token) {
  std::string cluster = "    server: " + server + "\n";
  if (!ca_pem.empty()) cluster += "    certificate-authority-data: " + api::base64(ca_pem) + "\n";
  const std::string user = token.empty() ? "  user: {}\n" : "  user:\n    token: " + token + "\n";
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: kubesim\n  cluster:\n" + cluster +
         "contexts:\n- name: kubesim\n  context:\n    cluster: kubesim\n    user: kubesim\n"
         "current-context: kubesim\nusers:\n- name: kubesim\n" + user;
}

bool is_loopback_address(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

// host:port for a URL: an IPv6 address goes in brackets (RFC 3986).
std::string url_authority(const std::string& address, int port) {
  const bool ipv6 = address.find(':') != std::string::npos;
  return (ipv6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

// `kubesim serve`: the Kubernetes API in front of `sim` until a signal, --until, or the end
// of the workload. SIGINT/SIGTERM are taken by a thread of our own (blocked everywhere else,
// so the server's threads never see them).
bool serve_simulation(Simulation& sim, const RunArgs& a) {
  auto clock = api::parse_clock(a.clock);
  if (!clock) throw InputError("", 0, "expected --clock cosim, realtime or realtime=FACTOR (FACTOR > 0), got " + a.clock);
  clock->quiet = std::chrono::milliseconds(a.cosim_quiet_ms);
  if (a.cosim_timeout > 0)
    clock->decision_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(a.cosim_timeout * 1000));
  clock->paced_hold = a.cosim_hold == "paced";
  clock->grace = std::chrono::milliseconds(static_cast<std::int64_t>(a.cosim_grace * 1000));
  if (a.until >= 0) clock->until = SimTime::from_seconds(a.until);
  clock->end_with_workload = !a.keep_serving && !sim.workload().jobs.empty();

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  api::ApiOptions options;
  options.kubesim_version = KUBESIM_VERSION;
  options.seed = a.seed;
  options.watch_log_capacity = a.watch_history;
  options.wall_clock_watch_timers = a.scheduler_command.empty();
  // cosim is deterministic: timestamps start at a fixed epoch (2026-01-01T00:00:00Z). In
  // realtime mode they start at the wall time of the start, so clients' ages read right.
  if (clock->mode == api::ClockOptions::Mode::kRealtime)
    options.epoch_unix_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  // Heap objects: when SIGTERM comes with connections still open, they outlive this function
  // (see the end) until the process exits.
  auto server_owner = std::make_unique<api::ApiServer>(sim, options);
  api::ApiServer& server = *server_owner;
  // Access (issue 16): a bearer token whenever the address is not loopback, unless --auth
  // none, which is loud about it; --tls serves HTTPS with a generated self-signed
  // certificate, which the kubeconfig carries as its CA. The kubeconfig is private (0600).
  api::HttpServer::Options http_options;
  const bool loopback = is_loopback_address(a.address);
  if (a.auth == "token" || (a.auth == "auto" && !loopback)) http_options.bearer_token = api::make_bearer_token();
  if (a.tls) http_options.tls = api::make_self_signed_identity(a.address);
  if (!loopback && http_options.bearer_token.empty())
    std::fprintf(stderr,
                 "kubesim: WARNING: serving %s without authentication: anyone who can reach this address can read "
                 "and change the simulated cluster (drop --auth none, or serve on 127.0.0.1)\n",
                 a.address.c_str());
  auto http_owner = std::make_unique<api::HttpServer>(server, http_options);
  api::HttpServer& http = *http_owner;
  const int port = http.start(a.address, a.port);
  const std::string authority = url_authority(a.address, port);
  const std::string url = (a.tls ? "https://" : "http://") + authority;
  server.set_server_address(authority);
  write_file_atomically(a.kubeconfig,
                        kubeconfig_text(url, a.tls ? http_options.tls->certificate_pem : std::string(),
                                        http_options.bearer_token),
                        FileAccess::kPrivate);
  std::printf("kubesim: serving the Kubernetes API on %s (clock %s; kubeconfig %s)\n", url.c_str(), a.clock.c_str(),
              a.kubeconfig.c_str());
  std::fflush(stdout);

  const auto wall_start = std::chrono::steady_clock::now();
  std::atomic<bool> stop{false};
  std::atomic<bool> finished{false};
  api::ClockDriver driver(sim, server, *clock);
  // --scheduler-command: the scheduler on simulated time, under kubesim-timeshim (clock.hpp).
  std::unique_ptr<api::ShimmedScheduler> shimmed;
  if (!a.scheduler_command.empty()) {
    if (clock->mode != api::ClockOptions::Mode::kCosim)
      throw InputError("", 0, "--scheduler-command needs --clock cosim (it runs the scheduler on simulated time)");
    std::string timeshim = a.timeshim;
    if (timeshim.empty()) {
      std::error_code ec;
      timeshim = (std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "kubesim-timeshim").string();
    }
    try {
      shimmed = std::make_unique<api::ShimmedScheduler>(api::ShimmedScheduler::Options{
          timeshim, api::scheduler_command_words(a.scheduler_command, a.kubeconfig), a.kubeconfig + ".timeshim.sock",
          a.scheduler_log, options.epoch_unix_micros / 1'000'000, port, a.seed});
    } catch (const std::runtime_error& e) {
      throw InputError("", 0, e.what());
    }
    driver.set_shimmed_scheduler(shimmed.get());
  }
  std::thread signal_thread([&] {
    const timespec poll{0, 200'000'000};
    while (!finished.load()) {
      if (sigtimedwait(&signals, nullptr, &poll) > 0) {
        stop = true;
        driver.wake();
        return;
      }
    }
  });
  const std::string reason = driver.run(stop);
  finished = true;
  signal_thread.join();
  shimmed.reset();
  // Pods an external scheduler left pending, by name (the count follows with run's message).
  const std::vector<std::string> pending = server.locked([&] { return server.pending_external_pods(); });
  if (!pending.empty()) {
    std::string names;
    for (std::size_t i = 0; i < pending.size() && i < 20; ++i) names += (i ? ", " : "") + pending[i];
    std::fprintf(stderr, "kubesim: serve ended with %zu pod(s) of external schedulers pending: %s%s\n", pending.size(),
                 names.c_str(), pending.size() > 20 ? ", ..." : "");
  }
  server.shutdown();  // from here every request is answered 503 and every watch ends
  // Graceful shutdown within a second whatever the clients do: idle keep-alive connections and
  // slow senders may hold threads for seconds, so their end is not awaited past the deadline;
  // the caller then writes the outputs and ends the process at once (serve runs one simulation).
  const bool closed = http.stop_within(std::chrono::milliseconds(500));
  if (!closed) {
    (void)http_owner.release();
    (void)server_owner.release();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!a.quiet)
    std::printf("kubesim: serve ended (%s): simulated %s s in %.3f s wall, %llu API requests%s\n", reason.c_str(),
                format_seconds(sim.now()).c_str(), wall, static_cast<unsigned long long>(server.requests()),
                !a.scheduler_command.empty() ? (", " + std::to_string(driver.shim_steps()) + " steps of the scheduler's clock").c_str() : "");
  return closed;
}

// The run's scheduler setups: --scheduler's (with --scheduler-config as its file when it names
// one setup), else `fallback` (the scenario's), with --cache-delay applied.
std::vector<SetupChoice> chosen_setups(const RunArgs& a, std::vector<SetupChoice> fallback) {
  std::vector<SetupChoice> choices = std::move(fallback);
  if (!a.scheduler.empty()) {
    choices = parse_setup_choices(a.scheduler, "--scheduler");
    if (!a.scheduler_config.empty()) {
      if (choices.size() > 1 || !choices[0].config_file.empty())
        throw InputError("", 0, "--scheduler-config goes with one --scheduler setup; give several their files as NAME=FILE");
      choices[0].config_file = a.scheduler_config;
    }
  }
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

int scenario_command(const RunArgs& a) {
  Scenario sc = read_scenario(a.scenario);
  SimulationOptions options;
  options.seed = a.seed;
  options.max_pods = a.max_pods;
  // --model on the command line wins over the scenario's model.
  options.model = ModelConfig::load(a.model_given || sc.model.empty() ? a.model : sc.model);
  if (a.until >= 0) {
    options.until = SimTime::from_seconds(a.until);
  } else if (sc.duration) {
    options.until = SimTime::at(*sc.duration);
  }
  ReportSettings report{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
  const std::vector<SetupChoice> setups = chosen_setups(a, sc.schedulers);
  report.parameters = setup_parameters(setups);
  if (!sc.measured_results_file.empty()) {
    report.measured = read_measured_results(sc.measured_results_file, sc.measured_experiment);
    report.measured.source = std::filesystem::path(sc.measured_results_file).filename().string();
    // One setup (or none: kube-scheduler) has a real counterpart; several side by side do not.
    if (setups.size() > 1) report.measured = {};
    if (setups.size() == 1) report.setup = setups[0].setup;
  }
  // Setups are installed on each run's own inputs (eachTenantAlone copies them per tenant).
  const auto prepare = [&](SimulationInputs& in) {
    if (!setups.empty()) install_setups(setups, in);
    if (a.builtin_scheduler == "off") in.scheduler.profiles.clear();
  };
  if (a.serve && sc.each_tenant_alone)
    throw InputError(a.scenario, 0, "serve runs one cluster: a scenario with eachTenantAlone needs `kubesim run`");
  if (sc.bsp && (a.serve || sc.each_tenant_alone))
    throw InputError(a.scenario, sc.bsp->line, "a bsp: job runs with `kubesim run` and the tenants together (not serve, not eachTenantAlone)");
  OutputDirectory out(a.out);  // locked now: a second run into the same --out fails at once
  if (!sc.each_tenant_alone) {
    prepare(sc.inputs);
    simulate(std::move(sc.inputs), options, a, out.staging(), a.out, &report, &out, sc.bsp ? &*sc.bsp : nullptr);
    return 0;
  }
  // The study's E1: each tenant alone on the cluster, one run each in <out>/<tenant>/, and
  // the tenants' summary rows together in <out>/summary.csv.
  std::vector<std::pair<TenantSummary, double>> runs;
  for (const auto& tenant : sc.tenants) {
    ReportSettings alone = report;
    alone.name = sc.name + " (" + tenant + " alone)";
    alone.tenants = {tenant};
    SimulationInputs in = tenant_inputs(sc, tenant);
    prepare(in);
    const RunSummary s =
        simulate(std::move(in), options, a, out.staging() + "/" + tenant, a.out + "/" + tenant, &alone, nullptr);
    for (const auto& t : s.tenants)
      if (t.tenant == tenant) runs.emplace_back(t, s.utilisation);
  }
  write_file_atomically(out.staging() + "/summary.csv", tenants_alone_summary_csv(runs));
  out.commit();
  if (!a.quiet) std::printf("outputs: %s/<tenant>/..., %s/summary.csv (one row per tenant run alone)\n", a.out.c_str(), a.out.c_str());
  return 0;
}

// The inputs of a platform/cluster + workload/SWF run, with kube-scheduler configured by
// --scheduler-config (or its default profile).
SimulationInputs file_inputs(const RunArgs& a) {
  SimulationInputs inputs;
  ClusterSpec cluster = !a.platform.empty() ? read_simgrid_platform(a.platform, inputs.resource_names)
                                            : read_cluster_yaml(a.cluster, inputs.resource_names);
  inputs.nodes = std::move(cluster.nodes);
  if (!a.workload.empty()) {
    inputs.workload = read_batsim_workload(a.workload, inputs.resource_names);
  } else if (!a.swf.empty()) {
    SwfOptions options;
    options.cpu_per_processor = a.swf_cpu;
    if (a.swf_memory == "requested") options.memory = SwfOptions::Memory::kRequested;
    if (a.swf_memory == "used") options.memory = SwfOptions::Memory::kUsed;
    if (a.swf_processors == "cores") options.processors = SwfOptions::Processors::kCores;
    inputs.workload = swf_to_workload(read_swf(a.swf), options, inputs.resource_names);
  }
  // With --scheduler, --scheduler-config is that setup's own file (it installs kube-scheduler's).
  inputs.scheduler = a.scheduler_config.empty() || !a.scheduler.empty()
                         ? default_scheduler_config(inputs.resource_names)
                         : load_scheduler_config(a.scheduler_config, inputs.resource_names);
  return inputs;
}

int run_command(const RunArgs& a) {
  if (!a.scenario.empty()) return scenario_command(a);
  SimulationInputs inputs = file_inputs(a);
  if (const std::vector<SetupChoice> setups = chosen_setups(a, {}); !setups.empty()) install_setups(setups, inputs);
  if (a.builtin_scheduler == "off") inputs.scheduler.profiles.clear();
  SimulationOptions options;
  options.seed = a.seed;
  options.max_pods = a.max_pods;
  options.model = ModelConfig::load(a.model);
  if (a.until >= 0) options.until = SimTime::from_seconds(a.until);
  OutputDirectory out(a.out);
  simulate(std::move(inputs), options, a, out.staging(), a.out, nullptr, &out);
  return 0;
}

// `kubesim compare`: the scenario (or platform + workload) under every contender of
// --schedulers and seeds 1..N (study/compare.hpp); all input is read and every setup
// installed before anything runs, and nothing is written before every run succeeded.
int compare_command(const RunArgs& a, const std::string& schedulers, std::uint64_t seeds, unsigned threads) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (seeds < 1) throw InputError("", 0, "--seeds must be at least 1");
  CompareSpec spec;
  spec.contenders = parse_contenders(schedulers);
  spec.seeds = seeds;
  spec.threads = threads;
  spec.version = KUBESIM_VERSION;
  spec.options.max_pods = a.max_pods;
  const auto stem = [](const std::string& path) { return std::filesystem::path(path).stem().string(); };
  if (!a.scenario.empty()) {
    Scenario sc = read_scenario(a.scenario);
    if (sc.each_tenant_alone)
      throw InputError(a.scenario, 0, "compare runs the tenants together: a scenario with eachTenantAlone needs `kubesim run`");
    if (sc.bsp) throw InputError(a.scenario, sc.bsp->line, "compare does not drive a bsp: job; use `kubesim run`");
    spec.options.model = ModelConfig::load(a.model_given || sc.model.empty() ? a.model : sc.model);
    if (sc.duration) spec.options.until = SimTime::at(*sc.duration);
    spec.report = ReportSettings{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
    if (!sc.measured_results_file.empty()) {
      spec.report.measured = read_measured_results(sc.measured_results_file, sc.measured_experiment);
      spec.report.measured.source = std::filesystem::path(sc.measured_results_file).filename().string();
    }
    spec.title = sc.name;
    spec.source = "scenario " + std::filesystem::path(a.scenario).filename().string();
    spec.inputs = std::move(sc.inputs);
    spec.scheduler_config = sc.scheduler_config;
  } else {
    spec.inputs = file_inputs(a);
    spec.options.model = ModelConfig::load(a.model);
    const std::string workload = !a.workload.empty() ? a.workload : a.swf;
    const std::string cluster = !a.platform.empty() ? a.platform : a.cluster;
    spec.title = stem(workload) + " on " + stem(cluster);
    // File names only: outputs must not depend on where the inputs live.
    spec.source = "cluster " + std::filesystem::path(cluster).filename().string() + ", workload " +
                  std::filesystem::path(workload).filename().string();
    for (const Node& n : spec.inputs.nodes) spec.report.capacity_milli += n.allocatable[kCpu];
    spec.report.sample_interval = comparison_sample_interval(spec.inputs.workload);
    spec.report.tenant_files = false;  // as `run` writes a platform/workload run
    spec.report.name = spec.title;
  }
  if (a.until >= 0) spec.options.until = SimTime::from_seconds(a.until);
  for (const auto& [reason, count] : spec.inputs.workload.skipped.by_reason)
    std::fprintf(stderr, "kubesim: skipped %llu job(s) of %s: %s\n", static_cast<unsigned long long>(count),
                 spec.inputs.workload.source.c_str(), reason.c_str());
  OutputDirectory out(a.out);
  const Comparison cmp = run_comparison(std::move(spec));
  const std::vector<ReportFile> files = build_comparison_files(cmp);
  write_report_files(out.staging(), files);
  out.commit();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!a.quiet) {
    std::printf("kubesim %s compare: %s, %zu scheduler(s) x %llu seed(s) = %zu runs on %u thread(s) in %.3f s wall\n",
                KUBESIM_VERSION, cmp.title.c_str(), cmp.contenders.size(), static_cast<unsigned long long>(cmp.seeds),
                cmp.runs.size(), cmp.threads_used, wall);
    for (const std::string& line : what_differed(cmp)) std::printf("- %s\n", line.c_str());
    std::printf("outputs: %s/compare.html, %s/{summary,queue_times}.csv, %s/*.svg, %s/<scheduler>/seed-<k>/\n",
                a.out.c_str(), a.out.c_str(), a.out.c_str(), a.out.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace kubesim

int main(int argc, char** argv) {
  using namespace kubesim;
  CLI::App app{"kubesim: a fast, deterministic simulator of Kubernetes clusters for scheduler studies"};
  app.require_subcommand(1);
  // Every example below uses files shipped in the repository (run from its root);
  // tests/run_help_examples.py runs each of them.
  app.set_version_flag("--version", std::string("kubesim ") + KUBESIM_VERSION +
                                        "\nTry (from the repository's root):\n"
                                        "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2");
  app.footer(
      "Examples (from the repository's root; the data is in data/, see data/README.md):\n"
      "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2\n"
      "  kubesim run --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "              --workload data/batkube/spaced_200_delay170.json --out results/spaced\n"
      "  kubesim run --cluster examples/nasa/cluster.yaml --swf data/swf/NASA-iPSC-1993-3.1-cln.swf \\\n"
      "              --swf-processors cores --model ideal --seed 3 --out results/nasa\n"
      "  kubesim compare --scenario examples/multitenant/e3.yaml \\\n"
      "      --schedulers default-scheduler,default-scheduler=examples/scheduler-config/most-allocated.yaml --seeds 3\n"
      "  kubesim convert swf-to-batsim data/swf/KIT-10-80.swf -o kit.json");

  RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "simulate a cluster running a workload; write jobs.csv, schedule.csv, pods.csv");
  auto* scenario = run_cmd->add_option("--scenario", run.scenario,
                                       "scenario YAML: cluster, tenants, quotas, priorities, jobs, failures (writes "
                                       "the multi-tenant tables, charts and report.html as well)")
                       ->check(CLI::ExistingFile);
  auto* platform = run_cmd->add_option("--platform", run.platform, "SimGrid/Batsim platform XML (hosts become nodes)")
                       ->check(CLI::ExistingFile);
  auto* cluster = run_cmd->add_option("--cluster", run.cluster, "kubesim cluster YAML (node groups)")->check(CLI::ExistingFile);
  platform->excludes(cluster);
  auto* workload = run_cmd->add_option("--workload", run.workload, "Batsim v4 JSON workload")->check(CLI::ExistingFile);
  auto* swf = run_cmd->add_option("--swf", run.swf, "SWF trace (Parallel Workloads Archive)")->check(CLI::ExistingFile);
  workload->excludes(swf);
  for (auto* o : {platform, cluster, workload, swf}) scenario->excludes(o);
  run_cmd->add_option("--scheduler-config", run.scheduler_config,
                      "KubeSchedulerConfiguration YAML (with --scheduler: that scheduler's configuration file)")
      ->check(CLI::ExistingFile);
  std::string setup_names;
  for (const auto& setup : scheduler_setups()) setup_names += (setup_names.empty() ? "" : ", ") + setup.name;
  run_cmd->add_option("--scheduler", run.scheduler,
                      "schedule every pod with this scheduler setup (" + setup_names +
                          "); several joined by + (A+B=CONFIGFILE) run side by side, each pod's schedulerName "
                          "picking its scheduler (default: the scenario's schedulers, else kube-scheduler)");
  run_cmd->add_option("--cache-delay", run.cache_delays,
                      "SETUP=SECONDS: how far that scheduler's informer cache lags behind the API server (repeatable)");
  run_cmd->add_option("--seed", run.seed, "seed of all random streams (same seed, same outputs)")->capture_default_str();
  run_cmd->add_option("--max-pods", run.max_pods, "refuse a workload or run that would create more pods than this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto* model = run_cmd->add_option("--model", run.model, "latency model: realistic, ideal (all latencies zero) or a YAML file")
      ->capture_default_str();
  run_cmd->add_option("--out", run.out, "output directory")->capture_default_str();
  run_cmd->add_option("--until", run.until, "stop at this simulated time (seconds)");
  run_cmd->add_option("--decisions", run.decisions,
                      "write kube-scheduler's decisions to this CSV file: time, pod, chosen node and every node with "
                      "the best score (the tie-break's candidates)");
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
  run_cmd->add_flag("--quiet", run.quiet, "print no summary");
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
      "              --model ideal --seed 7 --out results/ideal");

  RunArgs serve;
  serve.serve = true;
  serve.out = "results/serve";
  auto* serve_cmd = app.add_subcommand(
      "serve", "serve the Kubernetes API of a simulated cluster to kubectl, client libraries and external schedulers");
  auto* s_scenario = serve_cmd->add_option("--scenario", serve.scenario, "scenario YAML (as for run)")->check(CLI::ExistingFile);
  auto* s_platform = serve_cmd->add_option("--platform", serve.platform, "SimGrid/Batsim platform XML")->check(CLI::ExistingFile);
  auto* s_cluster = serve_cmd->add_option("--cluster", serve.cluster, "kubesim cluster YAML")->check(CLI::ExistingFile);
  s_platform->excludes(s_cluster);
  auto* s_workload = serve_cmd->add_option("--workload", serve.workload, "Batsim v4 JSON workload, submitted at its times")
                         ->check(CLI::ExistingFile);
  auto* s_swf = serve_cmd->add_option("--swf", serve.swf, "SWF trace, submitted at its times")->check(CLI::ExistingFile);
  s_workload->excludes(s_swf);
  for (auto* o : {s_platform, s_cluster, s_workload, s_swf}) s_scenario->excludes(o);
  serve_cmd->add_option("--scheduler-config", serve.scheduler_config, "KubeSchedulerConfiguration of the built-in scheduler")
      ->check(CLI::ExistingFile);
  serve_cmd->add_option("--scheduler", serve.scheduler,
                        "scheduler setups run inside, as for run (several joined by +); pods of no setup's "
                        "schedulerName wait for an external scheduler");
  serve_cmd->add_option("--cache-delay", serve.cache_delays, "SETUP=SECONDS, as for run (repeatable)");
  serve_cmd->add_option("--builtin-scheduler", serve.builtin_scheduler,
                        "on: pods of the built-in kube-scheduler's profiles are scheduled inside; off: it serves "
                        "none (they wait for an external scheduler; other schedulers given with --scheduler still run)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  serve_cmd->add_option("--clock", serve.clock,
                        "realtime[=FACTOR]: simulated time runs FACTOR times wall time; cosim: time stands still "
                        "while an external scheduler has work")
      ->capture_default_str();
  serve_cmd->add_option("--cosim-quiet-ms", serve.cosim_quiet_ms,
                        "cosim: wall time without requests before the clock moves while pods wait as unschedulable")
      ->capture_default_str();
  serve_cmd->add_option("--cosim-timeout", serve.cosim_timeout,
                        "cosim: seconds of wall time after which pods still waiting for a decision stop holding the clock");
  serve_cmd->add_option("--cosim-grace", serve.cosim_grace,
                        "cosim: seconds of wall time an external scheduler gets to bind a pod it gave up on that would "
                        "fit now, before time moves on or the run ends (more than kube-scheduler's 10 s maximum back-off "
                        "plus its 1 s flush)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  serve_cmd->add_option("--cosim-hold", serve.cosim_hold,
                        "cosim: while a pod that fits waits for its scheduler's retry timer, simulated time stands "
                        "still (frozen) or runs with wall time (paced)")
      ->check(CLI::IsMember({"frozen", "paced"}))
      ->capture_default_str();
  serve_cmd->add_option("--scheduler-command", serve.scheduler_command,
                        "cosim: start this scheduler (words split on blanks, {kubeconfig} replaced) under "
                        "kubesim-timeshim, with simulated time as its clock (Linux x86-64)");
  serve_cmd->add_option("--scheduler-log", serve.scheduler_log, "the --scheduler-command's output")
      ->capture_default_str();
  serve_cmd->add_option("--timeshim", serve.timeshim,
                        "the kubesim-timeshim binary for --scheduler-command (default: beside kubesim)");
  serve_cmd->add_option("--address", serve.address, "address to listen on")->capture_default_str();
  serve_cmd->add_option("--port", serve.port, "port (0: any free port)")->capture_default_str();
  serve_cmd->add_option("--kubeconfig", serve.kubeconfig, "kubeconfig file to write for clients (mode 0600)")
      ->capture_default_str();
  serve_cmd->add_option("--auth", serve.auth,
                        "token: require the bearer token written into the kubeconfig; none: no authentication; "
                        "auto: token unless the address is loopback")
      ->check(CLI::IsMember({"auto", "token", "none"}))
      ->capture_default_str();
  serve_cmd->add_flag("--tls", serve.tls, "serve HTTPS with a generated self-signed certificate (in the kubeconfig)");
  serve_cmd->add_flag("--keep-serving", serve.keep_serving, "keep serving after the workload has finished");
  serve_cmd->add_option("--watch-history", serve.watch_history,
                        "changes kept for watches that resume from a resourceVersion (older: 410 Gone)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}))
      ->capture_default_str();
  serve_cmd->add_option("--seed", serve.seed, "seed of all random streams")->capture_default_str();
  serve_cmd->add_option("--max-pods", serve.max_pods, "refuse pod creations (403) beyond this many pods")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto* s_model = serve_cmd->add_option("--model", serve.model, "latency model: realistic, ideal or a YAML file")
                      ->capture_default_str();
  serve_cmd->add_option("--out", serve.out, "output directory, written when the server stops")->capture_default_str();
  serve_cmd->add_option("--until", serve.until, "stop at this simulated time (seconds)");
  serve_cmd->add_flag("--quiet", serve.quiet, "print no summary");
  serve_cmd->footer(
      "The server stops on SIGINT/SIGTERM, at --until, or once the workload has finished (unless --keep-serving),\n"
      "then writes the same outputs as run. Clients: kubectl --kubeconfig kubesim.kubeconfig ...; kube-scheduler\n"
      "with --kubeconfig kubesim.kubeconfig --leader-elect=false --kube-api-content-type=application/json.\n"
      "Examples:\n"
      "  kubesim serve --cluster examples/serve/cluster.yaml --clock realtime=10\n"
      "  kubesim serve --scenario examples/multitenant/e3.yaml --clock cosim --port 6443\n"
      "  kubesim serve --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "                --workload data/batkube/spaced_200_delay170.json --clock cosim --builtin-scheduler off");

  RunArgs cmp;
  cmp.out = "results/compare";
  std::string cmp_schedulers;
  std::uint64_t cmp_seeds = 5;
  unsigned cmp_threads = 0;
  auto* cmp_cmd = app.add_subcommand(
      "compare", "run one scenario under several scheduler setups and seeds; write one side-by-side report");
  auto* c_scenario = cmp_cmd->add_option("--scenario", cmp.scenario, "scenario YAML (as for run)")->check(CLI::ExistingFile);
  auto* c_platform = cmp_cmd->add_option("--platform", cmp.platform, "SimGrid/Batsim platform XML")->check(CLI::ExistingFile);
  auto* c_cluster = cmp_cmd->add_option("--cluster", cmp.cluster, "kubesim cluster YAML")->check(CLI::ExistingFile);
  c_platform->excludes(c_cluster);
  auto* c_workload = cmp_cmd->add_option("--workload", cmp.workload, "Batsim v4 JSON workload")->check(CLI::ExistingFile);
  auto* c_swf = cmp_cmd->add_option("--swf", cmp.swf, "SWF trace")->check(CLI::ExistingFile);
  c_workload->excludes(c_swf);
  for (auto* o : {c_platform, c_cluster, c_workload, c_swf}) c_scenario->excludes(o);
  cmp_cmd->add_option("--schedulers", cmp_schedulers,
                      "comma-separated scheduler setups, each NAME or NAME=CONFIGFILE (" + setup_names + ")")
      ->required();
  cmp_cmd->add_option("--seeds", cmp_seeds, "runs per scheduler, with seeds 1..N")->capture_default_str();
  cmp_cmd->add_option("--jobs,-j", cmp_threads, "worker threads (0: one per hardware thread); outputs do not depend on it")
      ->capture_default_str();
  auto* c_model = cmp_cmd->add_option("--model", cmp.model, "latency model: realistic, ideal or a YAML file")
                      ->capture_default_str();
  cmp_cmd->add_option("--out", cmp.out, "output directory")->capture_default_str();
  cmp_cmd->add_option("--until", cmp.until, "stop each run at this simulated time (seconds)");
  cmp_cmd->add_option("--swf-cpu-per-processor", cmp.swf_cpu, "cpu request per SWF processor (a quantity)")
      ->capture_default_str();
  cmp_cmd->add_option("--swf-memory", cmp.swf_memory, "SWF memory request: none, requested or used")
      ->check(CLI::IsMember({"none", "requested", "used"}))
      ->capture_default_str();
  cmp_cmd->add_option("--swf-processors", cmp.swf_processors, "what an SWF processor is: machines or cores")
      ->check(CLI::IsMember({"machines", "cores"}))
      ->capture_default_str();
  cmp_cmd->add_flag("--quiet", cmp.quiet, "print no summary");
  cmp_cmd->footer(
      "Writes <out>/compare.html (what differed, side-by-side tables, charts), summary.csv (mean, min, max over\n"
      "seeds per scheduler and tenant), queue_times.csv, the charts, and each run's outputs in\n"
      "<out>/<scheduler>/seed-<k>/ (as run writes them). NAME=CONFIGFILE passes the setup its configuration file\n"
      "(as run --scheduler NAME --scheduler-config CONFIGFILE) and labels it NAME+<file stem>.\n"
      "Examples:\n"
      "  kubesim compare --scenario examples/multitenant/e3.yaml \\\n"
      "      --schedulers default-scheduler,default-scheduler=examples/scheduler-config/most-allocated.yaml \\\n"
      "      --seeds 5 --out results/e3-compare\n"
      "  kubesim compare --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "      --workload data/batkube/spaced_200_delay170.json --schedulers default-scheduler --seeds 3");

  calibrate::CalibrateCommand calibrate_cmd(app);
  calibrate::FidelityCommand fidelity_cmd(app);
  BspArgs bsp_args;
  auto* bsp_cmd = add_bsp_command(app, bsp_args);
  SweepCommand sweep(app, KUBESIM_VERSION);

  auto* convert = app.add_subcommand("convert", "convert workload formats");
  convert->require_subcommand(1);
  convert->footer("Example:\n  kubesim convert swf-to-batsim data/swf/KIT-10-80.swf -o kit.json");
  std::string swf_in, json_out;
  SwfConvertOptions conv;
  std::int64_t platform_size = -1;
  auto* s2b = convert->add_subcommand("swf-to-batsim",
                                      "SWF trace to Batsim delay workload (as batsim's tools/swf_to_batsim_workload_delay.py)");
  s2b->add_option("trace", swf_in, "input SWF file")->required()->check(CLI::ExistingFile);
  s2b->add_option("-o,--output", json_out, "output JSON file")->required();
  s2b->add_option("--job-walltime-factor,--jwf", conv.job_walltime_factor, "walltime = max(factor * run time, requested)")
      ->capture_default_str();
  s2b->add_flag("--given-walltime-only,--gwo", conv.given_walltime_only, "walltime = requested time only");
  s2b->add_option("--job-grain,--jg", conv.job_grain, "round delays up to this grain (seconds)")->capture_default_str();
  s2b->add_option("--platform-size,--pf", platform_size, "nb_res (default: the largest job)");
  s2b->add_option("--job-size-factor", conv.job_size_factor, "nb_res of a job = factor * allocated processors")
      ->capture_default_str();
  s2b->add_option("-i,--indent", conv.indent, "indentation of the JSON output (-1: compact)")->capture_default_str();
  s2b->footer("Example:\n  kubesim convert swf-to-batsim data/swf/KIT-10-80.swf -o kit.json");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "kubesim: error: %s (see kubesim --help)\n", e.what());
    return 2;
  }
  try {
    if (run_cmd->parsed()) {
      run.model_given = model->count() > 0;
      if (!run.scenario.empty()) return run_command(run);
      if (run.platform.empty() && run.cluster.empty())
        throw InputError("", 0, "run needs a cluster: --platform FILE or --cluster FILE");
      if (run.workload.empty() && run.swf.empty())
        throw InputError("", 0, "run needs a workload: --workload FILE or --swf FILE");
      return run_command(run);
    }
    if (serve_cmd->parsed()) {
      serve.model_given = s_model->count() > 0;
      if (serve.scenario.empty() && serve.platform.empty() && serve.cluster.empty())
        throw InputError("", 0, "serve needs a cluster: --scenario FILE, --platform FILE or --cluster FILE");
      return run_command(serve);
    }
    if (cmp_cmd->parsed()) {
      cmp.model_given = c_model->count() > 0;
      if (cmp.scenario.empty()) {
        if (cmp.platform.empty() && cmp.cluster.empty())
          throw InputError("", 0, "compare needs --scenario FILE, or a cluster (--platform/--cluster) and a workload");
        if (cmp.workload.empty() && cmp.swf.empty())
          throw InputError("", 0, "compare needs a workload: --workload FILE or --swf FILE");
      }
      return compare_command(cmp, cmp_schedulers, cmp_seeds, cmp_threads);
    }
    if (calibrate_cmd.parsed()) return calibrate_cmd.run();
    if (fidelity_cmd.parsed()) return fidelity_cmd.run();
    if (bsp_cmd->parsed()) return bsp_command(bsp_args);
    if (sweep.parsed()) return sweep.run();
    if (s2b->parsed()) {
      if (platform_size > 0) conv.platform_size = platform_size;
      conv.command_line = "kubesim convert swf-to-batsim " + swf_in + " -o " + json_out;
      SkippedJobs skipped;
      const std::string json = swf_to_batsim_json(read_swf(swf_in), conv, &skipped);
      write_file_atomically(json_out, json);
      for (const auto& [reason, count] : skipped.by_reason)
        std::fprintf(stderr, "kubesim: skipped %llu job(s): %s\n", static_cast<unsigned long long>(count), reason.c_str());
      return 0;
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "kubesim: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubesim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
