#include "study/compare_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "report/batsim_csv.hpp"
#include "report/html_page.hpp"
#include "report/measured_results.hpp"
#include "report/svg_chart.hpp"
#include "report/tenant_report.hpp"

namespace kubesim {

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

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

namespace {

constexpr const char* kClusterRow = "(cluster)";
// The study's summary columns (report/tenant_report.hpp summary.csv), utilisation last.
const std::vector<std::string> kColumns = {"jobs",
                                           "completed",
                                           "failed_pods",
                                           "total_cores",
                                           "total_queue_time_s",
                                           "average_queue_time_s",
                                           "total_run_time_s",
                                           "total_queue_run_time_s",
                                           "makespan_s",
                                           "utilisation"};
constexpr std::size_t kUtilisation = 9;
constexpr std::size_t kAverageQueue = 5;
constexpr std::size_t kMakespan = 8;
constexpr std::size_t kCompleted = 1;
constexpr std::size_t kFailedPods = 2;

std::string decimal(double v) { return svg::num(v, 6); }

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
  c.tenant = kClusterRow;
  std::size_t started = 0;
  for (const TenantSummary& t : s.tenants) {
    c.jobs += t.jobs;
    c.completed += t.completed;
    c.failed_pods += t.failed_pods;
    c.total_cores_milli += t.total_cores_milli;
    c.total_queue_s += t.total_queue_s;
    c.total_run_s += t.total_run_s;
    c.total_queue_run_s += t.total_queue_run_s;
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

// One table row of one contender: the columns' statistics over seeds (utilisation only in
// the cluster row).
struct StatRow {
  std::string tenant;
  std::vector<std::optional<SeedStat>> cols;
};

std::vector<StatRow> contender_rows(const Comparison& cmp, std::size_t c) {
  std::vector<std::string> names = cmp.tenants;
  names.push_back(kClusterRow);
  std::vector<StatRow> rows;
  for (const std::string& name : names) {
    const bool cluster = name == kClusterRow;
    std::vector<std::vector<double>> per_col(kColumns.size());
    for (std::uint64_t seed = 1; seed <= cmp.seeds; ++seed) {
      const RunSummary& s = cmp.run(c, seed).summary;
      const std::vector<double> v = values_of(cluster ? cluster_of(s) : tenant_of(s, name));
      for (std::size_t j = 0; j < v.size(); ++j) per_col[j].push_back(v[j]);
      per_col[kUtilisation].push_back(s.utilisation);
    }
    StatRow row{name, {}};
    for (std::size_t j = 0; j < kColumns.size(); ++j) {
      if (j == kUtilisation && !cluster) {
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

// ---- what differed ----

struct Contest {
  std::string what;
  std::string unit;  // appended to numbers: " s", "%", ""
  bool lower_is_better = true;
  bool only_if_different = false;
  std::vector<SeedStat> stats;  // per contender
};

std::string with_unit(double v, const std::string& unit) { return svg::num(v, unit == " s" || unit == "%" ? 1 : 2) + unit; }

std::string describe(const Comparison& cmp, const SeedStat& s, const std::string& unit) {
  std::string out = "mean " + with_unit(s.mean, unit);
  if (cmp.seeds > 1) out += ", " + with_unit(s.min, unit) + "\u2013" + with_unit(s.max, unit) + " over " +
                            std::to_string(cmp.seeds) + " seeds";
  return out;
}

std::string names_of(const Comparison& cmp, const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (i > 0) out += i + 1 == idx.size() ? " and " : ", ";
    out += cmp.contenders[idx[i]].label;
  }
  return out;
}

std::optional<std::string> statement(const Comparison& cmp, const Contest& k) {
  const auto better = [&](double a, double b) { return k.lower_is_better ? a < b : a > b; };
  std::size_t best = 0, worst = 0;
  for (std::size_t c = 1; c < k.stats.size(); ++c) {
    if (better(k.stats[c].mean, k.stats[best].mean)) best = c;
    if (better(k.stats[worst].mean, k.stats[c].mean)) worst = c;
  }
  const double b = k.stats[best].mean, w = k.stats[worst].mean;
  if (b == w) {
    if (k.only_if_different) return std::nullopt;
    return k.what + ": the same with every scheduler (" + describe(cmp, k.stats[best], k.unit) + ").";
  }
  std::vector<std::size_t> bests, worsts;
  for (std::size_t c = 0; c < k.stats.size(); ++c) {
    if (k.stats[c].mean == b) bests.push_back(c);
    if (k.stats[c].mean == w) worsts.push_back(c);
  }
  const char* best_word = k.lower_is_better ? "lowest" : "highest";
  const char* worst_word = k.lower_is_better ? "highest" : "lowest";
  std::string out = k.what + ": " + best_word + " with " + names_of(cmp, bests) + " (" +
                    describe(cmp, k.stats[best], k.unit) + "), " + worst_word + " with " + names_of(cmp, worsts) +
                    " (" + describe(cmp, k.stats[worst], k.unit) + "); difference " + with_unit(std::fabs(w - b), k.unit);
  if (b != 0 && k.unit != "%") out += " (" + svg::num(100.0 * std::fabs(w - b) / std::fabs(b), 1) + "%)";
  if (cmp.seeds < 2) {
    out += "; one seed, so no seed-to-seed spread to compare with.";
  } else {
    const SeedStat& sb = k.stats[best];
    const SeedStat& sw = k.stats[worst];
    const bool disjoint = sb.max < sw.min || sw.max < sb.min;
    out += disjoint ? "; beyond the seed-to-seed spread (the ranges over seeds do not overlap)."
                    : "; within the seed-to-seed spread (the ranges over seeds overlap).";
  }
  return out;
}

std::vector<Contest> contests(const Comparison& cmp) {
  std::vector<Contest> out;
  std::vector<std::vector<StatRow>> rows;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) rows.push_back(contender_rows(cmp, c));
  const std::size_t cluster = cmp.tenants.size();
  const auto column = [&](std::size_t row, std::size_t col, double scale = 1.0) {
    std::vector<SeedStat> v;
    for (const auto& r : rows) {
      SeedStat s = *r[row].cols[col];
      s.mean *= scale;
      s.min *= scale;
      s.max *= scale;
      v.push_back(s);
    }
    return v;
  };
  out.push_back({"Makespan (all tenants)", " s", true, false, column(cluster, kMakespan)});
  out.push_back({"Utilisation", "%", false, false, column(cluster, kUtilisation, 100.0)});
  out.push_back({"Mean queue time (all tenants)", " s", true, false, column(cluster, kAverageQueue)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Mean queue time of " + cmp.tenants[t], " s", true, false, column(t, kAverageQueue)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Makespan of " + cmp.tenants[t], " s", true, true, column(t, kMakespan)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Completed Jobs of " + cmp.tenants[t], "", false, true, column(t, kCompleted)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Failed pods (preempted, evicted, ...) of " + cmp.tenants[t], "", true, true, column(t, kFailedPods)});
  Contest never{"Pods never scheduled", "", true, true, {}};
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c)
    never.stats.push_back(over_seeds(cmp, c, [](const RunRecord& r) { return static_cast<double>(r.never_scheduled); }));
  out.push_back(std::move(never));
  return out;
}

// ---- charts ----

// A row per scheduler: a min-max range (whiskers) with an optional p25-p75 box and median,
// and the mean as a dot. Built on the shared chart frame (report/svg_chart.hpp).
struct RangeRow {
  std::string label;
  std::string color;
  double lo = 0, hi = 0;
  bool box = false;
  double box_lo = 0, box_hi = 0, median = 0;
  double mean = 0;
};

std::string range_chart_svg(const std::string& id, const std::string& title, const std::string& subtitle,
                            const std::string& x_label, const std::vector<RangeRow>& rows,
                            const std::vector<std::string>& notes) {
  constexpr double kRow = 34;
  svg::Frame f;
  f.left = 200;
  f.height = f.top + f.bottom + kRow * static_cast<double>(std::max<std::size_t>(rows.size(), 1));
  double lo = 0, hi = 0;
  for (const RangeRow& r : rows) {
    lo = std::min(lo, r.lo);
    hi = std::max(hi, r.hi);
  }
  f.x = svg::nice_axis(lo, hi);
  f.y = svg::Axis{0, static_cast<double>(std::max<std::size_t>(rows.size(), 1)), 1};
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg::open_svg(out, f, id, title);
  svg::draw_title(out, f, title, subtitle);
  svg::draw_plot_area(out, f, id, false);
  out += "<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (const double t : f.x.ticks())
    out += "<line x1=\"" + svg::num(f.px(t)) + "\" y1=\"" + svg::num(f.plot_top()) + "\" x2=\"" + svg::num(f.px(t)) +
           "\" y2=\"" + svg::num(f.plot_bottom()) + "\"/>\n";
  out += "</g>\n";
  svg::draw_x_axis(out, f, x_label);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RangeRow& r = rows[i];
    const double cy = f.plot_top() + (static_cast<double>(i) + 0.5) * kRow;
    const std::string y = svg::num(cy);
    const std::string c = svg::escape(r.color);
    std::string label = r.label.size() > 28 ? r.label.substr(0, 27) + "\u2026" : r.label;
    out += "<g class=\"range-row\" data-series=\"" + svg::escape(r.label) + "\" data-min=\"" + decimal(r.lo) +
           "\" data-max=\"" + decimal(r.hi) + "\" data-mean=\"" + decimal(r.mean) + "\">\n";
    out += "<text x=\"" + svg::num(f.plot_left() - 8) + "\" y=\"" + svg::num(cy + 4) + "\" text-anchor=\"end\">" +
           svg::escape(label) + "</text>\n";
    const std::string x0 = svg::num(f.px(r.lo)), x1 = svg::num(f.px(r.hi));
    out += "<line x1=\"" + x0 + "\" y1=\"" + y + "\" x2=\"" + x1 + "\" y2=\"" + y + "\" stroke=\"" + c +
           "\" stroke-width=\"" + (r.box ? "1.5" : "6") + "\" stroke-opacity=\"" + (r.box ? "1" : "0.45") + "\"/>\n";
    for (const std::string& x : {x0, x1})
      out += "<line x1=\"" + x + "\" y1=\"" + svg::num(cy - 7) + "\" x2=\"" + x + "\" y2=\"" + svg::num(cy + 7) +
             "\" stroke=\"" + c + "\" stroke-width=\"1.5\"/>\n";
    if (r.box) {
      out += "<rect class=\"box\" x=\"" + svg::num(f.px(r.box_lo)) + "\" y=\"" + svg::num(cy - 9) + "\" width=\"" +
             svg::num(std::max(1.0, f.px(r.box_hi) - f.px(r.box_lo))) + "\" height=\"18\" fill=\"" + c +
             "\" fill-opacity=\"0.3\" stroke=\"" + c + "\"/>\n";
      const std::string xm = svg::num(f.px(r.median));
      out += "<line class=\"median\" x1=\"" + xm + "\" y1=\"" + svg::num(cy - 9) + "\" x2=\"" + xm + "\" y2=\"" +
             svg::num(cy + 9) + "\" stroke=\"#222222\" stroke-width=\"2\"/>\n";
    }
    out += "<circle class=\"mean\" cx=\"" + svg::num(f.px(r.mean)) + "\" cy=\"" + y + "\" r=\"4.5\" fill=\"" + c +
           "\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n</g>\n";
  }
  svg::draw_legend(out, f, {}, notes);
  svg::close_svg(out);
  return out;
}

std::string subtitle_of(const Comparison& cmp) {
  return cmp.source + ", model " + cmp.model + ", seeds 1\u2013" + std::to_string(cmp.seeds);
}

std::vector<ReportFile> build_charts(const Comparison& cmp) {
  std::vector<ReportFile> charts;
  const std::size_t n = cmp.contenders.size();
  // Running cores per tenant, seed 1, one chart per scheduler on the same axes.
  double x_max = 0, y_top = static_cast<double>(cmp.capacity_milli) / 1000.0;
  for (std::size_t c = 0; c < n; ++c) {
    const svg::ChartSpec& s = cmp.run(c, 1).cores_chart;
    x_max = std::max({x_max, s.x_max, s.x.empty() ? 0.0 : s.x.back()});
    for (const double v : cmp.run(c, 1).running_cores) y_top = std::max(y_top, v);
  }
  for (std::size_t c = 0; c < n; ++c) {
    svg::ChartSpec s = cmp.run(c, 1).cores_chart;
    s.id = "cores-" + std::to_string(c + 1);
    s.x_max = x_max;
    s.y_min_top = y_top;
    charts.push_back({"cores_" + std::to_string(c + 1) + ".svg", svg::line_chart_svg(std::move(s))});
  }
  // Running cores, mean over seeds, per scheduler.
  {
    std::size_t len = 0;
    for (const RunRecord& r : cmp.runs) len = std::max(len, r.running_cores.size());
    svg::ChartSpec s;
    s.id = "cores-running";
    s.title = cmp.title + ": running cores, mean over seeds";
    s.subtitle = subtitle_of(cmp);
    s.x_label = "Run time (s)";
    s.y_label = "Cores";
    for (std::size_t i = 0; i < len; ++i) s.x.push_back(static_cast<double>(i) * cmp.interval.to_seconds());
    s.x_max = x_max;
    for (std::size_t c = 0; c < n; ++c) {
      svg::Series line;
      line.label = cmp.contenders[c].label;
      line.color = svg::palette_color(c);
      line.y.assign(len, 0.0);
      for (std::uint64_t seed = 1; seed <= cmp.seeds; ++seed) {
        const auto& v = cmp.run(c, seed).running_cores;
        for (std::size_t i = 0; i < v.size(); ++i) line.y[i] += v[i] / static_cast<double>(cmp.seeds);
      }
      s.series.push_back(std::move(line));
    }
    if (cmp.capacity_milli > 0) {
      svg::RefLine cap;
      cap.y = static_cast<double>(cmp.capacity_milli) / 1000.0;
      cap.label = "capacity " + format_cores(cmp.capacity_milli) + " cores";
      s.ref_lines.push_back(cap);
    }
    s.notes.push_back("A run contributes 0 after its end.");
    charts.push_back({"cores_running.svg", svg::line_chart_svg(std::move(s))});
  }
  const auto per_run = [&](const std::string& id, const std::string& what, const std::string& x_label, double scale,
                           double (*get)(const RunRecord&)) {
    std::vector<RangeRow> rows;
    for (std::size_t c = 0; c < n; ++c) {
      const SeedStat st = over_seeds(cmp, c, get);
      rows.push_back({cmp.contenders[c].label, svg::palette_color(c), st.min * scale, st.max * scale, false, 0, 0, 0,
                      st.mean * scale});
    }
    return ReportFile{id + ".svg", range_chart_svg(id, cmp.title + ": " + what, subtitle_of(cmp), x_label, rows,
                                                   {"Bar: min\u2013max over seeds.", "Dot: mean."})};
  };
  charts.push_back(per_run("utilisation", "utilisation per scheduler", "Running cores / capacity (%)", 100.0,
                           [](const RunRecord& r) { return r.summary.utilisation; }));
  charts.push_back(per_run("makespan", "makespan per scheduler", "Makespan (s)", 1.0,
                           [](const RunRecord& r) { return r.summary.makespan_s; }));
  // Queue-time distributions.
  std::vector<std::vector<double>> pooled;
  for (std::size_t c = 0; c < n; ++c) pooled.push_back(pooled_queue_times(cmp, c));
  {
    std::vector<RangeRow> rows;
    for (std::size_t c = 0; c < n; ++c) {
      const auto& q = pooled[c];
      double sum = 0;
      for (const double v : q) sum += v;
      rows.push_back({cmp.contenders[c].label, svg::palette_color(c), q.empty() ? 0 : q.front(),
                      q.empty() ? 0 : q.back(), true, quantile_sorted(q, 0.25), quantile_sorted(q, 0.75),
                      quantile_sorted(q, 0.5), q.empty() ? 0 : sum / static_cast<double>(q.size())});
    }
    charts.push_back({"queue_time_box.svg",
                      range_chart_svg("queue-time-box", cmp.title + ": queue time per Job", subtitle_of(cmp),
                                      "Queue time (s)", rows,
                                      {"Jobs of all tenants and seeds.", "Whiskers: min\u2013max.",
                                       "Box: p25\u2013p75.", "Line: median.", "Dot: mean."})});
  }
  {
    svg::ChartSpec s;
    s.id = "queue-time-quantiles";
    s.title = cmp.title + ": queue time quantiles";
    s.subtitle = subtitle_of(cmp);
    s.x_label = "Quantile (%) of Jobs (all tenants and seeds)";
    s.y_label = "Queue time (s)";
    for (int i = 0; i <= 100; ++i) s.x.push_back(i);
    s.x_max = 100;
    for (std::size_t c = 0; c < n; ++c) {
      svg::Series line;
      line.label = cmp.contenders[c].label;
      line.color = svg::palette_color(c);
      for (int i = 0; i <= 100; ++i) line.y.push_back(quantile_sorted(pooled[c], i / 100.0));
      s.series.push_back(std::move(line));
    }
    charts.push_back({"queue_time_quantiles.svg", svg::line_chart_svg(std::move(s))});
  }
  return charts;
}

std::string cell(const SeedStat& s) {
  if (s.min == s.max) return svg::escape(decimal(s.mean));
  return svg::escape(decimal(s.mean)) + "<br><small>" + svg::escape(decimal(s.min)) + "&#8211;" +
         svg::escape(decimal(s.max)) + "</small>";
}

}  // namespace

std::string compare_summary_csv(const Comparison& cmp) {
  std::string out = "scheduler,tenant,seeds";
  for (const auto& c : kColumns) out += "," + c + "_mean," + c + "_min," + c + "_max";
  out += "\n";
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    for (const StatRow& row : contender_rows(cmp, c)) {
      out += csv_field(cmp.contenders[c].label) + "," + csv_field(row.tenant) + "," + std::to_string(cmp.seeds);
      for (const auto& col : row.cols) {
        if (col) {
          out += "," + decimal(col->mean) + "," + decimal(col->min) + "," + decimal(col->max);
        } else {
          out += ",,,";
        }
      }
      out += "\n";
    }
  }
  return out;
}

std::string queue_times_csv(const Comparison& cmp) {
  std::string out = "scheduler,jobs,mean_s,min_s,p25_s,p50_s,p75_s,p90_s,p99_s,max_s\n";
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    const std::vector<double> q = pooled_queue_times(cmp, c);
    double sum = 0;
    for (const double v : q) sum += v;
    out += csv_field(cmp.contenders[c].label) + "," + std::to_string(q.size()) + "," +
           decimal(q.empty() ? 0 : sum / static_cast<double>(q.size())) + "," + decimal(quantile_sorted(q, 0));
    for (const double p : {0.25, 0.5, 0.75, 0.9, 0.99}) out += "," + decimal(quantile_sorted(q, p));
    out += "," + decimal(quantile_sorted(q, 1)) + "\n";
  }
  return out;
}

