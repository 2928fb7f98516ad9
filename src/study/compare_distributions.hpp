// compare's verdict on distributions, not only means: per scheduler, the wait (jobs.csv: start
// - submission), slowdown and bounded slowdown of its jobs (report/job_stats.hpp: Feitelson et
// al.'s definition, tau = 10 s), each as mean, p50, p90 and p99. Every figure is computed per
// seed, then summarised over the seeds (mean, min-max), so that a difference between two
// schedulers can be set against the seed-to-seed spread: it exceeds the spread when the two
// ranges over seeds do not overlap (with one seed there is no spread to compare with, and the
// verdict says so).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "study/compare.hpp"
#include "study/compare_stats.hpp"

namespace kubesim {

// One figure of the jobs' distributions: which metric, which statistic.
struct JobFigure {
  enum class Metric { kWait, kSlowdown, kBoundedSlowdown };
  enum class Stat { kMean, kP50, kP90, kP99 };
  Metric metric;
  Stat stat;
};
// "p99 wait", "mean bounded slowdown", ...
std::string job_figure_name(JobFigure f);
// The figure of one run's jobs.
double job_figure_of(const RunRecord& r, JobFigure f);
// The figure per seed of contender `c`, summarised over the seeds.
SeedStat job_figure_over_seeds(const Comparison& cmp, std::size_t c, JobFigure f);
// A value of that figure rounded for people ("19 min", "1.42").
std::string format_job_figure(JobFigure f, double v);

// The figures the verdict and the table show, in order.
const std::vector<JobFigure>& verdict_figures();

// One statement per figure of verdict_figures(): lowest and highest scheduler, their values,
// the ratio, and whether the gap exceeds the seed-to-seed spread. Empty with one scheduler.
std::vector<std::string> distribution_verdict(const Comparison& cmp);
// compare.html's answering sentence (the headline): which scheduler waited least at p99 and
// by how much, with the mean bounded slowdown, and whether beyond the seed-to-seed spread.
std::string compare_headline(const Comparison& cmp);
// compare.html's table of the figures: a row per scheduler.
std::string distribution_table_html(const Comparison& cmp);

}  // namespace kubesim
