#include "report/measured_results.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"
#include "core/split.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {

const MeasuredTenantResult* MeasuredExperiment::find(const std::string& setup, const std::string& tenant) const {
  const std::string name = setup.empty() ? "default-scheduler" : setup;
  for (const MeasuredTenantResult& r : rows)
    if (r.tenant == tenant && (r.scheduler == name || r.scheduler == name + "-scheduler")) return &r;
  return nullptr;
}

MeasuredExperiment read_measured_results(const std::string& path, const std::string& experiment) {
  MeasuredExperiment m;
  m.source = path;
  m.experiment = experiment;
  const std::string text = read_input_file(path);
  std::map<std::string, std::size_t> column;
  std::set<std::pair<std::string, std::string>> seen;
  static constexpr const char* kRequired[] = {"experiment",           "scheduler",           "tenant",
                                              "runs",                 "avg_queue_time_mean_s", "avg_queue_time_sd_s",
                                              "makespan_mean_s",      "makespan_sd_s"};
  for_each_trimmed_line(text, [&](int line, std::string_view record) {
    const std::vector<std::string> f = split_csv_record(record);
    if (column.empty()) {
      for (std::size_t i = 0; i < f.size(); ++i) column[f[i]] = i;
      for (const char* c : kRequired)
        if (!column.count(c))
          throw InputError(path, line, std::string("missing column \"") + c + "\" (expected the multi-tenant study's real-results.csv)");
      return;
    }
    if (f.size() != column.size())
      throw InputError(path, line, "expected " + std::to_string(column.size()) + " fields, got " + std::to_string(f.size()));
    auto cell = [&](const char* c) -> const std::string& { return f[column.at(c)]; };
    if (cell("experiment") != experiment) return;
    auto number = [&](const char* c) {
      const auto v = parse_double(cell(c));
      if (!v || !std::isfinite(*v) || *v < 0)
        throw InputError(path, line, std::string("expected a number >= 0 in column ") + c + ", got \"" + cell(c) + "\"");
      return *v;
    };
    MeasuredTenantResult r;
    r.scheduler = cell("scheduler");
    r.tenant = cell("tenant");
    if (!seen.emplace(r.scheduler, r.tenant).second)
      throw InputError(path, line, experiment + " " + r.scheduler + " " + r.tenant + " appears twice");
    const auto runs = parse_int(cell("runs"));
    if (!runs || *runs < 1) throw InputError(path, line, "expected a number of runs >= 1, got \"" + cell("runs") + "\"");
    r.runs = static_cast<int>(*runs);
    r.queue_mean = number("avg_queue_time_mean_s");
    r.queue_sd = number("avg_queue_time_sd_s");
    r.makespan_mean = number("makespan_mean_s");
    r.makespan_sd = number("makespan_sd_s");
    if (const auto it = column.find("makespans_s"); it != column.end())
      for (const std::string& v : split(f[it->second], ' ')) {
        if (v.empty()) continue;
        const auto x = parse_double(v);
        if (!x || !std::isfinite(*x)) throw InputError(path, line, "expected makespans in seconds, got \"" + v + "\"");
        r.makespans.push_back(*x);
      }
    m.rows.push_back(std::move(r));
  });
  if (column.empty()) throw InputError(path, 1, "empty file: expected a real-results.csv header");
  if (m.rows.empty()) throw InputError(path, 0, "no row of experiment \"" + experiment + "\"");
  return m;
}