std::vector<std::string> what_differed(const Comparison& cmp) {
  if (cmp.contenders.size() < 2) return {"Only one scheduler: nothing to compare."};
  std::vector<std::string> out;
  for (const Contest& k : contests(cmp))
    if (auto s = statement(cmp, k)) out.push_back(std::move(*s));
  return out;
}

std::string compare_html(const Comparison& cmp, const std::vector<ReportFile>& charts) {
  const auto esc = [](const std::string& s) { return svg::escape(s); };
  const std::string title = cmp.title + ": scheduler comparison";
  std::string out = html_report_head(title);

  out += "<section id=\"parameters\"><h2>Parameters</h2>\n<table class=\"params\">\n";
  std::string tenants;
  for (const auto& t : cmp.tenants) tenants += (tenants.empty() ? "" : ", ") + t;
  std::vector<std::pair<std::string, std::string>> params = {
      {"source", cmp.source},
      {"model", cmp.model},
      {"seeds", "1\u2013" + std::to_string(cmp.seeds)},
      {"sample interval (s)", format_seconds_short(cmp.interval.micros())},
      {"capacity (cores)", format_cores(cmp.capacity_milli)},
      {"tenants", tenants}};
  for (const Contender& c : cmp.contenders) {
    std::string setups;
    for (const SetupChoice& s : c.setups) setups += (setups.empty() ? "" : "; ") + describe_setup(s);
    params.emplace_back("scheduler " + c.label, setups);
  }
  for (const auto& [k, v] : params) out += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
  out += "</table>\n</section>\n";

  out += "<section id=\"differences\"><h2>What differed</h2>\n<ul>\n";
  for (const std::string& s : what_differed(cmp)) out += "<li>" + esc(s) + "</li>\n";
  out += "</ul>\n</section>\n";

  // Side-by-side tables: one per tenant and the cluster, metrics down, schedulers across.
  std::vector<std::vector<StatRow>> rows;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) rows.push_back(contender_rows(cmp, c));
  out += "<section id=\"tables\"><h2>Per-tenant tables</h2>\n<p>Each cell: mean over seeds, and min&#8211;max when "
         "the seeds differ. Queue time = container start &#8722; Job creation; makespan = last finish &#8722; first "
         "creation.</p>\n";
  for (std::size_t r = 0; r < rows.front().size(); ++r) {
    const std::string& name = rows.front()[r].tenant;
    out += "<h3>" + esc(name == kClusterRow ? "All tenants (cluster)" : name) + "</h3>\n<div class=\"table-wrap\">"
           "<table class=\"side-by-side\" data-tenant=\"" + esc(name) + "\">\n<tr><th></th>";
    for (const Contender& c : cmp.contenders) out += "<th>" + esc(c.label) + "</th>";
    out += "</tr>\n";
    for (std::size_t j = 0; j < kColumns.size(); ++j) {
      if (!rows.front()[r].cols[j]) continue;
      out += "<tr><td>" + esc(kColumns[j]) + "</td>";
      for (const auto& cr : rows) out += "<td>" + cell(*cr[r].cols[j]) + "</td>";
      out += "</tr>\n";
    }
    if (name == kClusterRow) {
      out += "<tr><td>pods never scheduled</td>";
      for (std::size_t c = 0; c < cmp.contenders.size(); ++c)
        out += "<td>" + cell(over_seeds(cmp, c, [](const RunRecord& x) { return static_cast<double>(x.never_scheduled); })) + "</td>";
      out += "</tr>\n<tr><td>scheduling attempts</td>";
      for (std::size_t c = 0; c < cmp.contenders.size(); ++c)
        out += "<td>" + cell(over_seeds(cmp, c, [](const RunRecord& x) { return static_cast<double>(x.scheduling_attempts); })) + "</td>";
      out += "</tr>\n";
    }
    out += "</table></div>\n";
  }
  out += "<h3>Queue time per Job (all tenants, all seeds)</h3>\n<div class=\"table-wrap\"><table id=\"queue-times\">\n";
  const std::string q = queue_times_csv(cmp);
  bool header = true;
  for (std::size_t pos = 0; pos < q.size();) {
    const std::size_t nl = q.find('\n', pos);
    const std::string line = q.substr(pos, nl - pos);
    pos = nl + 1;
    out += "<tr>";
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(',', start);
      const std::string field = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      out += (header ? "<th>" : "<td>") + esc(field) + (header ? "</th>" : "</td>");
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    out += "</tr>\n";
    header = false;
  }
  out += "</table></div>\n</section>\n";

  if (!cmp.measured.empty()) {
    std::vector<SimulatedTenantFigures> figures;
    for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
      const Contender& k = cmp.contenders[c];
      if (k.setups.size() > 1) continue;  // several schedulers side by side: no real counterpart
      for (const StatRow& row : rows[c]) {
        if (row.tenant == kClusterRow) continue;
        const SeedStat& q = *row.cols[kAverageQueue];
        const SeedStat& m = *row.cols[kMakespan];
        figures.push_back({k.setups.empty() ? "" : k.setups[0].setup, k.label, row.tenant, q.mean, q.min, q.max, m.mean,
                           m.min, m.max});
      }
    }
    out += measured_results_section_html(cmp.measured, figures, cmp.seeds);
  }
  out += "<section id=\"charts\"><h2>Charts</h2>\n";
  for (const ReportFile& c : charts) {
    out += "<figure class=\"chart\" id=\"fig-" + esc(c.name.substr(0, c.name.size() - 4)) + "\">\n";
    out += svg::strip_xml_declaration(c.content);
    out += "<figcaption>" + esc(c.name) + "</figcaption>\n</figure>\n";
  }
  out += "</section>\n";

  out += "<section id=\"files\"><h2>Files</h2>\n<ul>\n";
  for (const char* f : {"summary.csv", "queue_times.csv"})
    out += std::string("<li><a href=\"") + f + "\">" + f + "</a></li>\n";
  for (const RunRecord& r : cmp.runs) {
    const std::string dir = cmp.contenders[r.contender].label + "/seed-" + std::to_string(r.seed) + "/";
    const bool has_report = std::any_of(r.files.begin(), r.files.end(), [](const ReportFile& f) { return f.name == "report.html"; });
    const std::string target = dir + (has_report ? "report.html" : "jobs.csv");
    out += "<li><a href=\"" + esc(target) + "\">" + esc(target) + "</a></li>\n";
  }
  out += "</ul>\n</section>\n</body>\n</html>\n";
  return out;
}

std::vector<ReportFile> build_comparison_files(const Comparison& cmp) {
  std::vector<ReportFile> files;
  for (const RunRecord& r : cmp.runs)
    for (const ReportFile& f : r.files)
      files.push_back({cmp.contenders[r.contender].label + "/seed-" + std::to_string(r.seed) + "/" + f.name, f.content});
  files.push_back({"summary.csv", compare_summary_csv(cmp)});
  files.push_back({"queue_times.csv", queue_times_csv(cmp)});
  std::vector<ReportFile> charts = build_charts(cmp);
  std::string html = compare_html(cmp, charts);
  for (auto& c : charts) files.push_back(std::move(c));
  files.push_back({"compare.html", std::move(html)});
  return files;
}

}  // namespace kubesim
