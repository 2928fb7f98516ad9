// The speed of `kubesim serve` over HTTP on loopback (issue 4, "Speed").
//
// The figures are taken the way a client sees them: this program starts the real `kubesim
// serve` binary as a child process (KUBESIM_BINARY, or --kubesim=PATH) on an ephemeral port
// and talks to it with cpp-httplib over keep-alive connections; nothing is measured in-process.
//   Bindings      N pods created with an external schedulerName, then one POST .../binding
//                 each from C client connections (target >= 5,000 bindings/s).
//   List          GET /api/v1/pods returning 10,000 pods, to the last byte (target < 200 ms).
//   Watchers      W concurrent watches of one namespace, from the resourceVersion of a LIST;
//                 E pods are created; every watcher must receive every ADDED event, in order.
//   CosimSpaced   the Batkube spaced workload (200 jobs, 16-node graphene platform) with
//                 --clock cosim --builtin-scheduler off, driven by tests/api/external_scheduler.py
//                 (the Python client); wall time of the whole serve run (target < 10 s).
// Run: build/api_bench [--kubesim=build/kubesim] --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <httplib.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <string_view>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

#ifndef KUBESIM_BINARY
#define KUBESIM_BINARY "kubesim"
#endif
#ifndef KUBESIM_SOURCE_DIR
#define KUBESIM_SOURCE_DIR "."
#endif
#ifndef KUBESIM_DATA_DIR
#define KUBESIM_DATA_DIR "data"
#endif

std::string g_kubesim = KUBESIM_BINARY;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// ---- the server as a child process -------------------------------------------------------
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& args, const std::string& tag) {
    dir_ = fs::temp_directory_path() / ("kubesim-api-bench-" + tag + "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    kubeconfig_ = (dir_ / "kubeconfig").string();
    std::vector<std::string> argv{g_kubesim, "serve"};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* a : {"--port", "0", "--kubeconfig"}) argv.emplace_back(a);
    argv.push_back(kubeconfig_);
    argv.emplace_back("--out");
    argv.push_back((dir_ / "out").string());
    argv.emplace_back("--quiet");
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    started_ = Clock::now();
    if (posix_spawn(&pid_, g_kubesim.c_str(), &fa, nullptr, cargv.data(), environ) != 0)
      throw std::runtime_error("cannot start " + g_kubesim);
    posix_spawn_file_actions_destroy(&fa);
    // The kubeconfig is written (atomically) once the server listens.
    const std::regex server_re(R"(server:\s*"?http://([0-9.]+):([0-9]+))");
    for (auto t = Clock::now(); seconds_since(t) < 20;) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("kubesim serve exited at start-up: " + slurp(err));
      }
      std::smatch m;
      std::string kc = fs::exists(kubeconfig_) ? slurp(kubeconfig_) : "";
      if (std::regex_search(kc, m, server_re)) {
        host_ = m[1];
        port_ = std::stoi(m[2]);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    throw std::runtime_error("no kubeconfig after 20 s");
  }
  ~ServeProcess() {
    stop();
    fs::remove_all(dir_);
  }
  // SIGTERM and wait; returns the exit status.
  int stop() {
    if (pid_ <= 0) return status_;
    kill(pid_, SIGTERM);
    return wait_exit();
  }
  int wait_exit() {
    if (pid_ <= 0) return status_;
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    wall_ = seconds_since(started_);
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return status_;
  }
  double wall() const { return wall_; }
  const std::string& host() const { return host_; }
  int port() const { return port_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  fs::path out() const { return dir_ / "out"; }
  httplib::Client client() const {
    httplib::Client c(host_, port_);
    c.set_keep_alive(true);
    c.set_tcp_nodelay(true);  // httplib writes headers and body separately: no Nagle delay
    c.set_read_timeout(30, 0);
    return c;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }

 private:
  fs::path dir_;
  std::string kubeconfig_, host_;
  int port_ = 0;
  pid_t pid_ = -1;
  int status_ = -1;
  double wall_ = 0;
  Clock::time_point started_;
};

std::string cluster_yaml(const fs::path& dir, int nodes, int cpu, int pods) {
  fs::create_directories(dir);
  auto p = dir / "cluster.yaml";
  std::ofstream f(p);
  f << "nodeGroups:\n  - name: bench\n    count: " << nodes << "\n    allocatable:\n      cpu: \""
    << cpu << "\"\n      memory: 4Ti\n      pods: \"" << pods << "\"\n";
  return p.string();
}

std::string pod_json(const std::string& ns, const std::string& name, const std::string& scheduler) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"("},"spec":{"schedulerName":")" + scheduler +
         R"(","restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1.36","command":["sleep"],"args":["36000"],"resources":{"requests":{"cpu":"10m","memory":"16Mi"},"limits":{"cpu":"10m","memory":"16Mi"}}}]}})";
}

