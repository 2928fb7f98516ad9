#include "study/compare_distributions.hpp"

#include <cctype>
#include <cmath>

#include "report/human_format.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {

namespace {

using Metric = JobFigure::Metric;
using Stat = JobFigure::Stat;

const Quantiles& metric_of(const JobTimeQuantiles& q, Metric m) {
  switch (m) {
    case Metric::kWait: return q.wait_s;
    case Metric::kSlowdown: return q.slowdown;
    case Metric::kBoundedSlowdown: break;
  }
  return q.bounded_slowdown;
}

double stat_of(const Quantiles& q, Stat s) {
  switch (s) {
    case Stat::kMean: return q.mean;
    case Stat::kP50: return q.p50;
    case Stat::kP90: return q.p90;
    case Stat::kP99: break;
  }
  return q.p99;
}

// Whether two ranges over seeds are apart (a difference beyond the seed-to-seed spread).
bool apart(const SeedStat& a, const SeedStat& b) { return a.max < b.min || b.max < a.min; }

// The contenders with the lowest and the highest mean over seeds of `f`.
std::pair<std::size_t, std::size_t> extremes(const std::vector<SeedStat>& v) {
  std::size_t lo = 0, hi = 0;
  for (std::size_t c = 1; c < v.size(); ++c) {
    if (v[c].mean < v[lo].mean) lo = c;
    if (v[c].mean > v[hi].mean) hi = c;
  }
  return {lo, hi};
}

std::vector<SeedStat> per_contender(const Comparison& cmp, JobFigure f) {
  std::vector<SeedStat> v;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) v.push_back(job_figure_over_seeds(cmp, c, f));
  return v;
}

std::string spread_clause(const Comparison& cmp, const SeedStat& a, const SeedStat& b) {
  if (cmp.seeds < 2) return "one seed, so no seed-to-seed spread to compare with";
  return apart(a, b) ? "beyond the seed-to-seed spread (the ranges over " + std::to_string(cmp.seeds) +
                           " seeds do not overlap)"
                     : "within the seed-to-seed spread (the ranges over " + std::to_string(cmp.seeds) +
                           " seeds overlap)";
}

std::string ratio_text(double lo, double hi) {
  if (lo <= 0) return "";
  return ", " + human::sig3(hi / lo) + "\u00d7";
}

}  // namespace

std::string job_figure_name(JobFigure f) {
  static const char* const kStat[] = {"mean", "p50", "p90", "p99"};
  static const char* const kMetric[] = {"wait", "slowdown", "bounded slowdown"};
  return std::string(kStat[static_cast<int>(f.stat)]) + " " + kMetric[static_cast<int>(f.metric)];
}

double job_figure_of(const RunRecord& r, JobFigure f) {
  return stat_of(metric_of(job_time_quantiles(r.job_times), f.metric), f.stat);
}

SeedStat job_figure_over_seeds(const Comparison& cmp, std::size_t c, JobFigure f) {
  std::vector<double> v;
  for (std::uint64_t seed = 1; seed <= cmp.seeds; ++seed) v.push_back(job_figure_of(cmp.run(c, seed), f));
  return seed_stat(v);
}

std::string format_job_figure(JobFigure f, double v) {
  return f.metric == Metric::kWait ? human::duration(v) : human::sig3(v);
}

const std::vector<JobFigure>& verdict_figures() {
  static const std::vector<JobFigure> kFigures = {
      {Metric::kWait, Stat::kMean},           {Metric::kWait, Stat::kP50},
      {Metric::kWait, Stat::kP90},            {Metric::kWait, Stat::kP99},
      {Metric::kSlowdown, Stat::kMean},       {Metric::kSlowdown, Stat::kP99},
      {Metric::kBoundedSlowdown, Stat::kMean}, {Metric::kBoundedSlowdown, Stat::kP50},
      {Metric::kBoundedSlowdown, Stat::kP99}};
  return kFigures;
}

std::vector<std::string> distribution_verdict(const Comparison& cmp) {
  std::vector<std::string> out;
  if (cmp.contenders.size() < 2) return out;
  for (const JobFigure f : verdict_figures()) {
    const std::vector<SeedStat> v = per_contender(cmp, f);
    const auto [lo, hi] = extremes(v);
    std::string name = job_figure_name(f);
    name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    if (v[lo].mean == v[hi].mean) {
      out.push_back(name + ": the same with every scheduler (" + format_job_figure(f, v[lo].mean) + ").");
      continue;
    }
    out.push_back(name + ": lowest with " + cmp.contenders[lo].label + " (" + format_job_figure(f, v[lo].mean) +
                  "), highest with " + cmp.contenders[hi].label + " (" + format_job_figure(f, v[hi].mean) +
                  ratio_text(v[lo].mean, v[hi].mean) + "); " + spread_clause(cmp, v[lo], v[hi]) + ".");
  }
  return out;
}

std::string compare_headline(const Comparison& cmp) {
  const JobFigure p99{Metric::kWait, Stat::kP99};
  const JobFigure bsld{Metric::kBoundedSlowdown, Stat::kMean};
  const std::string over = cmp.seeds > 1 ? " (means over " + std::to_string(cmp.seeds) + " seeds)" : "";
  if (cmp.contenders.size() < 2) {
    const SeedStat w = job_figure_over_seeds(cmp, 0, p99);
    return "Only one scheduler, " + cmp.contenders[0].label + ": p99 wait " + format_job_figure(p99, w.mean) +
           ", mean bounded slowdown " + format_job_figure(bsld, job_figure_over_seeds(cmp, 0, bsld).mean) + over +
           "; give several to --schedulers to compare.";
  }
  const std::vector<SeedStat> w = per_contender(cmp, p99);
  const std::vector<SeedStat> b = per_contender(cmp, bsld);
  const auto [lo, hi] = extremes(w);
  if (w[lo].mean == w[hi].mean)
    return "Every scheduler gave the same p99 wait, " + format_job_figure(p99, w[lo].mean) + over +
           "; mean bounded slowdown from " + format_job_figure(bsld, b[extremes(b).first].mean) + " to " +
           format_job_figure(bsld, b[extremes(b).second].mean) + ".";
  return cmp.contenders[lo].label + " kept the tail shortest: p99 wait " + format_job_figure(p99, w[lo].mean) +
         " against " + format_job_figure(p99, w[hi].mean) + " with " + cmp.contenders[hi].label +
         ", mean bounded slowdown " + format_job_figure(bsld, b[lo].mean) + " against " +
         format_job_figure(bsld, b[hi].mean) + over + "; the p99 gap is " + spread_clause(cmp, w[lo], w[hi]) + ".";
}

std::string distribution_table_html(const Comparison& cmp) {
  std::string out = "<div class=\"table-wrap\"><table id=\"job-figures\">\n<tr><th>scheduler</th><th>jobs started (seed 1)</th>";
  for (const JobFigure f : verdict_figures()) out += "<th>" + svg::escape(job_figure_name(f)) + "</th>";
  out += "</tr>\n";
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    out += "<tr><td>" + svg::escape(cmp.contenders[c].label) + "</td><td>" +
           human::count(cmp.run(c, 1).job_times.size()) + "</td>";
    for (const JobFigure f : verdict_figures()) {
      const SeedStat s = job_figure_over_seeds(cmp, c, f);
      out += "<td>" + svg::escape(format_job_figure(f, s.mean));
      if (s.min != s.max)
        out += "<br><small>" + svg::escape(format_job_figure(f, s.min)) + "&#8211;" +
               svg::escape(format_job_figure(f, s.max)) + "</small>";
      out += "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

}  // namespace kubesim
