#include "report/tenant_report.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/atomic_file.hpp"
#include "report/batsim_csv.hpp"
#include "report/gantt_chart.hpp"
#include "report/html_page.hpp"
#include "report/human_format.hpp"
#include "report/job_stats.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {

namespace {

constexpr const char* kTimeseriesHeader =
    "time_s,tenant,pending_cores,running_cores,completed_cores,preempted_cores";
constexpr const char* kQueueHeader = "time_s,pending_pods,running_cores,capacity_cores,utilisation";
constexpr const char* kClusterRow = "(cluster)";
const std::vector<std::string> kSummaryColumns = {
    "tenant",           "jobs",
    "completed",        "failed_pods",
    "total_cores",      "total_queue_time_s",
    "average_queue_time_s", "total_run_time_s",
    "total_queue_run_time_s", "makespan_s",
    "utilisation"};

void validate(const TenantReportInput& in) {
  const TenantTimeSeries& s = in.series;
  if (s.samples.size() != s.times.size() * s.tenants.size())
    throw std::invalid_argument("tenant time series: " + std::to_string(s.samples.size()) + " samples for " +
                                std::to_string(s.times.size()) + " times x " + std::to_string(s.tenants.size()) +
                                " tenants");
  if (!s.pending_pods.empty() && s.pending_pods.size() != s.times.size())
    throw std::invalid_argument("tenant time series: " + std::to_string(s.pending_pods.size()) +
                                " pending_pods values for " + std::to_string(s.times.size()) + " times");
}

std::string decimal(double v) { return svg::num(v, 6); }

std::int64_t running_total(const TenantTimeSeries& s, std::size_t t) {
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < s.tenants.size(); ++k) sum += s.at(t, k).running;
  return sum;
}


std::vector<double> sample_seconds(const TenantTimeSeries& s) {
  std::vector<double> x;
  x.reserve(s.times.size());
  for (const SimTime t : s.times) x.push_back(t.to_seconds());
  return x;
}


// A chart over the sample times with the run's common settings.
svg::ChartSpec base_chart(const TenantReportInput& in, std::string id, const std::string& what) {
  svg::ChartSpec spec;
  spec.id = std::move(id);
  spec.title = in.title.empty() ? what : in.title + ": " + what;
  spec.subtitle = tenant_report_subtitle(in);
  spec.x_label = "Run time (s)";
  spec.x = sample_seconds(in.series);
  spec.x_max = tenant_report_end_seconds(in);
  return spec;
}

using TenantValue = std::int64_t TenantSample::*;

// One series per tenant of the chosen field, in cores.
svg::Series tenant_series(const TenantTimeSeries& s, std::size_t k, TenantValue field, svg::Series::Style style,
                          std::string label, std::string dash = "") {
  svg::Series out;
  out.label = std::move(label);
  out.color = svg::palette_color(k);
  out.style = style;
  out.dash = std::move(dash);
  out.y.reserve(s.times.size());
  for (std::size_t t = 0; t < s.times.size(); ++t) out.y.push_back(static_cast<double>(s.at(t, k).*field) / 1000.0);
  return out;
}

// The summary table's cells (header excluded): one row per tenant, then the cluster row.
std::vector<std::string> tenant_row(const TenantSummary& t, std::string utilisation) {
  return {t.tenant, std::to_string(t.jobs), std::to_string(t.completed), std::to_string(t.failed_pods),
          format_cores(t.total_cores_milli), decimal(t.total_queue_s), decimal(t.average_queue_s),
          decimal(t.total_run_s), decimal(t.total_queue_run_s), decimal(t.makespan_s), std::move(utilisation)};
}

std::string summary_csv(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (std::size_t i = 0; i < kSummaryColumns.size(); ++i) {
    if (i) out += ',';
    out += kSummaryColumns[i];
  }
  out += '\n';
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      out += csv_field(row[i]);
    }
    out += '\n';
  }
  return out;
}