namespace {

struct Verdict {
  bool outside = false;
  std::string text;  // "inside" or "outside (+2.3 sd)"
};

Verdict judge(double value, double mean, double sd) {
  Verdict v;
  v.outside = std::abs(value - mean) > sd;
  if (!v.outside) {
    v.text = "inside";
  } else if (sd > 0) {
    const double z = (value - mean) / sd;
    v.text = std::string("outside (") + (z > 0 ? "+" : "") + svg::num(z, 1) + " sd)";
  } else {
    v.text = "outside (sd 0)";
  }
  return v;
}

std::string seconds_cell(double mean, double lo, double hi, std::size_t seeds) {
  std::string s = svg::num(mean, 1);
  if (seeds > 1 && hi - lo >= 0.05) s += " (" + svg::num(lo, 1) + "&#8211;" + svg::num(hi, 1) + ")";
  return s;
}

// One row per (scheduler, tenant): the measured mean +- sd as a grey band with a tick at the
// mean, kubesim's min-max over seeds as a coloured bar with its mean as a dot.
std::string comparison_chart(const std::string& id, const std::string& title, const MeasuredExperiment& measured,
                             const std::vector<SimulatedTenantFigures>& figures, bool queue) {
  constexpr double kRow = 30;
  struct Row {
    std::string label;
    double lo, hi, mean;
    const MeasuredTenantResult* real;
  };
  std::vector<Row> rows;
  double lo = 0, hi = 0;
  for (const SimulatedTenantFigures& f : figures) {
    const MeasuredTenantResult* r = measured.find(f.setup, f.tenant);
    Row row{f.label + " " + f.tenant, queue ? f.queue_min : f.makespan_min, queue ? f.queue_max : f.makespan_max,
            queue ? f.queue_mean : f.makespan_mean, r};
    hi = std::max(hi, row.hi);
    if (r) hi = std::max(hi, (queue ? r->queue_mean + r->queue_sd : r->makespan_mean + r->makespan_sd));
    rows.push_back(std::move(row));
  }
  svg::Frame f;
  f.left = 230;
  f.height = f.top + f.bottom + kRow * static_cast<double>(std::max<std::size_t>(rows.size(), 1));
  f.x = svg::nice_axis(lo, hi);
  f.y = svg::Axis{0, static_cast<double>(std::max<std::size_t>(rows.size(), 1)), 1};
  std::string out;
  svg::open_svg(out, f, id, title);
  svg::draw_title(out, f, title, "grey band: real mean \u00b1 sd (" + measured.experiment + "), bar and dot: kubesim min\u2013max and mean over seeds");
  svg::draw_plot_area(out, f, id, false);
  svg::draw_x_axis(out, f, "seconds");
  const std::string kubesim = svg::palette_color(0), outside = "#c0392b";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double cy = f.plot_top() + (static_cast<double>(i) + 0.5) * kRow;
    bool out_of = false;
    out += "<g class=\"measured-row\" data-row=\"" + svg::escape(r.label) + "\">\n";
    if (r.real) {
      const double m = queue ? r.real->queue_mean : r.real->makespan_mean;
      const double sd = queue ? r.real->queue_sd : r.real->makespan_sd;
      out_of = judge(r.mean, m, sd).outside;
      const double x0 = f.px(std::max(0.0, m - sd)), x1 = f.px(m + sd);
      out += "<rect x=\"" + svg::num(x0) + "\" y=\"" + svg::num(cy - 10) + "\" width=\"" + svg::num(std::max(2.0, x1 - x0)) +
             "\" height=\"20\" fill=\"#bbbbbb\" fill-opacity=\"0.6\"/>\n";
      out += "<line x1=\"" + svg::num(f.px(m)) + "\" y1=\"" + svg::num(cy - 10) + "\" x2=\"" + svg::num(f.px(m)) +
             "\" y2=\"" + svg::num(cy + 10) + "\" stroke=\"#222222\" stroke-width=\"2\"/>\n";
    }
    const std::string c = out_of ? outside : kubesim;
    out += "<text x=\"" + svg::num(f.plot_left() - 8) + "\" y=\"" + svg::num(cy + 4) + "\" text-anchor=\"end\"" +
           (out_of ? " fill=\"" + outside + "\"" : std::string()) + ">" + svg::escape(r.label) + (out_of ? " \u2717" : "") +
           "</text>\n";
    out += "<line x1=\"" + svg::num(f.px(r.lo)) + "\" y1=\"" + svg::num(cy) + "\" x2=\"" + svg::num(f.px(r.hi)) + "\" y2=\"" +
           svg::num(cy) + "\" stroke=\"" + c + "\" stroke-width=\"4\"/>\n";
    out += "<circle cx=\"" + svg::num(f.px(r.mean)) + "\" cy=\"" + svg::num(cy) + "\" r=\"4.5\" fill=\"" + c +
           "\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n</g>\n";
  }
  svg::draw_legend(out, f, {{"real mean \u00b1 sd", "#bbbbbb", svg::LegendMark::kBox, "", "", false},
                            {"kubesim (inside)", kubesim, svg::LegendMark::kLine, "", "", false},
                            {"kubesim (outside)", outside, svg::LegendMark::kLine, "", "", false}},
                   {});
  svg::close_svg(out);
  return out;
}

}  // namespace