std::string binding_json(const std::string& ns, const std::string& name, const std::string& node) {
  return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"("},"target":{"apiVersion":"v1","kind":"Node","name":")" + node + R"("}})";
}

// Runs fn(i) for i in [0, n) on `conns` threads, each with its own keep-alive connection.
// Returns the number of calls whose status was `want`.
template <class Fn>
long parallel_requests(const ServeProcess& srv, long n, int conns, int want, Fn fn) {
  std::atomic<long> next{0}, ok{0};
  std::vector<std::thread> ts;
  for (int c = 0; c < conns; ++c)
    ts.emplace_back([&] {
      auto cli = srv.client();
      for (long i; (i = next++) < n;) {
        auto res = fn(cli, i);
        if (res && res->status == want) ++ok;
      }
    });
  for (auto& t : ts) t.join();
  return ok;
}

long create_pods(const ServeProcess& srv, const std::string& ns, long n, int conns,
                 const std::string& scheduler) {
  auto cli = srv.client();
  cli.Post("/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + "\"}}",
           "application/json");
  const std::string path = "/api/v1/namespaces/" + ns + "/pods";
  return parallel_requests(srv, n, conns, 201, [&](httplib::Client& c, long i) {
    return c.Post(path.c_str(), pod_json(ns, "p" + std::to_string(i), scheduler), "application/json");
  });
}

// Counts the items of a list body without building a DOM: "uid" occurs once per pod.
long count_items(const std::string& body) {
  long n = 0;
  for (size_t p = 0; (p = body.find("\"uid\":", p)) != std::string::npos; ++p) ++n;
  return n;
}

void report_error(benchmark::State& state, const std::exception& e) { state.SkipWithError(e.what()); }

