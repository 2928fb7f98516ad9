#include "study/compare_stats.hpp"

#include <algorithm>
#include <cmath>

namespace kubesim {

const std::vector<std::string> kCompareColumns = {"jobs",
                                                  "completed",
                                                  "failed_pods",
                                                  "total_cores",
                                                  "total_queue_time_s",
                                                  "average_queue_time_s",
                                                  "total_run_time_s",
                                                  "total_queue_run_time_s",
                                                  "makespan_s",
                                                  "utilisation"};

SeedStat seed_stat(const std::vector<double>& values) {
  SeedStat s;
  if (values.empty()) return s;
  s.min = s.max = values.front();
  double sum = 0;
  for (const double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

namespace {

TenantSummary tenant_of(const RunSummary& s, const std::string& tenant) {
  for (const TenantSummary& t : s.tenants)
    if (t.tenant == tenant) return t;
  TenantSummary none;
  none.tenant = tenant;
  return none;
}

// The run's "(cluster)" row: sums over tenants, the mean queue time over every started Job,
// the makespan over all tenants.
TenantSummary cluster_of(const RunSummary& s) {
  TenantSummary c;
  c.tenant = kCompareClusterRow;
  std::size_t started = 0;
  for (const TenantSummary& t : s.tenants) {
    c.add_totals(t);
    started += t.queue_times_s.size();
  }
  c.average_queue_s = started ? c.total_queue_s / static_cast<double>(started) : 0;
  c.makespan_s = s.makespan_s;
  return c;
}

std::vector<double> values_of(const TenantSummary& t) {
  return {static_cast<double>(t.jobs),          static_cast<double>(t.completed), static_cast<double>(t.failed_pods),
          static_cast<double>(t.total_cores_milli) / 1000.0, t.total_queue_s, t.average_queue_s,
          t.total_run_s,                         t.total_queue_run_s,              t.makespan_s};
}

}  // namespace

std::vector<StatRow> contender_rows(const Comparison& cmp, std::size_t c) {
  std::vector<std::string> names = cmp.tenants;
  names.push_back(kCompareClusterRow);
  std::vector<StatRow> rows;
  for (const std::string& name : names) {
    const bool cluster = name == kCompareClusterRow;
    std::vector<std::vector<double>> per_col(kCompareColumns.size());
    for (std::uint64_t seed = 1; seed <= cmp.seeds; ++seed) {
      const RunSummary& s = cmp.run(c, seed).summary;
      const std::vector<double> v = values_of(cluster ? cluster_of(s) : tenant_of(s, name));
      for (std::size_t j = 0; j < v.size(); ++j) per_col[j].push_back(v[j]);
      per_col[compare_column::kUtilisation].push_back(s.utilisation);
    }
    StatRow row{name, {}};
    for (std::size_t j = 0; j < kCompareColumns.size(); ++j) {
      if (j == compare_column::kUtilisation && !cluster) {
        row.cols.emplace_back();
      } else {
        row.cols.emplace_back(seed_stat(per_col[j]));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<double> pooled_queue_times(const Comparison& cmp, std::size_t c) {
  std::vector<double> q;
  for (std::uint64_t seed = 1; seed <= cmp.seeds; ++seed)
    for (const TenantSummary& t : cmp.run(c, seed).summary.tenants)
      q.insert(q.end(), t.queue_times_s.begin(), t.queue_times_s.end());
  std::sort(q.begin(), q.end());
  return q;
}

SeedStat over_seeds(const Comparison& cmp, std::size_t c, double (*get)(const RunRecord&)) {
  std::vector<double> v;
  for (std::uint64_t seed = 1; seed <= cmp.seeds; ++seed) v.push_back(get(cmp.run(c, seed)));
  return seed_stat(v);
}

}  // namespace kubesim
