// The BSP job's outputs: per-superstep CSV, the summary, the study's table in ideal mode beside
// the cluster run, its bar chart and a per-superstep chart, and report.html's section.
#include <algorithm>

#include "bsp/gang_run.hpp"
#include "bsp/number_text.hpp"
#include "report/svg_chart.hpp"

namespace kubesim::bsp {
namespace {

std::string fixed(double v) { return svg::num(v, 6); }

std::string steps_csv(const GangRunResult& r) {
  std::string out =
      "step,start_s,plan_window,reconfigured,checkpoint_penalty_s,deletion_s,gang_wait_s,startup_s,superstep_s,end_s,"
      "replaced_pods";
  for (const auto& name : r.task_names) out += ",shares_" + name;
  out += "\n";
  for (const auto& s : r.steps) {
    out += std::to_string(s.step) + "," + fixed(s.start) + "," + std::to_string(s.plan_window) + "," +
           (s.reconfigured ? "1" : "0") + "," + fixed(s.penalty) + "," + fixed(s.deletion) + "," + fixed(s.gang_wait) + "," +
           fixed(s.startup) + "," + number_text(s.superstep) + "," + fixed(s.end) + "," + std::to_string(s.replaced_pods);
    for (int v : s.shares) out += "," + std::to_string(v);
    out += "\n";
  }
  return out;
}

std::string summary_csv(const GangRunResult& r) {
  std::string out =
      "controller,steps,duration_without_penalty_s,checkpoints,study_total_s,checkpoint_penalty_s,deletion_s,gang_wait_s,"
      "startup_s,cluster_total_s,extra_cluster_cost_s\n";
  out += r.controller + "," + std::to_string(r.steps.size()) + "," + python_float_text(r.duration_without_penalty) + "," +
         std::to_string(r.checkpoints) + "," + python_float_text(r.study_total) + "," + fixed(r.penalty_total) + "," +
         fixed(r.deletion_total) + "," + fixed(r.gang_wait_total) + "," + fixed(r.startup_total) + "," +
         fixed(r.cluster_total) + "," + fixed(r.cluster_total - r.study_total) + "\n";
  return out;
}

struct Bar {
  std::string label;
  double work = 0, penalty = 0, cluster = 0;
};

std::vector<Bar> bars(const GangRunResult& r) {
  std::vector<Bar> out;
  for (const auto& s : r.study_table)
    out.push_back({s.name, s.duration_without_penalty, s.total_duration - s.duration_without_penalty, 0});
  out.push_back({r.controller + " (cluster)", r.duration_without_penalty, r.penalty_total,
                 std::max(0.0, r.cluster_total - r.duration_without_penalty - r.penalty_total)});
  return out;
}

// The study's bar chart (total duration per strategy), stacked: supersteps, checkpoint
// penalties, and for the cluster run the deletion, gang wait and start-up time.
std::string study_bar_chart(const GangRunResult& r) {
  const auto data = bars(r);
  double top = 0;
  for (const auto& b : data) top = std::max(top, b.work + b.penalty + b.cluster);
  svg::Frame f;
  f.width = 960;
  f.height = 440;
  f.bottom = 110;
  f.x = {0, static_cast<double>(data.size()), 1};
  f.y = svg::nice_axis(0, top);
  const std::string id = "bsp-study";
  std::string out;
  svg::open_svg(out, f, id, "BSP job: total duration per strategy");
  svg::draw_title(out, f, "BSP job: total duration per strategy",
                  "the study's strategies in ideal mode, and the scenario's controller on the cluster");
  svg::draw_plot_area(out, f, id, true);
  const char* colors[] = {"#1f77b4", "#d62728", "#ff7f0e"};
  for (std::size_t i = 0; i < data.size(); ++i) {
    const double x0 = f.px(static_cast<double>(i) + 0.15), x1 = f.px(static_cast<double>(i) + 0.85);
    double base = 0;
    const double parts[] = {data[i].work, data[i].penalty, data[i].cluster};
    for (int k = 0; k < 3; ++k) {
      if (parts[k] <= 0) continue;
      const double y0 = f.py(base + parts[k]), y1 = f.py(base);
      out += "<rect class=\"bar\" data-series=\"" + svg::escape(data[i].label) + "\" x=\"" + svg::num(x0) + "\" y=\"" +
             svg::num(y0) + "\" width=\"" + svg::num(x1 - x0) + "\" height=\"" + svg::num(y1 - y0) + "\" fill=\"" + colors[k] +
             "\"/>\n";
      base += parts[k];
    }
    const double cx = f.px(static_cast<double>(i) + 0.5);
    out += "<text x=\"" + svg::num(cx) + "\" y=\"" + svg::num(f.plot_bottom() + 10) +
           "\" font-size=\"11\" text-anchor=\"end\" transform=\"rotate(-40 " + svg::num(cx) + " " +
           svg::num(f.plot_bottom() + 10) + ")\">" + svg::escape(data[i].label) + "</text>\n";
  }
  svg::draw_y_axis(out, f, "seconds", "");
  svg::draw_legend(out, f,
                   {{.label = "supersteps", .color = colors[0], .mark = svg::LegendMark::kBox, .dash = {}, .stroke = {}},
                    {.label = "checkpoint penalties", .color = colors[1], .mark = svg::LegendMark::kBox, .dash = {}, .stroke = {}},
                    {.label = "deletion, gang wait, start-up", .color = colors[2], .mark = svg::LegendMark::kBox, .dash = {}, .stroke = {}}},
                   {});
  svg::close_svg(out);
  return out;
}

std::string superstep_chart(const GangRunResult& r) {
  svg::ChartSpec spec;
  spec.id = "bsp-steps";
  spec.title = "BSP job: per superstep (" + r.controller + ")";
  spec.subtitle = "superstep time and the reconfiguration overhead before it";
  spec.x_label = "superstep";
  spec.y_label = "seconds";
  svg::Series step{"superstep", svg::palette_color(0), svg::Series::Style::kLine, "", {}};
  svg::Series overhead{"checkpoint + deletion + gang wait + start-up", svg::palette_color(3), svg::Series::Style::kLine, "", {}};
  for (const auto& s : r.steps) {
    spec.x.push_back(s.step);
    step.y.push_back(s.superstep);
    overhead.y.push_back(s.penalty + s.deletion + s.gang_wait + s.startup);
  }
  spec.series = {step, overhead};
  spec.x_max = r.steps.empty() ? 1 : r.steps.back().step;
  return svg::line_chart_svg(spec);
}

std::string html_section(const GangRunResult& r, const std::string& bar_svg, const std::string& steps_svg) {
  std::string out = "<section id=\"bsp\"><h2>BSP job</h2>\n";
  out += "<p>Controller <b>" + svg::escape(r.controller) + "</b>, " + std::to_string(r.steps.size()) +
         " supersteps on the cluster: " + svg::num(r.duration_without_penalty, 3) + " s of supersteps, " +
         std::to_string(r.checkpoints) + " checkpoints (" + svg::num(r.penalty_total, 3) + " s), deletion " +
         svg::num(r.deletion_total, 3) + " s, waiting for the gang " + svg::num(r.gang_wait_total, 3) + " s, start-up " +
         svg::num(r.startup_total, 3) + " s; " + svg::num(r.cluster_total, 3) + " s in all, " +
         svg::num(r.cluster_total - r.study_total, 3) + " s more than the study's simulator counts.</p>\n";
  out += "<div class=\"table-wrap\"><table id=\"bsp-table\">\n<tr><th>Configuration Strategy</th><th>Duration without "
         "Checkpoint Penalty (s)</th><th>Number of Checkpoints</th><th>Total Duration (s)</th><th>On the cluster (s)</th></tr>\n";
  for (const auto& s : r.study_table)
    out += "<tr><td>" + svg::escape(s.name) + "</td><td>" + svg::num(s.duration_without_penalty, 3) + "</td><td>" +
           std::to_string(s.checkpoints) + "</td><td>" + svg::num(s.total_duration, 3) + "</td><td></td></tr>\n";
  out += "<tr><td>" + svg::escape(r.controller) + " (cluster)</td><td>" + svg::num(r.duration_without_penalty, 3) + "</td><td>" +
         std::to_string(r.checkpoints) + "</td><td>" + svg::num(r.study_total, 3) + "</td><td>" + svg::num(r.cluster_total, 3) +
         "</td></tr>\n</table></div>\n";
  out += "<p>The study's strategies are computed as its own simulator does (ideal: no cluster); the last row is this run.</p>\n";
  out += "<figure class=\"chart\" id=\"fig-bsp_study\">\n" + std::string(svg::strip_xml_declaration(bar_svg)) +
         "<figcaption>bsp_study.svg</figcaption>\n</figure>\n";
  out += "<figure class=\"chart\" id=\"fig-bsp_supersteps\">\n" + std::string(svg::strip_xml_declaration(steps_svg)) +
         "<figcaption>bsp_supersteps.svg</figcaption>\n</figure>\n";
  out += "<p>Files: <a href=\"bsp_steps.csv\">bsp_steps.csv</a>, <a href=\"bsp_summary.csv\">bsp_summary.csv</a>, "
         "<a href=\"bsp_study.csv\">bsp_study.csv</a>.</p>\n</section>\n";
  return out;
}

}  // namespace

GangReport build_gang_report(const GangRunResult& r) {
  GangReport report;
  const std::string bar_svg = study_bar_chart(r);
  const std::string steps_svg = superstep_chart(r);
  report.files = {{"bsp_steps.csv", steps_csv(r)},
                  {"bsp_summary.csv", summary_csv(r)},
                  {"bsp_study.csv", results_csv(r.study_table)},
                  {"bsp_study.svg", bar_svg},
                  {"bsp_supersteps.svg", steps_svg}};
  report.html_section = html_section(r, bar_svg, steps_svg);
  return report;
}

}  // namespace kubesim::bsp
