#include "study/compare_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "report/batsim_csv.hpp"
#include "report/html_page.hpp"
#include "report/human_format.hpp"
#include "report/measured_results.hpp"
#include "report/svg_chart.hpp"
#include "report/tenant_report.hpp"
#include "study/compare_distributions.hpp"

namespace kubesim {

namespace {

std::string decimal(double v) { return svg::num(v, 6); }

// The chart the headline shows.
constexpr const char* kWaitChart = "wait_quantiles.svg";

// A summary.csv column's name for people: "average_queue_time_s" -> "average queue time".
std::string column_title(std::size_t column) {
  std::string name = kCompareColumns[column];
  if (name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0) name.resize(name.size() - 2);
  std::replace(name.begin(), name.end(), '_', ' ');
  return name;
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
  // The label column fits the longest label (about 7 px a character at 12 px): none is cut.
  std::size_t longest = 0;
  for (const RangeRow& r : rows) longest = std::max(longest, r.label.size());
  f.left = std::max(200.0, 7.0 * static_cast<double>(longest) + 24);
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
    const std::string& label = r.label;
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

// Running cores per tenant, seed 1, one chart per scheduler on the same axes (returned in
// `x_max`, the time axis every cores chart shares).
void add_cores_charts(const Comparison& cmp, std::vector<ReportFile>& charts, double& x_max) {
  const std::size_t n = cmp.contenders.size();
  double y_top = static_cast<double>(cmp.capacity_milli) / 1000.0;
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
}

// A chart of this comparison: its id, title (after the comparison's), subtitle and axes.
svg::ChartSpec comparison_chart(const Comparison& cmp, std::string id, const std::string& title, std::string x_label,
                                std::string y_label) {
  svg::ChartSpec s;
  s.id = std::move(id);
  s.title = cmp.title + ": " + title;
  s.subtitle = subtitle_of(cmp);
  s.x_label = std::move(x_label);
  s.y_label = std::move(y_label);
  return s;
}

// Running cores, mean over seeds, per scheduler.
ReportFile mean_cores_chart(const Comparison& cmp, double x_max) {
  std::size_t len = 0;
  for (const RunRecord& r : cmp.runs) len = std::max(len, r.running_cores.size());
  svg::ChartSpec s = comparison_chart(cmp, "cores-running", "running cores, mean over seeds", "Run time (s)", "Cores");
  for (std::size_t i = 0; i < len; ++i) s.x.push_back(static_cast<double>(i) * cmp.interval.to_seconds());
  s.x_max = x_max;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
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
  if (cmp.capacity_milli > 0) s.ref_lines.push_back(capacity_line(cmp.capacity_milli));
  s.notes.push_back("A run contributes 0 after its end.");
  return {"cores_running.svg", svg::line_chart_svg(std::move(s))};
}

// One value per run (`get`, times `scale`): its min-max over seeds and mean per scheduler.
ReportFile per_run_chart(const Comparison& cmp, const std::string& id, const std::string& what,
                         const std::string& x_label, double scale, double (*get)(const RunRecord&)) {
  std::vector<RangeRow> rows;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    const SeedStat st = over_seeds(cmp, c, get);
    rows.push_back({cmp.contenders[c].label, svg::palette_color(c), st.min * scale, st.max * scale, false, 0, 0, 0,
                    st.mean * scale});
  }
  return ReportFile{id + ".svg", range_chart_svg(id, cmp.title + ": " + what, subtitle_of(cmp), x_label, rows,
                                                 {"Bar: min\u2013max over seeds.", "Dot: mean."})};
}

// Sorted values per scheduler against their quantile (0-100 %), one line per scheduler.
ReportFile quantile_lines_chart(const Comparison& cmp, const std::string& id, const std::string& what,
                                const std::string& y_label, const std::vector<std::vector<double>>& pooled) {
  svg::ChartSpec s = comparison_chart(cmp, id, what, "Quantile (%) of Jobs (all tenants and seeds)", y_label);
  for (int i = 0; i <= 100; ++i) s.x.push_back(i);
  s.x_max = 100;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    svg::Series line;
    line.label = cmp.contenders[c].label;
    line.color = svg::palette_color(c);
    for (int i = 0; i <= 100; ++i) line.y.push_back(quantile_sorted(pooled[c], i / 100.0));
    s.series.push_back(std::move(line));
  }
  std::string name = id;
  std::replace(name.begin(), name.end(), '-', '_');
  return {name + ".svg", svg::line_chart_svg(std::move(s))};
}

// Queue-time distributions of the Jobs pooled over tenants and seeds (`pooled`, sorted, per
// scheduler): box plots, then quantile lines.
void add_queue_time_charts(const Comparison& cmp, const std::vector<std::vector<double>>& pooled,
                           std::vector<ReportFile>& charts) {
  const std::size_t n = cmp.contenders.size();
  std::vector<RangeRow> rows;
  for (std::size_t c = 0; c < n; ++c) {
    const auto& q = pooled[c];
    double sum = 0;
    for (const double v : q) sum += v;
    rows.push_back({cmp.contenders[c].label, svg::palette_color(c), q.empty() ? 0 : q.front(), q.empty() ? 0 : q.back(),
                    true, quantile_sorted(q, 0.25), quantile_sorted(q, 0.75), quantile_sorted(q, 0.5),
                    q.empty() ? 0 : sum / static_cast<double>(q.size())});
  }
  charts.push_back({"queue_time_box.svg",
                    range_chart_svg("queue-time-box", cmp.title + ": queue time per Job", subtitle_of(cmp),
                                    "Queue time (s)", rows,
                                    {"Jobs of all tenants and seeds.", "Whiskers: min\u2013max.", "Box: p25\u2013p75.",
                                     "Line: median.", "Dot: mean."})});
  charts.push_back(quantile_lines_chart(cmp, "queue-time-quantiles", "queue time quantiles", "Queue time (s)", pooled));
}

// The waits of the jobs (jobs.csv), all seeds pooled, per scheduler.
std::vector<std::vector<double>> pooled_waits(const Comparison& cmp) {
  std::vector<std::vector<double>> out(cmp.contenders.size());
  for (const RunRecord& r : cmp.runs)
    for (const JobTime& t : r.job_times) out[r.contender].push_back(t.wait_s);
  for (auto& v : out) std::sort(v.begin(), v.end());
  return out;
}

std::vector<ReportFile> build_charts(const Comparison& cmp) {
  std::vector<ReportFile> charts;
  double x_max = 0;
  add_cores_charts(cmp, charts, x_max);
  charts.push_back(mean_cores_chart(cmp, x_max));
  charts.push_back(per_run_chart(cmp, "utilisation", "utilisation per scheduler", "Running cores / capacity (%)", 100.0,
                                 [](const RunRecord& r) { return r.summary.utilisation; }));
  charts.push_back(per_run_chart(cmp, "makespan", "makespan per scheduler", "Makespan (s)", 1.0,
                                 [](const RunRecord& r) { return r.summary.makespan_s; }));
  std::vector<std::vector<double>> pooled;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) pooled.push_back(pooled_queue_times(cmp, c));
  add_queue_time_charts(cmp, pooled, charts);
  charts.push_back(quantile_lines_chart(cmp, "wait-quantiles", "wait quantiles (jobs.csv)", "Wait (s)", pooled_waits(cmp)));
  return charts;
}
// A value of a compare column rounded for people (summary.csv keeps every digit).
std::string human_value(std::size_t column, double v) {
  if (column == compare_column::kUtilisation) return human::percent(v);
  const std::string& name = kCompareColumns[column];
  if (name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0) return human::duration(v);
  if (v == std::floor(v) && std::fabs(v) < 1e15) return human::count(static_cast<std::uint64_t>(std::fabs(v)));
  return human::sig3(v);
}