// ---- (a) bindings per second, (b) LIST of 10,000 pods --------------------------------------
void BM_Bindings(benchmark::State& state) {
  const long pods = state.range(0);
  const int conns = static_cast<int>(state.range(1));
  try {
    for (auto _ : state) {
      const int nodes = 100;
      const auto t0 = Clock::now();
      ServeProcess srv({"--cluster", cluster_yaml(fs::temp_directory_path() / "kubesim-api-bench-cl", nodes, 64, 1000),
                        "--builtin-scheduler", "off"},
                       "bind");
      state.counters["start_s"] = seconds_since(t0);
      auto t = Clock::now();
      long created = create_pods(srv, "bench", pods, conns, "bench-scheduler");
      double create_s = seconds_since(t);
      t = Clock::now();
      long bound = parallel_requests(srv, pods, conns, 201, [&](httplib::Client& c, long i) {
        std::string name = "p" + std::to_string(i);
        return c.Post(("/api/v1/namespaces/bench/pods/" + name + "/binding").c_str(),
                      binding_json("bench", name, "bench-" + std::to_string(i % nodes)), "application/json");
      });
      double bind_s = seconds_since(t);
      state.SetIterationTime(bind_s);
      // verify: every pod has a node (own scope: an idle keep-alive connection left open
      // makes the server's shutdown wait for its keep-alive timeout)
      long unbound = -1;
      {
        auto cli = srv.client();
        auto res = cli.Get("/api/v1/namespaces/bench/pods?fieldSelector=spec.nodeName%3D");
        if (res && res->status == 200) unbound = count_items(res->body);
      }
      state.counters["pods"] = static_cast<double>(pods);
      state.counters["created_per_s"] = static_cast<double>(created) / create_s;
      state.counters["bound_ok"] = static_cast<double>(bound);
      state.counters["bindings_per_s"] = static_cast<double>(bound) / bind_s;
      state.counters["unbound_after"] = static_cast<double>(unbound);
      if (created != pods || bound != pods || unbound != 0)
        state.SkipWithError(("created " + std::to_string(created) + ", bound " + std::to_string(bound) +
                             ", still unbound " + std::to_string(unbound))
                                .c_str());
      t = Clock::now();
      const int rc = srv.stop();
      state.counters["stop_s"] = seconds_since(t);  // SIGTERM to exit, outputs written
      state.counters["exit_status"] = rc;
    }
  } catch (const std::exception& e) {
    report_error(state, e);
  }
}
BENCHMARK(BM_Bindings)->Args({10000, 4})->Args({10000, 1})->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_List10k(benchmark::State& state) {
  const long pods = state.range(0);
  try {
    ServeProcess srv({"--cluster", cluster_yaml(fs::temp_directory_path() / "kubesim-api-bench-cl", 10, 64, 1000),
                      "--builtin-scheduler", "off"},
                     "list");
    long created = create_pods(srv, "bench", pods, 4, "bench-scheduler");
    if (created != pods) throw std::runtime_error("created " + std::to_string(created) + " pods");
    auto cli = srv.client();
    std::vector<double> ms;
    size_t bytes = 0;
    long items = 0;
    for (auto _ : state) {
      auto t = Clock::now();
      auto res = cli.Get("/api/v1/pods");
      double s = seconds_since(t);
      state.SetIterationTime(s);
      ms.push_back(s * 1e3);
      if (!res || res->status != 200) throw std::runtime_error("LIST failed");
      bytes = res->body.size();
      items = count_items(res->body);
    }
    std::sort(ms.begin(), ms.end());
    state.counters["items"] = static_cast<double>(items);
    state.counters["MB"] = static_cast<double>(bytes) / 1e6;
    state.counters["median_ms"] = ms[ms.size() / 2];
    state.counters["max_ms"] = ms.back();
    if (items != pods) state.SkipWithError(("LIST returned " + std::to_string(items) + " pods").c_str());
  } catch (const std::exception& e) {
    report_error(state, e);
  }
}
BENCHMARK(BM_List10k)->Arg(10000)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- (c) concurrent watchers ---------------------------------------------------------------
void BM_Watchers(benchmark::State& state) {
  const int watchers = static_cast<int>(state.range(0));
  const long events = state.range(1);
  try {
    for (auto _ : state) {
      ServeProcess srv({"--cluster", cluster_yaml(fs::temp_directory_path() / "kubesim-api-bench-cl", 10, 64, 1000),
                        "--builtin-scheduler", "off"},
                       "watch");
      auto cli = srv.client();
      cli.Post("/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"w"}})",
               "application/json");
      auto lst = cli.Get("/api/v1/namespaces/w/pods");
      std::smatch m;
      static const std::regex rv_re(R"re("resourceVersion":"([0-9]+)")re");
      if (!lst || lst->status != 200 || !std::regex_search(lst->body, m, rv_re))
        throw std::runtime_error("LIST for the resourceVersion failed");
      const std::string path = "/api/v1/namespaces/w/pods?watch=true&resourceVersion=" + m[1].str() +
                               "&timeoutSeconds=60";
      // Each watcher records the pod numbers of its ADDED events; every watcher must see all
      // of them, in one and the same order (the server's).
      std::vector<std::vector<long>> seen(watchers);
      std::vector<Clock::time_point> last(watchers);
      std::vector<std::thread> ts;
      for (int w = 0; w < watchers; ++w)
        ts.emplace_back([&, w] {
          httplib::Client c(srv.host(), srv.port());
          c.set_tcp_nodelay(true);
          c.set_read_timeout(30, 0);
          std::string buf;
          auto& mine = seen[w];
          mine.reserve(events);
          c.Get(path.c_str(), [&](const char* data, size_t len) {
            buf.append(data, len);
            size_t from = 0;
            for (size_t nl; (nl = buf.find('\n', from)) != std::string::npos; from = nl + 1) {
              std::string_view line(buf.data() + from, nl - from);
              if (line.find(R"("type":"ADDED")") == std::string_view::npos) continue;
              size_t p = line.find(R"("name":"p)");
              mine.push_back(p == std::string_view::npos ? -1 : std::atol(line.data() + p + 9));
              last[w] = Clock::now();
            }
            buf.erase(0, from);
            return static_cast<long>(mine.size()) < events;
          });
        });
      auto t = Clock::now();
      long created = create_pods(srv, "w", events, 4, "bench-scheduler");
      for (auto& th : ts) th.join();
      Clock::time_point end = *std::max_element(last.begin(), last.end());
      double s = std::chrono::duration<double>(end - t).count();
      state.SetIterationTime(s);
      std::vector<long> all = seen[0];
      std::sort(all.begin(), all.end());
      bool every_pod = static_cast<long>(all.size()) == events;
      for (long i = 0; every_pod && i < events; ++i) every_pod = all[i] == i;
      long complete = 0, ordered = 0;
      for (auto& v : seen) {
        complete += static_cast<long>(v.size()) == events;
        ordered += every_pod && v == seen[0];
      }
      state.counters["watchers"] = watchers;
      state.counters["events"] = static_cast<double>(events);
      state.counters["complete_watchers"] = static_cast<double>(complete);
      state.counters["in_order_watchers"] = static_cast<double>(ordered);
      state.counters["deliveries_per_s"] = watchers * static_cast<double>(events) / s;
      if (created != events || complete != watchers || ordered != watchers)
        state.SkipWithError(("created " + std::to_string(created) + ", " + std::to_string(complete) +
                             " watchers got every event, " + std::to_string(ordered) + " in order")
                                .c_str());
      srv.stop();
    }
  } catch (const std::exception& e) {
    report_error(state, e);
  }
}
BENCHMARK(BM_Watchers)->Args({100, 1000})->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- (d) cosim wall time with an external scheduler ----------------------------------------
void BM_CosimSpaced(benchmark::State& state) {
  const std::string data = KUBESIM_DATA_DIR "/batkube/";
  const std::string sched = KUBESIM_SOURCE_DIR "/tests/api/external_scheduler.py";
  try {
    for (auto _ : state) {
      ServeProcess srv({"--platform", data + "platform_graphene_16nodes.xml", "--workload",
                        data + "spaced_200_delay170.json", "--clock", "cosim", "--builtin-scheduler", "off"},
                       "cosim");
      std::string cmd = "/usr/bin/python3 " + sched + " --kubeconfig " + srv.kubeconfig() +
                        " --max-seconds 120 > /dev/null 2>&1";
      std::thread scheduler([&] { (void)std::system(cmd.c_str()); });
      int rc = srv.wait_exit();
      scheduler.join();
      state.SetIterationTime(srv.wall());
      double makespan = 0;
      long completed = 0;
      std::ifstream jobs(srv.out() / "jobs.csv");
      std::string line;
      std::getline(jobs, line);
      while (std::getline(jobs, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        if (f.size() > 10) {
          completed += f[7] == "COMPLETED_SUCCESSFULLY";
          makespan = std::max(makespan, std::stod(f[10]));
        }
      }
      state.counters["wall_s"] = srv.wall();
      state.counters["makespan_s"] = makespan;
      state.counters["completed"] = static_cast<double>(completed);
      if (rc != 0 || completed != 200)
        state.SkipWithError(("exit " + std::to_string(rc) + ", " + std::to_string(completed) + " of 200 completed").c_str());
    }
  } catch (const std::exception& e) {
    report_error(state, e);
  }
}
BENCHMARK(BM_CosimSpaced)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--kubesim=", 0) == 0)
      g_kubesim = a.substr(10);
    else
      rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  signal(SIGPIPE, SIG_IGN);
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
