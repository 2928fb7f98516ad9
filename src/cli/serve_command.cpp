#include "cli/cli_bounds.hpp"
#include "cli/serve_command.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "api/manifest_apply.hpp"
#include "api/api_server.hpp"
#include "api/clock.hpp"
#include "api/http_server.hpp"
#include "api/shimmed_scheduler.hpp"
#include "cli/policy_option.hpp"
#include "cli/version.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/output_dir.hpp"

namespace kubesim {
namespace {

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

// The default kubeconfig is <out>/kubesim.kubeconfig (docs/reference/running.md): --out is locked and
// checked by now (core/output_dir.hpp); when it does not exist yet it is created with the
// marker, so that it stays replaceable by the next run even if this one is killed. The run's
// outputs replace it whole when the server stops, and the kubeconfig, useless by then, with it.
void prepare_kubeconfig_folder(const RunArgs& a) {
  const std::filesystem::path folder = std::filesystem::path(a.kubeconfig).parent_path();
  if (folder.empty()) return;
  std::filesystem::create_directories(folder);
  const std::filesystem::path marker = folder / OutputDirectory::kMarker;
  if (folder.lexically_normal() == std::filesystem::path(a.out).lexically_normal() && !std::filesystem::exists(marker))
    write_file_atomically(marker.string(), "written by kubesim; replaced by the next run\n");
}

bool is_loopback_address(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

// host:port for a URL: an IPv6 address goes in brackets (RFC 3986).
std::string url_authority(const std::string& address, int port) {
  const bool ipv6 = address.find(':') != std::string::npos;
  return (ipv6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

api::ClockOptions clock_options(const Simulation& sim, const RunArgs& a) {
  auto clock = api::parse_clock(a.clock);
  if (!clock) throw InputError("", 0, "expected --clock cosim, realtime or realtime=FACTOR (FACTOR > 0), got " + a.clock);
  // Under kubesim-timeshim the shim itself reports when every scheduler thread is blocked
  // (rule 3 of api/clock.hpp), so the quiet period only spaces its two looks: 1 ms is enough
  // (the spaced workload: 72.5 s instead of 465 s at 20 ms, the same jobs.csv). Without the
  // shim it is the only sign that the scheduler is done reacting: 20 ms.
  const int quiet_ms = a.cosim_quiet_ms >= 0 ? a.cosim_quiet_ms : (a.scheduler_command.empty() ? 20 : 1);
  clock->quiet = std::chrono::milliseconds(quiet_ms);
  if (a.cosim_timeout > 0)
    clock->decision_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(a.cosim_timeout * 1000));
  clock->paced_hold = a.cosim_hold == "paced";
  clock->write_gate = a.cosim_write_gate == "batch" ? api::ClockOptions::WriteGate::kBatch
                      : a.cosim_write_gate == "one" ? api::ClockOptions::WriteGate::kOne
                      : a.cosim_write_gate == "all" ? api::ClockOptions::WriteGate::kAll
                                                    : api::ClockOptions::WriteGate::kOff;
  clock->timer_slack = Duration::from_seconds(a.cosim_timer_slack_ms / 1000);
  clock->grace = std::chrono::milliseconds(static_cast<std::int64_t>(a.cosim_grace * 1000));
  if (a.until >= 0) clock->until = SimTime::from_seconds(a.until);
  clock->end_with_workload = !a.keep_serving && !sim.workload().jobs.empty();
  return *clock;
}

api::ApiOptions api_options(const RunArgs& a, const api::ClockOptions& clock) {
  api::ApiOptions options;
  options.kubesim_version = KUBESIM_VERSION;
  options.seed = a.seed;
  options.watch_log_capacity = a.watch_history;
  options.wall_clock_watch_timers = a.scheduler_command.empty();
  // cosim is deterministic: timestamps start at a fixed epoch (2026-01-01T00:00:00Z). In
  // realtime mode they start at the wall time of the start, so clients' ages read right.
  if (clock.mode == api::ClockOptions::Mode::kRealtime)
    options.epoch_unix_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  return options;
}

// Access (issue 16): a bearer token whenever the address is not loopback, unless --auth
// none, which is loud about it; --tls serves HTTPS with a generated self-signed
// certificate, which the kubeconfig carries as its CA.
api::HttpServer::Options http_options(const RunArgs& a) {
  api::HttpServer::Options http;
  const bool loopback = is_loopback_address(a.address);
  if (a.auth == "token" || (a.auth == "auto" && !loopback)) http.bearer_token = api::make_bearer_token();
  if (a.tls) http.tls = api::make_self_signed_identity(a.address);
  if (!loopback && http.bearer_token.empty())
    std::fprintf(stderr,
                 "kubesim: WARNING: serving %s without authentication: anyone who can reach this address can read "
                 "and change the simulated cluster (drop --auth none, or serve on 127.0.0.1)\n",
                 a.address.c_str());
  return http;
}

// --scheduler-command: the scheduler on simulated time, under kubesim-timeshim (clock.hpp).
std::unique_ptr<api::ShimmedScheduler> start_shimmed_scheduler(const RunArgs& a, const api::ClockOptions& clock,
                                                               const api::ApiOptions& options, api::HttpServer& http) {
  if (clock.mode != api::ClockOptions::Mode::kCosim)
    throw InputError("", 0, "--scheduler-command needs --clock cosim (it runs the scheduler on simulated time)");
  std::string timeshim = a.timeshim;
  if (timeshim.empty()) {
    std::error_code ec;
    timeshim = (std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "kubesim-timeshim").string();
  }
  try {
    return std::make_unique<api::ShimmedScheduler>(api::ShimmedScheduler::Options{
        timeshim, api::scheduler_command_words(a.scheduler_command, a.kubeconfig), a.kubeconfig + ".timeshim.sock",
        a.scheduler_log, options.epoch_unix_micros / 1'000'000, [&http] { return http.bytes_unread(); }, a.seed,
        a.cosim_go_map_draws});
  } catch (const std::runtime_error& e) {
    throw InputError("", 0, e.what());
  }
}

// Drives the clock until `driver` ends or SIGINT/SIGTERM (`signals`, blocked in every
// thread) arrives; returns why it ended.
std::string drive_until_signal(api::ClockDriver& driver, const sigset_t& signals) {
  std::atomic<bool> stop{false};
  std::atomic<bool> finished{false};
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
  std::string reason = driver.run(stop);
  finished = true;
  signal_thread.join();
  return reason;
}

// Pods an external scheduler left pending, by name (the count follows with run's message).
void report_pending_external(api::ApiServer& server) {
  const std::vector<std::string> pending = server.locked([&] { return server.pending_external_pods(); });
  if (pending.empty()) return;
  std::string names;
  for (std::size_t i = 0; i < pending.size() && i < 20; ++i) names += (i ? ", " : "") + pending[i];
  std::fprintf(stderr, "kubesim: serve ended with %zu pod(s) of external schedulers pending: %s%s\n", pending.size(),
               names.c_str(), pending.size() > 20 ? ", ..." : "");
}

// The clock's options: realtime or cosim, and what holds cosim's clock.
void add_clock_options(CLI::App* serve_cmd, RunArgs& serve) {
  serve_cmd->add_option("--clock", serve.clock,
                        "realtime[=FACTOR]: simulated time runs FACTOR times wall time; cosim: time stands still "
                        "while an external scheduler has work")
      ->capture_default_str();
  serve_cmd->add_option("--cosim-quiet-ms", serve.cosim_quiet_ms,
                        "cosim: wall time without requests before the clock moves while pods wait as unschedulable "
                        "(default 20, or 1 with --scheduler-command, whose shim reports when the scheduler is blocked)");
  serve_cmd->add_option("--cosim-timer-slack-ms", serve.cosim_timer_slack_ms,
                        "cosim with --scheduler-command: how late (simulated ms) the scheduler's timers may fire, so "
                        "that those due together take one step of its clock (0: each timer exactly)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  serve_cmd->add_option("--cosim-write-gate", serve.cosim_write_gate,
                        "cosim with --scheduler-command: off; batch: the scheduler's writes wait until it is blocked, "
                        "then act in the order of their method, path and body; one: one such write per opening; "
                        "all: every request, reads too, one per opening")
      ->check(CLI::IsMember({"off", "batch", "one", "all"}))
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
  serve_cmd->add_option("--cosim-go-map-draws", serve.cosim_go_map_draws,
                        "with --scheduler-command, where a Go 1.19 scheduler's map walks start: pinned (one place per "
                        "seed, repeatable) or per-goroutine (a stream per goroutine: ties broken by a map walk vary "
                        "within a run; runs of a seed may differ)")
      ->check(CLI::IsMember({"pinned", "per-goroutine"}))
      ->capture_default_str();
}

// Where the API listens, who may use it, how much watch history it keeps.
void add_access_options(CLI::App* serve_cmd, RunArgs& serve) {
  serve_cmd->add_option("--address", serve.address, "address to listen on")->capture_default_str();
  serve_cmd->add_option("--port", serve.port, "port (0: any free port)")->capture_default_str();
  serve_cmd->add_option("--kubeconfig", serve.kubeconfig,
                        "kubeconfig file to write for clients (mode 0600; default: OUT/kubesim.kubeconfig)")
      ->capture_default_str();
  serve_cmd->add_option("--auth", serve.auth,
                        "token: require the bearer token written into the kubeconfig; none: no authentication; "
                        "auto: token unless the address is loopback")
      ->check(CLI::IsMember({"auto", "token", "none"}))
      ->capture_default_str();
  serve_cmd->add_flag("--tls", serve.tls, "serve HTTPS with a generated self-signed certificate (in the kubeconfig)");
  serve_cmd->add_option("--apply", serve.apply,
                        "a YAML file, or a directory of them, whose objects are created through the API at start "
                        "(CustomResourceDefinitions first), before any client or --scheduler-command (repeatable)")
      ->check(CLI::ExistingPath);
  serve_cmd->add_flag("--keep-serving", serve.keep_serving, "keep serving after the workload has finished");
  serve_cmd->add_option("--watch-history", serve.watch_history,
                        "changes kept for watches that resume from a resourceVersion (older: 410 Gone)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}))
      ->capture_default_str();
}

}  // namespace

bool serve_simulation(Simulation& sim, const RunArgs& a) {
  const api::ClockOptions clock = clock_options(sim, a);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const api::ApiOptions options = api_options(a, clock);
  // Heap objects: when SIGTERM comes with connections still open, they outlive this function
  // (see the end) until the process exits.
  auto server_owner = std::make_unique<api::ApiServer>(sim, options);
  api::ApiServer& server = *server_owner;
  // Before the HTTP server's threads exist: a refused object ends serve with FILE:LINE.
  for (const std::string& path : a.apply) api::apply_manifests(server, path);
  const api::HttpServer::Options access = http_options(a);
  auto http_owner = std::make_unique<api::HttpServer>(server, access);
  api::HttpServer& http = *http_owner;
  const int port = http.start(a.address, a.port);
  const std::string authority = url_authority(a.address, port);
  const std::string url = (a.tls ? "https://" : "http://") + authority;
  server.set_server_address(authority);
  // The kubeconfig is private (0600): it may carry the token.
  prepare_kubeconfig_folder(a);
  write_file_atomically(a.kubeconfig,
                        kubeconfig_text(url, a.tls ? access.tls->certificate_pem : std::string(), access.bearer_token),
                        FileAccess::kPrivate);
  std::printf("kubesim: serving the Kubernetes API on %s (clock %s; kubeconfig %s)\n", url.c_str(), a.clock.c_str(),
              a.kubeconfig.c_str());
  if (a.builtin_scheduler == "off" && a.scheduler_command.empty())
    std::printf("kubesim: the built-in scheduler is off: waiting for an external scheduler to bind the pods "
                "(kube-scheduler --kubeconfig %s ...)\n", a.kubeconfig.c_str());
  std::fflush(stdout);

  const auto wall_start = std::chrono::steady_clock::now();
  api::ClockDriver driver(sim, server, clock);
  std::unique_ptr<api::ShimmedScheduler> shimmed;
  if (!a.scheduler_command.empty()) {
    shimmed = start_shimmed_scheduler(a, clock, options, http);
    driver.set_shimmed_scheduler(shimmed.get());
  }
  const std::string reason = drive_until_signal(driver, signals);
  server.locked([&] { server.stop_gating_writes(); });
  shimmed.reset();
  report_pending_external(server);
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
                !a.scheduler_command.empty() ? (", " + std::to_string(driver.shim_steps()) + " steps of the scheduler's clock, " +
                                                 std::to_string(driver.gate_openings()) + " write gate openings").c_str() : "");
  return closed;
}

ServeCommand::ServeCommand(CLI::App& app) {
  RunArgs& serve = args_;
  serve.serve = true;
  serve.out = "results/serve";
  cmd_ = app.add_subcommand(
      "serve", "serve the Kubernetes API of a simulated cluster to kubectl, client libraries and external schedulers");
  CLI::App* serve_cmd = cmd_;
  add_input_options(serve_cmd, serve,
                    {"scenario YAML (as for run)", "SimGrid/Batsim platform XML", "kubesim cluster YAML",
                     "Batsim v4 JSON workload, submitted at its times", "SWF trace, submitted at its times"});
  serve_cmd->add_option("--scheduler-config", serve.scheduler_config, "KubeSchedulerConfiguration of the built-in scheduler")
      ->check(CLI::ExistingFile);
  serve_cmd->add_option("--scheduler", serve.scheduler,
                        "scheduler setups run inside, as for run (several joined by +); pods of no setup's "
                        "schedulerName wait for an external scheduler");
  add_policy_option(serve_cmd, serve.policies);
  serve_cmd->add_option("--cache-delay", serve.cache_delays, "SETUP=SECONDS, as for run (repeatable)");
  serve_cmd->add_option("--builtin-scheduler", serve.builtin_scheduler,
                        "on: pods of the built-in kube-scheduler's profiles are scheduled inside; off: it serves "
                        "none (they wait for an external scheduler; other schedulers given with --scheduler still run)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  serve_cmd->add_option("--builtin-controllers", serve.builtin_controllers,
                        "on: the setups' controllers run inside (Kueue's admission); off: they do not, the "
                        "workload stays as the setups made it (Jobs suspended and labelled for their queue) for "
                        "an external controller, e.g. the real Kueue manager under --scheduler-command")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  add_clock_options(serve_cmd, serve);
  add_access_options(serve_cmd, serve);
  serve_cmd->add_option("--seed", serve.seed, "seed of all random streams")->capture_default_str();
  serve_cmd->add_option("--max-pods", serve.max_pods, "refuse pod creations (403) beyond this many pods")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  model_ = serve_cmd->add_option("--model", serve.model, "latency model: realistic, ideal or a YAML file")
                      ->capture_default_str();
  serve_cmd->add_option("--out", serve.out, "output directory, written when the server stops")->capture_default_str();
  serve_cmd->add_option("--until", serve.until, "stop at this simulated time (seconds, at most 1e8)")->check(simulated_seconds());
  serve_cmd->add_flag("--quiet", serve.quiet, "print no summary");
  serve_cmd->footer(
      "The server stops on SIGINT/SIGTERM, at --until, or once the workload has finished (unless --keep-serving),\n"
      "then writes the same outputs as run. Clients: kubectl --kubeconfig OUT/kubesim.kubeconfig ...; kube-scheduler\n"
      "with --kubeconfig OUT/kubesim.kubeconfig --leader-elect=false --kube-api-content-type=application/json.\n"
      "Examples:\n"
      "  kubesim serve --cluster examples/serve/cluster.yaml --clock realtime=10\n"
      "  kubesim serve --scenario examples/multitenant/e3.yaml --clock cosim --port 6443\n"
      "  kubesim serve --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "                --workload data/batkube/spaced_200_delay170.json --clock cosim --builtin-scheduler off");
}

int ServeCommand::run() {
  RunArgs& serve = args_;
  serve.model_given = model_->count() > 0;
  if (serve.scenario.empty() && serve.platform.empty() && serve.cluster.empty())
    throw InputError("", 0, "serve needs a cluster: --scenario FILE, --platform FILE or --cluster FILE");
  if (serve.kubeconfig.empty()) serve.kubeconfig = serve.out + "/kubesim.kubeconfig";
  return run_simulation(serve);
}

}  // namespace kubesim