// Mean over seeds, and min-max when the seeds differ.
std::string cell(const SeedStat& s, std::size_t column) {
  if (s.min == s.max) return svg::escape(human_value(column, s.mean));
  return svg::escape(human_value(column, s.mean)) + "<br><small>" + svg::escape(human_value(column, s.min)) +
         "&#8211;" + svg::escape(human_value(column, s.max)) + "</small>";
}

}  // namespace

std::string compare_summary_csv(const Comparison& cmp) {
  std::string out = "scheduler,tenant,seeds";
  for (const auto& c : kCompareColumns) out += "," + c + "_mean," + c + "_min," + c + "_max";
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

namespace {

std::string esc(const std::string& s) { return svg::escape(s); }

std::string parameters_html(const Comparison& cmp) {
  std::string out = "<section id=\"parameters\"><h2>Parameters</h2>\n<table class=\"params\">\n";
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
  return out;
}

// Row r of every contender's rows (one tenant, or the cluster): metrics down, schedulers across.
std::string side_by_side_table(const Comparison& cmp, const std::vector<std::vector<StatRow>>& rows, std::size_t r) {
  const std::string& name = rows.front()[r].tenant;
  std::string out = "<h3>" + esc(name == kCompareClusterRow ? "All tenants (cluster)" : name) +
                    "</h3>\n<div class=\"table-wrap\">"
                    "<table class=\"side-by-side\" data-tenant=\"" + esc(name) + "\">\n<tr><th></th>";
  for (const Contender& c : cmp.contenders) out += "<th>" + esc(c.label) + "</th>";
  out += "</tr>\n";
  for (std::size_t j = 0; j < kCompareColumns.size(); ++j) {
    if (!rows.front()[r].cols[j]) continue;
    out += "<tr><td>" + esc(column_title(j)) + "</td>";
    for (const auto& cr : rows) out += "<td>" + cell(*cr[r].cols[j], j) + "</td>";
    out += "</tr>\n";
  }
  if (name == kCompareClusterRow) {
    out += "<tr><td>pods never scheduled</td>";
    for (std::size_t c = 0; c < cmp.contenders.size(); ++c)
      out += "<td>" + cell(over_seeds(cmp, c, [](const RunRecord& x) { return static_cast<double>(x.never_scheduled); }), compare_column::kCompleted) + "</td>";
    out += "</tr>\n<tr><td>scheduling attempts</td>";
    for (std::size_t c = 0; c < cmp.contenders.size(); ++c)
      out += "<td>" + cell(over_seeds(cmp, c, [](const RunRecord& x) { return static_cast<double>(x.scheduling_attempts); }), compare_column::kCompleted) + "</td>";
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  return out;
}

// queue_times.csv as a table, rounded for people.
std::string queue_times_table(const Comparison& cmp) {
  std::string out = "<h3>Queue time per Job (all tenants, all seeds)</h3>\n<div class=\"table-wrap\"><table "
                    "id=\"queue-times\">\n<tr><th>scheduler</th><th>jobs</th>";
  for (const char* h : {"mean", "min", "p25", "p50", "p75", "p90", "p99", "max"}) out += std::string("<th>") + h + "</th>";
  out += "</tr>\n";
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    const std::vector<double> q = pooled_queue_times(cmp, c);
    double sum = 0;
    for (const double v : q) sum += v;
    out += "<tr><td>" + esc(cmp.contenders[c].label) + "</td><td>" + human::count(q.size()) + "</td><td>" +
           human::duration(q.empty() ? 0 : sum / static_cast<double>(q.size())) + "</td>";
    for (const double p : {0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0})
      out += "<td>" + human::duration(quantile_sorted(q, p)) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

// The scenario's measured results beside each single-setup contender's figures.
std::string measured_html(const Comparison& cmp, const std::vector<std::vector<StatRow>>& rows) {
  std::vector<SimulatedTenantFigures> figures;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) {
    const Contender& k = cmp.contenders[c];
    if (k.setups.size() > 1) continue;  // several schedulers side by side: no real counterpart
    for (const StatRow& row : rows[c]) {
      if (row.tenant == kCompareClusterRow) continue;
      const SeedStat& q = *row.cols[compare_column::kAverageQueue];
      const SeedStat& m = *row.cols[compare_column::kMakespan];
      figures.push_back({k.setups.empty() ? "" : k.setups[0].setup, k.label, row.tenant, q.mean, q.min, q.max, m.mean,
                         m.min, m.max});
    }
  }
  return measured_results_section_html(cmp.measured, figures, cmp.seeds);
}

std::string charts_html(const std::vector<ReportFile>& charts, const ReportFile* lead) {
  std::string out = "<section id=\"charts\"><h2>Charts</h2>\n";
  for (const ReportFile& c : charts) {
    if (&c == lead) continue;
    out += "<figure class=\"chart\" id=\"fig-" + esc(c.name.substr(0, c.name.size() - 4)) + "\">\n";
    out += svg::strip_xml_declaration(c.content);
    out += "<figcaption>" + esc(c.name) + "</figcaption>\n</figure>\n";
  }
  out += "</section>\n";
  return out;
}

std::string files_html(const Comparison& cmp) {
  std::string out = "<section id=\"files\"><h2>Files</h2>\n<ul>\n";
  for (const char* f : {"summary.csv", "queue_times.csv"})
    out += std::string("<li><a href=\"") + f + "\">" + f + "</a></li>\n";
  for (const RunRecord& r : cmp.runs) {
    const std::string dir = cmp.contenders[r.contender].label + "/seed-" + std::to_string(r.seed) + "/";
    const bool has_report = std::any_of(r.files.begin(), r.files.end(), [](const ReportFile& f) { return f.name == "report.html"; });
    const std::string target = dir + (has_report ? "report.html" : "jobs.csv");
    out += "<li><a href=\"" + esc(target) + "\">" + esc(target) + "</a></li>\n";
  }
  out += "</ul>\n</section>\n";
  return out;
}

}  // namespace

std::string compare_html(const Comparison& cmp, const std::vector<ReportFile>& charts) {
  std::string out = html_report_head(cmp.title + ": scheduler comparison");
  // The headline: the answer and the decisive chart (the jobs' wait against its quantile).
  const ReportFile* lead = nullptr;
  for (const ReportFile& c : charts)
    if (c.name == kWaitChart) lead = &c;
  out += html_headline(compare_headline(cmp), lead ? std::string(svg::strip_xml_declaration(lead->content)) : "",
                       "Wait (jobs.csv: start \u2212 submission) of the jobs of all seeds against its quantile: the "
                       "right end is the tail (p99).");
  out += "<section id=\"verdict\"><h2>Verdict on the distributions</h2>\n" + distribution_table_html(cmp) +
         "<p><small>Each cell: the figure per seed, mean over seeds (and min&#8211;max when the seeds differ). Slowdown "
         "= (wait + run) / run; bounded slowdown = max(1, (wait + run) / max(run, 10 s)), Feitelson, Rudolph, "
         "Schwiegelshohn, Sevcik and Wong, &#8220;Theory and Practice in Parallel Job Scheduling&#8221;, JSSPP 1997. "
         "A gap is beyond the seed-to-seed spread when the two schedulers&#8217; ranges over seeds do not "
         "overlap.</small></p>\n<ul>\n";
  for (const std::string& s : distribution_verdict(cmp)) out += "<li>" + esc(s) + "</li>\n";
  out += "</ul>\n</section>\n";
  std::vector<std::vector<StatRow>> rows;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) rows.push_back(contender_rows(cmp, c));
  if (!cmp.measured.empty()) out += measured_html(cmp, rows);
  out += "<section id=\"differences\"><h2>What differed (means and totals)</h2>\n<ul>\n";
  for (const std::string& s : what_differed(cmp)) out += "<li>" + esc(s) + "</li>\n";
  out += "</ul>\n</section>\n";
  out += "<section id=\"tables\"><h2>Per-tenant tables</h2>\n<p>Each cell: mean over seeds, and min&#8211;max when "
         "the seeds differ. Queue time = container start &#8722; Job creation; makespan = last finish &#8722; first "
         "creation. Every digit is in summary.csv and queue_times.csv.</p>\n";
  for (std::size_t r = 0; r < rows.front().size(); ++r) out += side_by_side_table(cmp, rows, r);
  out += queue_times_table(cmp);
  out += "</section>\n";
  out += charts_html(charts, lead);
  out += parameters_html(cmp);
  out += files_html(cmp);
  out += "</body>\n</html>\n";
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
