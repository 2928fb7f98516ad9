// Running a sweep plan's cells and merging their results (`kubesim sweep`).
//
// Layout of OUT:
//   sweep.json          the plan's name, axis names and cells (id and axis values) in plan order,
//                       written before any cell runs; `sweep merge OUT` needs nothing else
//   cells/<id>/         one finished cell: result.csv (its rows of results.csv) and the run
//                       outputs the plan collects. A cell is written into cells/.tmp-<id>-<host>-<pid>
//                       and renamed into place, so cells/<id> is complete or absent; a re-run
//                       skips cells whose folder exists (resume after a crash)
//   results.csv         one row per cell and tenant: the cell id, the axes, the tenant's metrics
//   sweep.html          effect of each axis (95% confidence intervals over seeds), the best cells
// results.csv and sweep.html are built from cells/*/result.csv in plan order, so they are
// byte-identical however the cells ran (threads, Slurm array tasks, Kubernetes indexes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sweep/plan.hpp"

namespace kubesim {

struct SweepRunOptions {
  std::string out;
  unsigned threads = 0;               // 0: std::thread::hardware_concurrency()
  std::optional<std::size_t> chunk;   // --cells i: only the cells of chunk i
  std::string version;                // kubesim version for the run outputs
  // Called (from worker threads, serialised) after each cell with (done, running, left).
  std::function<void(std::size_t, std::size_t, std::size_t)> progress;
  // Called once every cell to run has its configuration read and checked, before anything is
  // written into `out` (the local sweep locks `out` and writes sweep.json there).
  std::function<void()> before_writing;
};

// Reads and checks every cell's configuration (inputs, setups, overrides) as a run would,
// writing nothing: a plan refused here leaves --out untouched. Throws InputError.
void check_sweep_cells(const SweepPlan& plan);
// Removes the temporary cell folders (cells/.tmp-<id>-<host>-<pid>) that processes of this host
// which are no longer running left behind (a killed sweep).
void remove_stale_cell_folders(const std::string& out);

struct SweepRunStats {
  std::size_t cells = 0;    // cells of the selection (the plan, or one chunk)
  std::size_t skipped = 0;  // already finished
  std::size_t ran = 0;
  unsigned threads = 1;
  double run_seconds = 0;      // wall time inside the simulations (summed over threads)
  double run_cpu_seconds = 0;  // CPU time of the threads inside the simulations (for benchmarks)
};

// Writes OUT/sweep.json (the cell list merge reads).
void write_sweep_manifest(const SweepPlan& plan, const std::string& out);

// Runs the selected cells that are not finished. Every configuration they need (scenario
// with its overrides, model, scheduler setups) is read and installed once before any cell
// runs: a bad value fails here, naming the plan's line. An exception in a cell is rethrown
// after all threads joined; finished cells stay.
SweepRunStats run_sweep_cells(const SweepPlan& plan, const SweepRunOptions& options);

struct SweepMerge {
  std::size_t cells = 0;
  std::size_t rows = 0;
};
// Merges OUT/cells/*/result.csv in the order of OUT/sweep.json into OUT/results.csv and
// OUT/sweep.html. Throws InputError naming the first unfinished cell when some are missing.
SweepMerge merge_sweep(const std::string& out);

// The metric columns of result.csv (after cell, the axes and tenant).
inline constexpr const char* kSweepMetrics[] = {"jobs", "completed", "started", "failed_pods", "average_queue_s", "total_queue_s",
                                                "makespan_s", "utilisation", "end_s"};

}  // namespace kubesim
