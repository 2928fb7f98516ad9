#include "report/job_stats.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kubesim {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Quantiles quantiles_of(std::vector<double> values) {
  Quantiles d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (const double v : values) sum += v;
  d.n = values.size();
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = quantile_sorted(values, 0.5);
  d.p90 = quantile_sorted(values, 0.9);
  d.p99 = quantile_sorted(values, 0.99);
  d.max = values.back();
  return d;
}

double bounded_slowdown(double wait_s, double run_s, double tau_s) {
  return std::max(1.0, (wait_s + run_s) / std::max(run_s, tau_s));
}

namespace {

std::int64_t cluster_capacity_milli(const ObjectStore& store) {
  std::int64_t capacity = 0;
  for (std::uint32_t n = 0; n < store.node_count(); ++n) capacity += store.node(NodeId(n)).allocatable[kCpu];
  return capacity;
}

// Each started pod's [start, end) with its requested cpu, the end cut at `end` (still running).
template <typename Visit>
void for_each_running_interval(const RunOutputs& run, const Visit& visit) {
  const ObjectStore& store = run.store;
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) {
    const Pod& p = store.pod(PodId(i));
    if (p.started.is_never()) continue;
    const SimTime end = p.finished.is_never() || p.finished > run.end_time ? run.end_time : p.finished;
    if (end <= p.started) continue;
    visit(p.started.micros(), end.micros(), store.spec_of(PodId(i)).requests[kCpu]);
  }
}

}  // namespace

std::vector<JobTime> started_job_times(const std::vector<JobResult>& jobs) {
  std::vector<JobTime> out;
  out.reserve(jobs.size());
  for (const JobResult& j : jobs)
    if (!j.rejected) out.push_back({(j.start - j.submission).to_seconds(), (j.finish - j.start).to_seconds()});
  return out;
}

JobTimeQuantiles job_time_quantiles(const std::vector<JobTime>& times) {
  std::vector<double> waits, slowdowns, bounded;
  waits.reserve(times.size());
  slowdowns.reserve(times.size());
  bounded.reserve(times.size());
  for (const JobTime& t : times) {
    waits.push_back(t.wait_s);
    if (t.run_s > 0) slowdowns.push_back((t.wait_s + t.run_s) / t.run_s);
    bounded.push_back(bounded_slowdown(t.wait_s, t.run_s));
  }
  return {quantiles_of(std::move(waits)), quantiles_of(std::move(slowdowns)), quantiles_of(std::move(bounded))};
}

JobStats job_stats(const RunOutputs& run, const std::vector<JobResult>& jobs) {
  JobStats s;
  for (const JobResult& j : jobs) {
    ++s.jobs;
    if (j.rejected) {
      if (s.rejected++ == 0) s.first_rejected = j.job;
      continue;
    }
    ++(j.success ? s.succeeded : s.ended_otherwise);
    s.makespan_s = std::max(s.makespan_s, j.finish.to_seconds());
  }
  s.times = job_time_quantiles(started_job_times(jobs));
  s.capacity_milli = cluster_capacity_milli(run.store);
  long double core_seconds = 0;  // milli-cores x seconds
  for_each_running_interval(run, [&](std::int64_t start, std::int64_t end, std::int64_t cpu) {
    core_seconds += static_cast<long double>(cpu) * static_cast<long double>(end - start) / 1e6L;
  });
  const double span = s.makespan_s > 0 ? s.makespan_s : run.end_time.to_seconds();
  if (s.capacity_milli > 0 && span > 0)
    s.utilisation = static_cast<double>(core_seconds / (static_cast<long double>(s.capacity_milli) * span));
  return s;
}

CoresOverTime cores_over_time(const RunOutputs& run, const std::vector<JobResult>& jobs, double end_s,
                              std::size_t points) {
  CoresOverTime out;
  if (points == 0) points = 1;
  const double step = end_s > 0 ? end_s / static_cast<double>(points) : 1;
  // Milli-cores x seconds (waiting jobs x seconds) within each interval: the partly covered
  // first and last intervals directly, the wholly covered ones through a difference array
  // (`*_full`, prefix-summed below), so that each pod costs O(1), not O(intervals it spans).
  std::vector<double> core_seconds(points, 0), core_full(points + 1, 0);
  std::vector<double> job_seconds(points, 0), job_full(points + 1, 0);
  // Spreads the constant `value` over [a, b) into the intervals it overlaps.
  const auto add = [&](std::vector<double>& bins, std::vector<double>& full, double a, double b, double value) {
    a = std::max(a, 0.0);
    b = std::min(b, end_s);
    if (b <= a) return;
    const std::size_t first = std::min(static_cast<std::size_t>(a / step), points - 1);
    const std::size_t last = std::min(static_cast<std::size_t>(b / step), points - 1);
    if (first == last) {
      bins[first] += value * (b - a);
      return;
    }
    bins[first] += value * (static_cast<double>(first + 1) * step - a);
    bins[last] += value * (b - static_cast<double>(last) * step);
    full[first + 1] += value;
    full[last] -= value;
  };
  for_each_running_interval(run, [&](std::int64_t start, std::int64_t end, std::int64_t cpu) {
    add(core_seconds, core_full, static_cast<double>(start) / 1e6, static_cast<double>(end) / 1e6,
        static_cast<double>(cpu));
  });
  for (const JobResult& j : jobs)
    add(job_seconds, job_full, j.submission.to_seconds(), j.rejected ? end_s : j.start.to_seconds(), 1.0);
  double cores = 0, waiting = 0;
  for (std::size_t k = 0; k < points; ++k) {
    cores += core_full[k];
    waiting += job_full[k];
    core_seconds[k] += cores * step;
    job_seconds[k] += waiting * step;
  }
  out.time_s.push_back(0);
  out.running_cores.push_back(0);
  out.waiting_jobs.push_back(0);
  for (std::size_t k = 0; k < points; ++k) {
    out.time_s.push_back(static_cast<double>(k + 1) * step);
    out.running_cores.push_back(core_seconds[k] / step / 1000.0);
    out.waiting_jobs.push_back(job_seconds[k] / step);
  }
  return out;
}

}  // namespace kubesim