std::string measured_results_section_html(const MeasuredExperiment& measured,
                                          const std::vector<SimulatedTenantFigures>& figures, std::size_t seeds) {
  const auto esc = [](const std::string& s) { return svg::escape(s); };
  std::string out = "<section id=\"measured\"><h2>Beside the real cluster (" + esc(measured.experiment) + ")</h2>\n";
  out += "<p>Measured: " + esc(measured.source) + ", experiment " + esc(measured.experiment) +
         " (mean &#177; sd over the real runs). kubesim: mean";
  if (seeds > 1) out += " (min&#8211;max) over " + std::to_string(seeds) + " seeds";
  out += ". A figure is <em>outside</em> when it is beyond the real mean &#177; one sd.</p>\n";
  out += "<div class=\"table-wrap\"><table class=\"measured\">\n<tr><th>scheduler</th><th>tenant</th>"
         "<th>kubesim average queue time (s)</th><th>real (s)</th><th>queue time</th>"
         "<th>kubesim makespan (s)</th><th>real (s)</th><th>real runs (s)</th><th>makespan</th></tr>\n";
  std::size_t outside = 0, compared = 0;
  for (const SimulatedTenantFigures& f : figures) {
    const MeasuredTenantResult* r = measured.find(f.setup, f.tenant);
    out += "<tr data-scheduler=\"" + esc(f.label) + "\" data-tenant=\"" + esc(f.tenant) + "\"><td>" + esc(f.label) +
           "</td><td>" + esc(f.tenant) + "</td><td>" + seconds_cell(f.queue_mean, f.queue_min, f.queue_max, seeds) + "</td>";
    if (!r) {
      out += "<td colspan=\"2\">not measured</td><td>" + seconds_cell(f.makespan_mean, f.makespan_min, f.makespan_max, seeds) +
             "</td><td colspan=\"3\">not measured</td></tr>\n";
      continue;
    }
    ++compared;
    const Verdict q = judge(f.queue_mean, r->queue_mean, r->queue_sd);
    const Verdict mk = judge(f.makespan_mean, r->makespan_mean, r->makespan_sd);
    outside += q.outside + mk.outside;
    std::string runs;
    for (double x : r->makespans) runs += (runs.empty() ? "" : " ") + svg::num(x, 0);
    auto verdict = [](const Verdict& v) {
      return std::string("<td class=\"") + (v.outside ? "outside\" style=\"color:#c0392b;font-weight:bold" : "inside") + "\">" + v.text + "</td>";
    };
    out += "<td>" + svg::num(r->queue_mean, 1) + " &#177; " + svg::num(r->queue_sd, 1) + "</td>" + verdict(q) + "<td>" +
           seconds_cell(f.makespan_mean, f.makespan_min, f.makespan_max, seeds) + "</td><td>" +
           svg::num(r->makespan_mean, 1) + " &#177; " + svg::num(r->makespan_sd, 1) + "</td><td>" + esc(runs) + "</td>" +
           verdict(mk) + "</tr>\n";
  }
  out += "</table></div>\n<p>" + std::to_string(outside) + " of " + std::to_string(2 * compared) +
         " figures outside the measured spread.</p>\n";
  out += "<figure class=\"chart\">" + comparison_chart("measured-queue", "Average queue time beside the real cluster", measured, figures, true) +
         "</figure>\n";
  out += "<figure class=\"chart\">" + comparison_chart("measured-makespan", "Makespan beside the real cluster", measured, figures, false) +
         "</figure>\n</section>\n";
  return out;
}

}  // namespace kubesim
