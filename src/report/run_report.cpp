#include "report/run_report.hpp"

#include "report/html_page.hpp"
#include "report/human_format.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {

std::string run_headline(const JobStats& s) {
  using human::count;
  using human::duration;
  const std::uint64_t ran = s.succeeded + s.ended_otherwise;
  std::string out;
  if (s.jobs == 0) return "The workload had no job.";
  out = s.succeeded == s.jobs ? (s.jobs == 1 ? "The job finished" : "All " + count(s.jobs) + " jobs finished")
                             : count(s.succeeded) + " of " + count(s.jobs) + " jobs completed successfully";
  if (ran == 0) return out + ": none started (" + count(s.rejected) + " REJECTED in jobs.csv).";
  out += " in " + duration(s.makespan_s) + " (makespan); mean wait " + duration(s.times.wait_s.mean) + ", p99 " +
         duration(s.times.wait_s.p99) + "; utilisation " + human::percent(s.utilisation) + ".";
  if (s.rejected > 0) out += " " + count(s.rejected) + " never started (REJECTED in jobs.csv).";
  if (s.ended_otherwise > 0)
    out += " " + count(s.ended_otherwise) + " ran but did not complete successfully (jobs.csv: failed, killed or walltime reached).";
  return out;
}

std::vector<std::pair<std::string, std::string>> job_figure_rows(const JobStats& s) {
  using human::duration;
  using human::sig3;
  const auto dist = [](const Quantiles& d, std::string (*f)(double)) {
    return "mean " + f(d.mean) + ", p50 " + f(d.p50) + ", p90 " + f(d.p90) + ", p99 " + f(d.p99) + ", max " + f(d.max);
  };
  return {{"jobs", human::count(s.jobs)},
          {"completed successfully", human::count(s.succeeded)},
          {"ran, then failed, killed or reached walltime", human::count(s.ended_otherwise)},
          {"never started (REJECTED)", human::count(s.rejected)},
          {"makespan", duration(s.makespan_s)},
          {"wait (start - submission)", dist(s.times.wait_s, duration)},
          {"slowdown ((wait + run) / run)", dist(s.times.slowdown, sig3)},
          {"bounded slowdown (tau = 10 s)", dist(s.times.bounded_slowdown, sig3)},
          {"utilisation (requested cpu x time / capacity x makespan)", human::percent(s.utilisation)}};
}

namespace {

std::string cores_chart(const RunReportInput& in) {
  const double end = in.stats.makespan_s > 0 ? in.stats.makespan_s : in.run.end_time.to_seconds();
  const CoresOverTime c = cores_over_time(in.run, in.jobs, end);
  svg::ChartSpec spec;
  spec.id = "running-cores";
  spec.title = "Running cores over time";
  spec.subtitle = "mean utilisation " + human::percent(in.stats.utilisation) + " of " +
                  svg::num(static_cast<double>(in.stats.capacity_milli) / 1000.0, 3) + " cores";
  spec.x_label = end >= 2 * 86400 ? "Run time (d)" : end >= 6000 ? "Run time (h)" : "Run time (s)";
  const double unit = end >= 2 * 86400 ? 86400 : end >= 6000 ? 3600 : 1;
  for (const double t : c.time_s) spec.x.push_back(t / unit);
  spec.x_max = end / unit;
  spec.y_label = "Cores";
  svg::Series running;
  running.label = "running cores";
  running.color = svg::palette_color(0);
  running.style = svg::Series::Style::kStackedArea;
  running.y = c.running_cores;
  spec.series.push_back(std::move(running));
  svg::Series waiting;
  waiting.label = "waiting jobs";
  waiting.color = svg::palette_color(3);
  waiting.y = c.waiting_jobs;
  spec.series.push_back(std::move(waiting));
  svg::RefLine cap;
  cap.y = static_cast<double>(in.stats.capacity_milli) / 1000.0;
  cap.label = "capacity";
  spec.ref_lines.push_back(cap);
  if (in.stats.succeeded + in.stats.ended_otherwise == 0) spec.notes.push_back("No job started: nothing ran.");
  spec.notes.push_back("Each point: the mean over 1/600 of the run.");
  return std::string(svg::strip_xml_declaration(svg::line_chart_svg(std::move(spec))));
}

std::string table(const std::vector<std::pair<std::string, std::string>>& rows, const char* cls) {
  std::string out = std::string("<table class=\"") + cls + "\">\n";
  for (const auto& [k, v] : rows) out += "<tr><th>" + svg::escape(k) + "</th><td>" + svg::escape(v) + "</td></tr>\n";
  return out + "</table>\n";
}

}  // namespace

std::string run_report_html(const RunReportInput& in) {
  std::string out = html_report_head(in.title);
  out += html_headline(run_headline(in.stats), cores_chart(in),
                       "Running cores (blue area) against the capacity, and jobs waiting to start (orange line).");
  out += "<section id=\"figures\"><h2>Figures</h2>\n" + table(job_figure_rows(in.stats), "params") +
         "<p><small>Bounded slowdown: max(1, (wait + run) / max(run, 10 s)), Feitelson et al., &#8220;Theory and "
         "Practice in Parallel Job Scheduling&#8221;, JSSPP 1997. Every digit is in jobs.csv and "
         "schedule.csv.</small></p>\n</section>\n";
  out += in.extra_sections_html;
  out += "<section id=\"parameters\"><h2>Parameters</h2>\n" + table(in.parameters, "params") + "</section>\n";
  out += "<section id=\"files\"><h2>Files</h2>\n<ul>\n";
  for (const char* f : {"jobs.csv", "schedule.csv", "pods.csv"})
    out += std::string("<li><a href=\"") + f + "\">" + f + "</a></li>\n";
  out += "</ul>\n</section>\n</body>\n</html>\n";
  return out;
}

}  // namespace kubesim
