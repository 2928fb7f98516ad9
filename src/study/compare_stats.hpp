// The statistics of a comparison (study/compare.hpp) over its seeds, shared by its report
// (compare_report.hpp) and its "what differed" statements (compare_differences.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "report/job_stats.hpp"
#include "study/compare.hpp"

namespace kubesim {

// Mean, min and max of one value over the seeds.
struct SeedStat {
  double mean = 0;
  double min = 0;
  double max = 0;
};
SeedStat seed_stat(const std::vector<double>& values);

// quantile_sorted: report/job_stats.hpp.

// The tenant name of the rows summed over the tenants.
inline constexpr const char* kCompareClusterRow = "(cluster)";
// The study's summary columns (report/tenant_report.hpp summary.csv), utilisation last.
extern const std::vector<std::string> kCompareColumns;
// Indexes into kCompareColumns.
namespace compare_column {
inline constexpr std::size_t kCompleted = 1;
inline constexpr std::size_t kFailedPods = 2;
inline constexpr std::size_t kAverageQueue = 5;
inline constexpr std::size_t kMakespan = 8;
inline constexpr std::size_t kUtilisation = 9;
}  // namespace compare_column

// One table row of one contender: the columns' statistics over seeds (utilisation only in
// the cluster row).
struct StatRow {
  std::string tenant;
  std::vector<std::optional<SeedStat>> cols;
};

// Contender `c`'s rows: one per tenant of the comparison, then the cluster row (sums over
// tenants, the mean queue time over every started Job, the makespan over all tenants).
std::vector<StatRow> contender_rows(const Comparison& cmp, std::size_t c);
// The queue times of contender `c`'s Jobs, all tenants and seeds, sorted.
std::vector<double> pooled_queue_times(const Comparison& cmp, std::size_t c);
// `get` of contender `c`'s runs over the seeds.
SeedStat over_seeds(const Comparison& cmp, std::size_t c, double (*get)(const RunRecord&));

}  // namespace kubesim