std::vector<std::vector<std::string>> summary_rows(const TenantReportInput& in) {
  std::vector<std::vector<std::string>> rows;
  TenantSummary cluster;
  for (const TenantSummary& t : in.summary.tenants) {
    rows.push_back(tenant_row(t, ""));
    cluster.add_totals(t);
  }
  rows.push_back({kClusterRow, std::to_string(cluster.jobs), std::to_string(cluster.completed),
                  std::to_string(cluster.failed_pods), format_cores(cluster.total_cores_milli),
                  decimal(cluster.total_queue_s), "", decimal(cluster.total_run_s), decimal(cluster.total_queue_run_s),
                  "", decimal(in.summary.utilisation)});
  return rows;
}

}  // namespace

double tenant_report_end_seconds(const TenantReportInput& in) {
  double end = in.summary.end.is_never() ? 0 : in.summary.end.to_seconds();
  if (!in.series.times.empty()) end = std::max(end, in.series.times.back().to_seconds());
  return end;
}

std::string tenant_report_subtitle(const TenantReportInput& in) {
  std::string sub;
  if (!in.scenario.empty()) sub += "scenario " + in.scenario + ", ";
  if (!in.model.empty()) sub += "model " + in.model + ", ";
  sub += "seed " + std::to_string(in.seed);
  return sub;
}

svg::RefLine capacity_line(std::int64_t capacity_milli) {
  svg::RefLine cap;
  cap.y = static_cast<double>(capacity_milli) / 1000.0;
  cap.label = "capacity " + format_cores(capacity_milli) + " cores";
  return cap;
}

std::string format_cores(std::int64_t millicores) {
  const bool negative = millicores < 0;
  const std::uint64_t m = negative ? 0 - static_cast<std::uint64_t>(millicores) : static_cast<std::uint64_t>(millicores);
  std::string out = (negative ? "-" : "") + std::to_string(m / 1000);
  std::uint64_t frac = m % 1000;
  if (frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%03" PRIu64, frac);
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += '.' + f;
  }
  return out;
}

std::string format_seconds_short(std::int64_t micros) {
  std::string s = format_seconds(micros);  // "%.6f", exact
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string tenant_timeseries_csv(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  std::vector<std::string> names;
  for (const auto& t : s.tenants) names.push_back(csv_field(t));
  std::string out;
  out.reserve(64 + s.samples.size() * 40);
  out += kTimeseriesHeader;
  out += '\n';
  for (std::size_t t = 0; t < s.times.size(); ++t) {
    const std::string time = format_seconds_short(s.times[t].micros());
    for (std::size_t k = 0; k < s.tenants.size(); ++k) {
      const TenantSample& v = s.at(t, k);
      out += time;
      out += ',';
      out += names[k];
      out += ',';
      out += format_cores(v.pending);
      out += ',';
      out += format_cores(v.running);
      out += ',';
      out += format_cores(v.completed);
      out += ',';
      out += format_cores(v.preempted);
      out += '\n';
    }
  }
  return out;
}

std::string tenant_queue_csv(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  const std::string capacity = format_cores(s.capacity_milli);
  std::string out;
  out.reserve(64 + s.times.size() * 40);
  out += kQueueHeader;
  out += '\n';
  for (std::size_t t = 0; t < s.times.size(); ++t) {
    const std::int64_t running = running_total(s, t);
    out += format_seconds_short(s.times[t].micros());
    out += ',';
    if (!s.pending_pods.empty()) out += std::to_string(s.pending_pods[t]);
    out += ',';
    out += format_cores(running);
    out += ',';
    out += capacity;
    out += ',';
    if (s.capacity_milli > 0) out += decimal(static_cast<double>(running) / static_cast<double>(s.capacity_milli));
    out += '\n';
  }
  return out;
}

std::string tenant_summary_csv(const TenantReportInput& in) { return summary_csv(summary_rows(in)); }

std::string tenants_alone_summary_csv(const std::vector<std::pair<TenantSummary, double>>& runs) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [tenant, utilisation] : runs) rows.push_back(tenant_row(tenant, decimal(utilisation)));
  return summary_csv(rows);
}

