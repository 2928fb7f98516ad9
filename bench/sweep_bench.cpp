// `kubesim sweep` speed: 1,000 cells of the study's E3 (four scheduler setups x 250 seeds),
// run as the CLI runs them (thread pool of hardware_concurrency, each cell written into
// OUT/cells/<id>/ through a temporary folder, then the merge into results.csv and sweep.html).
// The targets: under 15 s in total on 2 cores, under 5 ms of overhead per cell beyond
// the simulation itself. Overhead per cell = (wall time x threads - time inside the runs) /
// cells, i.e. everything a worker spends on a cell that is not RunPipeline's simulation
// (copying inputs, installing the setup, building and writing the outputs), plus the merge.
//
//   build/sweep_bench [cells-per-setup]      (default 250)
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "core/atomic_file.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep.hpp"

int main(int argc, char** argv) {
  using namespace kubesim;
  namespace fs = std::filesystem;
  const int seeds = argc > 1 ? std::atoi(argv[1]) : 250;
  const fs::path dir = fs::temp_directory_path() / ("kubesim-sweep-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string plan_path = (dir / "plan.yaml").string();
  write_file_atomically(plan_path, "name: e3-bench\nscenarios: [" + std::string(KUBESIM_SOURCE_DIR) +
                                       "/examples/multitenant/e3.yaml]\n"
                                       "schedulers: [default-scheduler, fcfs, easy-backfill, conservative-backfill]\n"
                                       "seeds: " + std::to_string(seeds) + "\ncollect: [summary]\n");
  const auto t0 = std::chrono::steady_clock::now();
  const SweepPlan plan = read_sweep_plan(plan_path);
  SweepRunOptions options;
  options.out = (dir / "out").string();
  options.version = "bench";
  write_sweep_manifest(plan, options.out);
  const SweepRunStats stats = run_sweep_cells(plan, options);
  const SweepMerge merged = merge_sweep(options.out);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cells = static_cast<double>(stats.ran);
  const double overhead_ms = (wall * stats.threads - stats.run_seconds) / cells * 1e3;
  // On a shared machine wall time includes waiting for a core: CPU time tells what the sweep
  // costs, and CPU / threads the wall time it takes on that many idle cores.
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const double cpu = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  const double cpu_overhead_ms = (cpu - stats.run_cpu_seconds) / cells * 1e3;
  std::printf("sweep_bench: %zu cells of E3 (4 setups x %d seeds), %zu result rows, on %u thread(s)\n", stats.ran, seeds,
              merged.rows, stats.threads);
  std::printf("  total wall time        %8.3f s   (target < 15 s for 1000 cells on 2 cores)\n", wall);
  std::printf("  cells per second       %8.1f\n", cells / wall);
  std::printf("  simulation per cell    %8.3f ms\n", stats.run_seconds / cells * 1e3);
  std::printf("  overhead per cell      %8.3f ms  (target < 5 ms)\n", overhead_ms);
  std::printf("  CPU time (user+sys)    %8.3f s   -> %.3f s on %u idle core(s)\n", cpu, cpu / stats.threads, stats.threads);
  std::printf("  CPU in simulations     %8.3f ms per cell\n", stats.run_cpu_seconds / cells * 1e3);
  std::printf("  CPU overhead per cell  %8.3f ms  (everything but the simulations, plan reading and merge included)\n",
              cpu_overhead_ms);
  double load[1] = {0};
  if (getloadavg(load, 1) == 1) std::printf("  load average (1 min)   %8.2f   (wall figures are only meaningful on an idle machine)\n", load[0]);
  fs::remove_all(dir);
  return 0;
}
