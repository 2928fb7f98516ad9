#include "calibrate/fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "calibrate/fit.hpp"
#include "calibrate/observer.hpp"
#include "report/html_page.hpp"
#include "report/human_format.hpp"
#include "report/svg_chart.hpp"

namespace kubesim::calibrate {

namespace {

// When each pod's terminal status was stored (what a client sees as the completion).
class CompletionTimes final : public ChangeListener {
 public:
  explicit CompletionTimes(const Simulation& sim) : sim_(sim) {}
  void on_change(const Change& c) override {
    if (c.kind != ObjectKind::kPod || !is_terminal(c.phase) || is_terminal(c.old_phase)) return;
    if (at_.size() <= c.id) at_.resize(c.id + 1, SimTime::never());
    at_[c.id] = sim_.now();
  }
  SimTime at(PodId p) const { return p.value() < at_.size() ? at_[p.value()] : SimTime::never(); }

 private:
  const Simulation& sim_;
  std::vector<SimTime> at_;
};

RunFigures figures_of(const MeasuredRun& run) {
  RunFigures f;
  f.label = run.source;
  double sum = 0;
  for (const auto& p : run.pods) {
    if (known(p.finished)) f.makespan = std::max(f.makespan, p.finished);
    if (known(p.started) && known(p.submitted)) {
      f.waits.push_back(p.started - p.submitted);
      sum += f.waits.back();
    }
    if (known(p.started) && known(p.scheduled)) f.startups.push_back(p.started - p.scheduled);
  }
  f.mean_wait = f.waits.empty() ? 0 : sum / static_cast<double>(f.waits.size());
  return f;
}

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t i = static_cast<std::size_t>(pos);
  const double frac = pos - static_cast<double>(i);
  return i + 1 < sorted.size() ? sorted[i] * (1 - frac) + sorted[i + 1] * frac : sorted[i];
}

std::vector<double> pooled(const std::vector<RunFigures>& runs, bool waits) {
  std::vector<double> out;
  for (const auto& r : runs) {
    const auto& v = waits ? r.waits : r.startups;
    out.insert(out.end(), v.begin(), v.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

FidelityResult replay_measured_runs(const std::vector<MeasuredRun>& runs,
                                    const std::function<SimulationInputs()>& make_inputs, const ModelConfig& model,
                                    std::uint64_t seeds, const std::function<void()>& on_replay_done) {
  FidelityResult r;
  r.model = model.name;
  r.seeds = seeds;
  for (const auto& run : runs) r.measured.push_back(figures_of(run));
  for (const auto& run : runs) {
    std::map<std::string, double> submitted;
    // The measured start-ups are of the pods whose Scheduled Event was received, and a
    // missed Event is not random: the real files miss them for the last pods of a run (the
    // submitter's event watch stopped delivering), so the replay's start-ups are of the same
    // jobs, by ID (a comparison of every simulated pod would weigh the late waves the
    // measurements lack).
    std::set<std::string> scheduled_seen;
    for (const auto& p : run.pods) {
      if (known(p.submitted)) submitted[p.id] = p.submitted;
      if (known(p.scheduled)) scheduled_seen.insert(p.id);
    }
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      SimulationInputs in = make_inputs();
      for (auto& j : in.workload.jobs)
        if (const auto it = submitted.find(j.id); it != submitted.end()) j.submit = SimTime::from_seconds(it->second);
      std::stable_sort(in.workload.jobs.begin(), in.workload.jobs.end(),
                       [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit < b.submit; });
      SimulationOptions options;
      options.seed = seed;
      options.model = model;
      Simulation sim(std::move(in), options);
      CompletionTimes completions(sim);
      sim.add_listener(&completions);
      sim.run();
      // The replay's pods as the measuring client would have stamped them: the instants
      // themselves, or through the Batkube submitter (observer.hpp) when it wrote the run.
      const auto& jobs = sim.workload().jobs;
      std::vector<PodTimeline> timelines;
      std::vector<std::size_t> job_of;
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        const PodId pod = sim.job_pods()[i];
        if (!pod.valid()) continue;
        const Pod& p = sim.store().pod(pod);
        auto seconds = [](SimTime t) { return t.is_never() ? kUnknown : t.to_seconds(); };
        PodTimeline t;
        t.submitted = jobs[i].submit.to_seconds();
        t.scheduled = seconds(p.scheduled);
        t.pulling = seconds(p.pulling);
        t.pulled = seconds(p.pulled);
        t.created = seconds(p.container_created);
        t.started = seconds(p.started);
        t.finished = seconds(completions.at(pod));
        timelines.push_back(t);
        job_of.push_back(i);
      }
      if (run.stamped_by_batkube_submitter) {
        timelines = observe_like_batkube_submitter(timelines);
        r.stamped_by_batkube_submitter = true;
      }
      RunFigures f;
      f.label = "replay of " + run.source + ", seed " + std::to_string(seed);
      double sum = 0;
      for (std::size_t k = 0; k < timelines.size(); ++k) {
        const PodTimeline& t = timelines[k];
        if (!known(t.started)) continue;
        f.waits.push_back(t.started - t.submitted);
        sum += f.waits.back();
        if (scheduled_seen.count(jobs[job_of[k]].id) && known(t.scheduled)) f.startups.push_back(t.started - t.scheduled);
        if (known(t.finished)) f.makespan = std::max(f.makespan, t.finished);
      }
      f.mean_wait = f.waits.empty() ? 0 : sum / static_cast<double>(f.waits.size());
      sim.store().remove_listener(&completions);
      r.simulated.push_back(std::move(f));
      if (on_replay_done) on_replay_done();
    }
  }
  r.measured_makespan_min = r.measured_wait_min = 1e300;
  for (const auto& m : r.measured) {
    r.measured_makespan_min = std::min(r.measured_makespan_min, m.makespan);
    r.measured_makespan_max = std::max(r.measured_makespan_max, m.makespan);
    r.measured_wait_min = std::min(r.measured_wait_min, m.mean_wait);
    r.measured_wait_max = std::max(r.measured_wait_max, m.mean_wait);
  }
  for (const auto& s : r.simulated) {
    r.sim_makespan += s.makespan / static_cast<double>(r.simulated.size());
    r.sim_mean_wait += s.mean_wait / static_cast<double>(r.simulated.size());
  }
  r.ks_wait = ks_distance(pooled(r.measured, true), pooled(r.simulated, true));
  r.ks_startup = ks_distance(pooled(r.measured, false), pooled(r.simulated, false));
  return r;
}

std::string fidelity_csv(const FidelityResult& r) {
  std::string out = "source,kind,makespan_s,mean_wait_s,pods\n";
  char buf[256];
  auto row = [&](const RunFigures& f, const char* kind) {
    std::snprintf(buf, sizeof buf, ",%s,%.3f,%.3f,%zu\n", kind, f.makespan, f.mean_wait, f.waits.size());
    out += "\"" + f.label + "\"" + buf;
  };
  for (const auto& f : r.measured) row(f, "measured");
  for (const auto& f : r.simulated) row(f, "simulated");
  return out;
}

std::string fidelity_headline(const FidelityResult& r) {
  const auto where = [](bool inside) { return inside ? "inside" : "outside"; };
  return "The replays' mean wait, " + human::duration(r.sim_mean_wait) + ", is " + where(r.wait_inside()) +
         " the measured range (" + human::duration(r.measured_wait_min) + " to " + human::duration(r.measured_wait_max) +
         "); their makespan, " + human::duration(r.sim_makespan) + ", " + where(r.makespan_inside()) + " it (" +
         human::duration(r.measured_makespan_min) + " to " + human::duration(r.measured_makespan_max) +
         "); per-pod waits KS distance " + svg::num(r.ks_wait, 3) + (r.ks_wait < 0.1 ? " (close, < 0.1)." : " (not close, >= 0.1).");
}

namespace {

// The per-pod waits (or start-ups) measured and simulated: their ECDFs, and the QQ plot.
struct DistributionCharts {
  std::string ecdf, qq;
};

DistributionCharts distribution_charts(const FidelityResult& r, bool waits) {
  const std::string what = waits ? "wait (Started − submission)" : "start-up (Started − Scheduled)";
  const std::string id = waits ? "wait" : "startup";
  const auto m = pooled(r.measured, waits), s = pooled(r.simulated, waits);
  if (m.empty() || s.empty()) return {};
  svg::ChartSpec ecdf;
  ecdf.id = "ecdf-" + id;
  ecdf.title = "ECDF of the per-pod " + what;
  ecdf.subtitle = "KS distance " + svg::num(waits ? r.ks_wait : r.ks_startup, 3);
  ecdf.x_label = "seconds";
  ecdf.y_label = "fraction of pods";
  const double hi = std::max(quantile(m, 0.995), quantile(s, 0.995));
  const double lo = std::min(m.front(), s.front());
  auto cdf = [](const std::vector<double>& v, double x) {
    return static_cast<double>(std::upper_bound(v.begin(), v.end(), x) - v.begin()) / static_cast<double>(v.size());
  };
  svg::Series sm{"measured", svg::palette_color(0), svg::Series::Style::kLine, "", {}};
  svg::Series ss{"simulated", svg::palette_color(1), svg::Series::Style::kLine, "6 3", {}};
  for (int i = 0; i <= 300; ++i) {
    const double x = lo + (hi - lo) * i / 300.0;
    ecdf.x.push_back(x);
    sm.y.push_back(cdf(m, x));
    ss.y.push_back(cdf(s, x));
  }
  ecdf.series = {sm, ss};
  ecdf.x_min = std::min(0.0, lo);  // from 0 (round ticks) unless a value is negative
  ecdf.x_max = hi;
  ecdf.y_fixed_top = 1;
  svg::ChartSpec qq;
  qq.id = "qq-" + id;
  qq.title = "QQ plot of the per-pod " + what;
  qq.subtitle = "simulated quantile against measured quantile, 1st to 99th percentile";
  qq.x_label = "measured (s)";
  qq.y_label = "simulated (s)";
  svg::Series qs{"simulated", svg::palette_color(1), svg::Series::Style::kLine, "", {}};
  svg::Series id_line{"y = x", "#888888", svg::Series::Style::kLine, "4 4", {}};
  for (int i = 1; i <= 99; ++i) {
    const double x = quantile(m, i / 100.0);
    qq.x.push_back(x);
    qs.y.push_back(quantile(s, i / 100.0));
    id_line.y.push_back(x);
  }
  qq.series = {qs, id_line};
  qq.x_min = qq.x.front();
  qq.x_max = qq.x.back();
  return {svg::line_chart_svg(ecdf), svg::line_chart_svg(qq)};
}

std::string verdict(bool inside) {
  return inside ? "<span class=\"inside\">inside</span>" : "<span class=\"outside\">outside</span>";
}

// The summary table: durations rounded for people (human_format), KS distances to 3 decimals.
std::string fidelity_summary_html(const FidelityResult& r) {
  const auto range = [](double lo, double hi) { return human::duration(lo) + " – " + human::duration(hi); };
  std::string out = "<section id=\"summary\"><h2>Summary</h2>\n<table>\n<tr><th>figure</th><th>measured range</th>"
                    "<th>simulated (mean of replays)</th><th>verdict</th></tr>\n";
  out += "<tr><td>makespan</td><td>" + range(r.measured_makespan_min, r.measured_makespan_max) + "</td><td>" +
         human::duration(r.sim_makespan) + "</td><td>" + verdict(r.makespan_inside()) + "</td></tr>\n";
  out += "<tr><td>mean wait</td><td>" + range(r.measured_wait_min, r.measured_wait_max) + "</td><td>" +
         human::duration(r.sim_mean_wait) + "</td><td>" + verdict(r.wait_inside()) + "</td></tr>\n";
  out += "<tr><td>KS distance, per-pod wait</td><td colspan=\"2\">" + svg::num(r.ks_wait, 3) + "</td><td>" +
         verdict(r.ks_wait < 0.1) + " (&lt; 0.1)</td></tr>\n";
  out += "<tr><td>KS distance, per-pod start-up (Scheduled → Started)</td><td colspan=\"2\">" + svg::num(r.ks_startup, 3) +
         "</td><td>" + verdict(r.ks_startup < 0.1) + " (&lt; 0.1)</td></tr>\n</table>\n</section>\n";
  return out;
}

std::string fidelity_runs_html(const FidelityResult& r) {
  std::string out = "<section id=\"runs\"><h2>Runs</h2>\n<table>\n<tr><th>run</th><th>makespan</th><th>mean wait</th>"
                    "<th>pods</th></tr>\n";
  for (const auto* list : {&r.measured, &r.simulated})
    for (const auto& f : *list)
      out += "<tr><td>" + svg::escape(f.label) + "</td><td>" + human::duration(f.makespan) + "</td><td>" +
             human::duration(f.mean_wait) + "</td><td>" + human::count(f.waits.size()) + "</td></tr>\n";
  return out + "</table>\n</section>\n";
}

}  // namespace

// The answer first (the sentence and the per-pod waits' ECDFs), then the summary table, the
// other charts, the runs, and what was replayed how.
std::string fidelity_report_html(const FidelityResult& r) {
  const DistributionCharts waits = distribution_charts(r, true), startups = distribution_charts(r, false);
  std::string out = html_report_head("kubesim fidelity: measured runs beside simulated replays",
                                     ".inside{color:#1a7f37;}.outside{color:#b42318;font-weight:bold;}\n");
  out += html_headline(fidelity_headline(r), waits.ecdf, waits.ecdf.empty() ? "" : "Per-pod waits, measured and simulated.");
  out += fidelity_summary_html(r);
  if (!waits.qq.empty()) out += "<section id=\"wait\"><h2>Per-pod wait (Started − submission)</h2>\n<figure class=\"chart\">" + waits.qq + "</figure>\n</section>\n";
  if (!startups.ecdf.empty())
    out += "<section id=\"startup\"><h2>Per-pod start-up (Started − Scheduled)</h2>\n<figure class=\"chart\">" + startups.ecdf +
           "</figure>\n<figure class=\"chart\">" + startups.qq + "</figure>\n</section>\n";
  out += fidelity_runs_html(r);
  out += "<section id=\"parameters\"><h2>Replays</h2>\n<p>Model <b>" + svg::escape(r.model) +
         "</b>; each measured run replayed with its own submission times, seeds 1.." + std::to_string(r.seeds) +
         (r.stamped_by_batkube_submitter
              ? "; the replays' pods stamped as the Batkube submitter stamped the measured ones (one Event "
                "handler, its Scheduled GETs through a 5 QPS / burst 10 client: src/calibrate/observer.hpp)"
              : "") +
         ".</p>\n</section>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace kubesim::calibrate