std::string cores_running_svg(const TenantReportInput& in) { return svg::line_chart_svg(cores_running_chart(in)); }

svg::ChartSpec cores_running_chart(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  svg::ChartSpec spec = base_chart(in, "cores-running", "running cores per tenant");
  spec.y_label = "Cores";
  for (std::size_t k = 0; k < s.tenants.size(); ++k)
    spec.series.push_back(tenant_series(s, k, &TenantSample::running, svg::Series::Style::kStackedArea, s.tenants[k]));
  if (s.capacity_milli > 0) spec.ref_lines.push_back(capacity_line(s.capacity_milli));
  spec.notes.push_back("Tenants stacked in legend order.");
  return spec;
}

std::string cores_pending_svg(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  svg::ChartSpec spec = base_chart(in, "cores-pending", "pending and preempted cores per tenant");
  spec.y_label = "Cores";
  for (std::size_t k = 0; k < s.tenants.size(); ++k)
    spec.series.push_back(
        tenant_series(s, k, &TenantSample::pending, svg::Series::Style::kLine, s.tenants[k] + " pending"));
  for (std::size_t k = 0; k < s.tenants.size(); ++k) {
    bool any = false;
    for (std::size_t t = 0; t < s.times.size() && !any; ++t) any = s.at(t, k).preempted != 0;
    if (any)
      spec.series.push_back(tenant_series(s, k, &TenantSample::preempted, svg::Series::Style::kLine,
                                          s.tenants[k] + " preempted", "7 4"));
  }
  spec.notes.push_back("Pending: Jobs not running and not finished (incl. quota-rejected). Preempted (dashed): "
                       "Jobs with a failed pod, not running again, not completed.");
  return svg::line_chart_svg(std::move(spec));
}

std::string cores_completed_svg(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  svg::ChartSpec spec = base_chart(in, "cores-completed", "completed cores per tenant");
  spec.y_label = "Cores";
  for (std::size_t k = 0; k < s.tenants.size(); ++k)
    spec.series.push_back(tenant_series(s, k, &TenantSample::completed, svg::Series::Style::kLine, s.tenants[k]));
  return svg::line_chart_svg(std::move(spec));
}

std::string utilisation_svg(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  svg::ChartSpec spec = base_chart(in, "utilisation", "cluster utilisation");
  spec.y_label = "Running cores / capacity";
  spec.y_suffix = "%";
  spec.y_min_top = 100;
  if (s.capacity_milli > 0) {
    svg::Series u;
    u.label = "utilisation";
    u.color = svg::palette_color(0);
    u.y.reserve(s.times.size());
    for (std::size_t t = 0; t < s.times.size(); ++t)
      u.y.push_back(100.0 * static_cast<double>(running_total(s, t)) / static_cast<double>(s.capacity_milli));
    spec.series.push_back(std::move(u));
    spec.notes.push_back("Capacity " + format_cores(s.capacity_milli) + " cores.");
  } else {
    spec.notes.push_back("Capacity unknown (0): no utilisation curve.");
  }
  svg::RefLine mean;
  mean.y = 100.0 * in.summary.utilisation;
  mean.label = "mean " + svg::num(100.0 * in.summary.utilisation, 1) + "%";
  mean.color = "#d62728";
  spec.ref_lines.push_back(mean);
  return svg::line_chart_svg(std::move(spec));
}

std::string queue_svg(const TenantReportInput& in) {
  validate(in);
  const TenantTimeSeries& s = in.series;
  svg::ChartSpec spec = base_chart(in, "queue", "pending pods");
  spec.y_label = "Pods";
  if (!s.pending_pods.empty()) {
    svg::Series q;
    q.label = "pending pods";
    q.color = svg::palette_color(4);
    q.y.reserve(s.pending_pods.size());
    bool any = false;
    for (const std::int64_t v : s.pending_pods) {
      q.y.push_back(static_cast<double>(v));
      any = any || v != 0;
    }
    spec.series.push_back(std::move(q));
    // An empty chart says why.
    if (!any)
      spec.notes.push_back("No pod was pending at any sample: each was bound within the sample interval (" +
                           format_seconds_short(s.interval.micros()) + " s).");
  } else {
    spec.notes.push_back("No pending-pod samples.");
  }
  spec.notes.push_back("Pods created and not yet bound to a node.");
  return svg::line_chart_svg(std::move(spec));
}

