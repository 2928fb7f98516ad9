// Records the multi-tenant study's metrics (tenant_metrics.hpp) during a run: it listens to
// the store's change feed at the instant each change is made (the API's view, as the
// study's sampler read it), keeps each work item's state (a Job, or a bare pod), and emits
// one sample per interval with the state as of that instant (after every change made at
// or before it). The running-cores integral for utilisation is exact, not sampled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "metrics/tenant_metrics.hpp"

namespace kubesim {

class TenantRecorder : public ChangeListener {
 public:
  // `tenants`: namespaces to report first, in this order; others that receive work are
  // appended in first-submission order. `capacity_milli`: the utilisation denominator.
  TenantRecorder(const Simulation& sim, Duration interval, std::int64_t capacity_milli,
                 const std::vector<std::string>& tenants = {});

  void on_change(const Change& change) override;
  // Emits the samples up to the end of the run (sim.now()). Call once, after run().
  void finish();

  const TenantTimeSeries& series() const { return series_; }
  // The per-tenant summary and utilisation, from the final store.
  RunSummary summary() const;

 private:
  enum class State : std::uint8_t { kNone, kPending, kRunning, kCompleted, kPreempted };
  std::size_t tenant_of(NamespaceId ns);
  void set_state(State& current, State next, std::size_t tenant, std::int64_t cores);
  void emit_until(SimTime t, bool inclusive);
  // At most kMaxSamples samples: a run spanning more sample intervals keeps every other
  // sample and doubles the interval (as often as needed), so the recorder's memory and time,
  // and timeseries.csv/queue.csv, grow with the events and not with the simulated span (one
  // job of 1e9 s once meant 1e9 rows, then 2^20 rows and 6 s of wall time). Runs within 2^16
  // intervals (18 hours at 1 s) keep theirs.
  static constexpr std::size_t kMaxSamples = std::size_t{1} << 16;
  void halve_resolution();
  void advance_integral(SimTime now);

  const Simulation& sim_;
  TenantTimeSeries series_;
  std::vector<std::int32_t> tenant_by_namespace_;  // -1: not yet seen
  std::vector<TenantSample> current_;              // by tenant
  std::vector<State> job_state_;                   // by JobId
  std::vector<State> pod_state_;                   // by PodId (bare pods only)
  std::int64_t pending_pods_ = 0;
  std::int64_t running_total_ = 0;
  double running_integral_ = 0;  // millicore-seconds
  SimTime last_change_ = SimTime::zero();
  SimTime next_sample_ = SimTime::zero();
  bool finished_ = false;
};

}  // namespace kubesim
