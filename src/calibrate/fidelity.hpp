// `kubesim fidelity`: how close the simulation is to measured runs of the same workload.
// Each measured run (jobs.csv with the real-cluster columns, measurements.hpp) is replayed
// with its own measured submission times (a blank submission keeps the workload's), under
// seeds 1..S; per-pod distributions are compared pooled over runs and seeds:
//   wait          Started - submission (Batsim's waiting_time)
//   start-up      Started - Scheduled, measured and simulated, of the jobs whose Scheduled
//                 Event was measured (the real files miss it for the last pods of a run)
// and per run the makespan (the last completion seen) and the mean wait, against the
// measured runs' range (min-max). KS distance, ECDFs and a QQ plot per distribution. A
// replay of a run stamped by the Batkube submitter is stamped the same way (observer.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/measurements.hpp"
#include "engine/simulation.hpp"

namespace kubesim::calibrate {

struct RunFigures {
  std::string label;   // measured file, or "replay of <file>, seed k"
  double makespan = 0;
  double mean_wait = 0;
  std::vector<double> waits;
  std::vector<double> startups;
};

struct FidelityResult {
  std::string model;
  std::vector<RunFigures> measured;
  std::vector<RunFigures> simulated;  // per measured run, seeds 1..S (run-major)
  std::uint64_t seeds = 0;
  bool stamped_by_batkube_submitter = false;  // the replays went through observer.hpp
  double ks_wait = 0;
  double ks_startup = 0;
  // Mean over seeds of each replay, then over runs; and the measured range.
  double sim_makespan = 0, sim_mean_wait = 0;
  double measured_makespan_min = 0, measured_makespan_max = 0;
  double measured_wait_min = 0, measured_wait_max = 0;
  bool makespan_inside() const { return measured_makespan_min <= sim_makespan && sim_makespan <= measured_makespan_max; }
  bool wait_inside() const { return measured_wait_min <= sim_mean_wait && sim_mean_wait <= measured_wait_max; }
};

// `make_inputs` builds a fresh cluster + workload for each replay (the replay then sets the
// submission times). Runs sequentially (deterministic order). `on_replay_done` (if any) is
// called after each replay, for a progress display.
FidelityResult replay_measured_runs(const std::vector<MeasuredRun>& runs,
                                    const std::function<SimulationInputs()>& make_inputs, const ModelConfig& model,
                                    std::uint64_t seeds, const std::function<void()>& on_replay_done = {});

std::string fidelity_csv(const FidelityResult& r);
std::string fidelity_report_html(const FidelityResult& r);
// The report's answering sentence: mean wait and makespan against the measured ranges, the KS distance.
std::string fidelity_headline(const FidelityResult& r);

}  // namespace kubesim::calibrate