std::string tenant_headline(const RunSummary& summary) {
  TenantSummary cluster;
  std::vector<double> queue;
  const TenantSummary* slowest = nullptr;
  for (const TenantSummary& t : summary.tenants) {
    cluster.add_totals(t);
    queue.insert(queue.end(), t.queue_times_s.begin(), t.queue_times_s.end());
    if (!t.queue_times_s.empty() && (slowest == nullptr || t.average_queue_s > slowest->average_queue_s)) slowest = &t;
  }
  if (cluster.jobs == 0) return "No job was submitted.";
  const Quantiles q = quantiles_of(std::move(queue));
  std::string out = cluster.completed == cluster.jobs
                        ? (cluster.jobs == 1 ? "The job completed" : "All " + human::count(cluster.jobs) + " jobs completed")
                        : human::count(cluster.completed) + " of " + human::count(cluster.jobs) + " jobs completed";
  out += ": makespan " + human::duration(summary.makespan_s) + ", mean queue " + human::duration(q.mean) + " (p99 " +
         human::duration(q.p99) + "), utilisation " + human::percent(summary.utilisation) + ".";
  if (summary.tenants.size() > 1 && slowest != nullptr)
    out += " " + slowest->tenant + " queued longest (mean " + human::duration(slowest->average_queue_s) + ").";
  if (cluster.failed_pods > 0) out += " " + human::count(cluster.failed_pods) + " pod(s) failed.";
  return out;
}

