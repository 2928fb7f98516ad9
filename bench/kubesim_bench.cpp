// Speed and memory benchmarks for the foundation (issue: ">= 100,000 pods scheduled and
// completed per wall-clock second with the default profile on 5,000 nodes", "the NASA iPSC
// trace end to end in under 0.5 s", "peak memory under 1 KiB per simulated pod at
// 1,000,000 pods"). Figures are printed as Google Benchmark counters; run
//   build/kubesim_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <string>

#include "bench_util.hpp"

#include "engine/simulation.hpp"
#include "platform/cluster_yaml.hpp"
#include "workload/swf.hpp"

#ifndef KUBESIM_DATA_DIR
#define KUBESIM_DATA_DIR "data"
#endif

namespace kubesim {
namespace {

// `nodes` nodes of 32 cpu / 128 GiB; `pods` pods of 1 cpu / 2 GiB running `run_s` seconds,
// `per_second` of them submitted each second.
SimulationInputs synthetic(std::uint32_t nodes, std::uint32_t pods, std::uint32_t per_second, double run_s) {
  SimulationInputs in;
  for (std::uint32_t i = 0; i < nodes; ++i) {
    Node n;
    n.name = "node-" + std::to_string(i);
    n.allocatable[kCpu] = 32000;
    n.allocatable[kMemory] = 128LL << 30;
    n.capacity = n.allocatable;
    n.allowed_pods = 110;
    set_label(n.labels, "kubernetes.io/hostname", n.name);
    in.nodes.push_back(std::move(n));
  }
  in.workload.templates.push_back(batch_job_template(1000, 2LL << 30));
  in.workload.jobs.reserve(pods);
  for (std::uint32_t i = 0; i < pods; ++i) {
    WorkloadJob j;
    j.id = std::to_string(i);
    j.profile = "bench";
    j.submit = SimTime::from_seconds(static_cast<double>(i / per_second));
    j.run_time = Duration::from_seconds(run_s);
    in.workload.jobs.push_back(std::move(j));
  }
  in.scheduler = default_scheduler_config(in.resource_names);
  return in;
}


void run_synthetic(benchmark::State& state, const char* model) {
  const auto nodes = static_cast<std::uint32_t>(state.range(0));
  const auto pods = static_cast<std::uint32_t>(state.range(1));
  std::uint64_t scheduled = 0;
  for (auto _ : state) {
    state.PauseTiming();
    SimulationOptions options;
    options.model = ModelConfig::load(model);
    // 20,000 pods a second, 60 s each: at most ~1.2 M cpus asked of 160,000; the cluster is
    // busy but the scheduler keeps finding nodes (kube-scheduler's SchedulingBasic setup).
    auto sim = std::make_unique<Simulation>(synthetic(nodes, pods, 2000, 60), options);
    state.ResumeTiming();
    sim->run();
    scheduled += sim->scheduler().bindings();
    state.PauseTiming();
    if (sim->finished_pods() != pods) state.SkipWithError("not every pod finished");
    sim.reset();
    state.ResumeTiming();
  }
  state.counters["pods_per_second"] = benchmark::Counter(static_cast<double>(scheduled), benchmark::Counter::kIsRate);
}

void BM_DefaultProfile_Realistic(benchmark::State& state) { run_synthetic(state, "realistic"); }
void BM_DefaultProfile_Ideal(benchmark::State& state) { run_synthetic(state, "ideal"); }
BENCHMARK(BM_DefaultProfile_Realistic)->Args({5000, 200000})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DefaultProfile_Ideal)->Args({5000, 200000})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_NasaTrace(benchmark::State& state) {
  const std::string trace = std::string(KUBESIM_DATA_DIR) + "/swf/NASA-iPSC-1993-3.1-cln.swf";
  const std::string cluster = std::string(KUBESIM_SOURCE_DIR) + "/examples/nasa/cluster.yaml";
  for (auto _ : state) {
    SimulationInputs in;
    in.nodes = read_cluster_yaml(cluster, in.resource_names).nodes;
    in.workload = swf_to_workload(read_swf(trace), SwfOptions{}, in.resource_names);
    in.scheduler = default_scheduler_config(in.resource_names);
    Simulation sim(std::move(in), SimulationOptions{});
    sim.run();
    benchmark::DoNotOptimize(sim.finished_pods());
  }
}
BENCHMARK(BM_NasaTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

// One million pods (100 nodes of 32 cpus, 1,000 pods a second, 3 s each): peak resident
// memory per simulated pod, measured as the growth of the process's peak RSS.
void BM_MemoryMillionPods(benchmark::State& state) {
  for (auto _ : state) {
    const long before = max_rss_kib();
    auto sim = std::make_unique<Simulation>(synthetic(100, 1'000'000, 1000, 3), SimulationOptions{});
    sim->run();
    const long after = max_rss_kib();
    state.counters["bytes_per_pod"] = static_cast<double>(after - before) * 1024.0 / 1e6;
    state.counters["peak_rss_MiB"] = static_cast<double>(after) / 1024.0;
    if (sim->finished_pods() != 1'000'000) state.SkipWithError("not every pod finished");
  }
}
BENCHMARK(BM_MemoryMillionPods)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace kubesim

BENCHMARK_MAIN();