namespace {

// The summary table's cells rounded for people (summary.csv keeps every digit).
std::vector<std::string> human_row(const TenantSummary& t, const std::string& utilisation, bool cluster) {
  return {t.tenant,
          human::count(t.jobs),
          human::count(t.completed),
          human::count(t.failed_pods),
          format_cores(t.total_cores_milli),
          human::duration(t.total_queue_s),
          cluster ? "" : human::duration(t.average_queue_s),
          human::duration(t.total_run_s),
          human::duration(t.total_queue_run_s),
          cluster ? "" : human::duration(t.makespan_s),
          utilisation};
}

std::string summary_table_html(const TenantReportInput& in) {
  static const char* const kHeads[] = {"tenant",          "jobs",       "completed",   "failed pods",
                                       "cores requested", "total queue", "mean queue", "total run",
                                       "queue + run",     "makespan",   "utilisation"};
  std::string out = "<div class=\"table-wrap\"><table id=\"summary-table\">\n<tr>";
  for (const char* h : kHeads) out += std::string("<th>") + h + "</th>";
  out += "</tr>\n";
  TenantSummary cluster;
  cluster.tenant = kClusterRow;
  std::vector<std::vector<std::string>> rows;
  for (const TenantSummary& t : in.summary.tenants) {
    rows.push_back(human_row(t, "", false));
    cluster.add_totals(t);
  }
  rows.push_back(human_row(cluster, human::percent(in.summary.utilisation), true));
  for (const auto& row : rows) {
    out += row[0] == kClusterRow ? "<tr class=\"cluster\">" : "<tr>";
    for (const auto& cell : row) out += "<td>" + svg::escape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

}  // namespace

std::string tenant_report_html(const TenantReportInput& in, const std::vector<ReportFile>& charts) {
  const auto esc = [](const std::string& s) { return svg::escape(s); };
  const std::string title = in.title.empty() ? "kubesim multi-tenant report" : in.title;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(title) +
                    "</title>\n<style>\n" + html_report_css() +
                    "tr.cluster td{font-weight:bold;background:#f7f7f7;}\n</style>\n</head>\n<body>\n";
  out += "<h1>" + esc(title) + "</h1>\n";
  // The decisive chart: running cores per tenant against the capacity (else the first chart).
  const ReportFile* lead = nullptr;
  for (const ReportFile& c : charts)
    if (c.name == "cores_running.svg") lead = &c;
  if (lead == nullptr && !charts.empty()) lead = &charts.front();
  out += html_headline(tenant_headline(in.summary),
                       lead ? std::string(svg::strip_xml_declaration(lead->content)) : std::string(),
                       lead ? lead->name + ": what each tenant ran over time, against the capacity." : std::string());

  out += "<section id=\"summary\"><h2>Per-tenant summary</h2>\n" + summary_table_html(in) +
         "<p>Queue time = container start &#8722; Job creation; run time = container finish &#8722; start; "
         "makespan = last finish &#8722; first creation; utilisation = integral of running cores over the run / "
         "(capacity &#215; run time). Every digit is in summary.csv.</p>\n</section>\n";
  out += in.extra_sections_html;

  out += "<section id=\"charts\"><h2>Charts</h2>\n";
  for (const ReportFile& c : charts) {
    if (&c == lead || c.name.size() < 4 || c.name.compare(c.name.size() - 4, 4, ".svg") != 0) continue;
    out += "<figure class=\"chart\" id=\"fig-" + esc(c.name.substr(0, c.name.size() - 4)) + "\">\n";
    out += svg::strip_xml_declaration(c.content);
    out += "<figcaption>" + esc(c.name) + "</figcaption>\n</figure>\n";
  }
  out += "</section>\n";

  out += "<section id=\"parameters\"><h2>Parameters</h2>\n<table class=\"params\">\n";
  std::vector<std::pair<std::string, std::string>> params = {
      {"scenario", in.scenario},
      {"seed", std::to_string(in.seed)},
      {"model", in.model},
      {"end of run", in.summary.end.is_never() ? "" : human::duration(in.summary.end.to_seconds())},
      {"sample interval (s)", format_seconds_short(in.series.interval.micros())},
      {"capacity (cores)", format_cores(in.series.capacity_milli)},
      {"nodes", std::to_string(in.store.node_count())},
      {"pods", std::to_string(in.store.pod_count())},
  };
  std::string tenants;
  for (const auto& t : in.series.tenants) tenants += (tenants.empty() ? "" : ", ") + t;
  params.emplace_back("tenants", tenants);
  for (const auto& p : in.parameters) params.push_back(p);
  for (const auto& [k, v] : params) out += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
  out += "</table>\n</section>\n";

  out += "<section id=\"files\"><h2>Files</h2>\n<ul>\n";
  for (const char* f : {"timeseries.csv", "queue.csv", "summary.csv"})
    out += std::string("<li><a href=\"") + f + "\">" + f + "</a></li>\n";
  for (const ReportFile& c : charts) out += "<li><a href=\"" + esc(c.name) + "\">" + esc(c.name) + "</a></li>\n";
  out += "</ul>\n</section>\n</body>\n</html>\n";
  return out;
}

std::vector<ReportFile> build_tenant_reports(const TenantReportInput& in) {
  validate(in);
  std::vector<ReportFile> files;
  files.push_back({"timeseries.csv", tenant_timeseries_csv(in)});
  files.push_back({"queue.csv", tenant_queue_csv(in)});
  files.push_back({"summary.csv", tenant_summary_csv(in)});
  std::vector<ReportFile> charts;
  charts.push_back({"cores_running.svg", cores_running_svg(in)});
  charts.push_back({"cores_pending.svg", cores_pending_svg(in)});
  charts.push_back({"cores_completed.svg", cores_completed_svg(in)});
  charts.push_back({"utilisation.svg", utilisation_svg(in)});
  charts.push_back({"queue.svg", queue_svg(in)});
  charts.push_back({"gantt.svg", gantt_svg(in)});
  std::string html = tenant_report_html(in, charts);
  for (auto& c : charts) files.push_back(std::move(c));
  files.push_back({"report.html", std::move(html)});
  return files;
}

void write_tenant_reports(const std::string& out_dir, const TenantReportInput& in) {
  write_report_files(out_dir, build_tenant_reports(in));
}

}  // namespace kubesim
