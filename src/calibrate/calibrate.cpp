#include "calibrate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "engine/model_config.hpp"
#include "report/svg_chart.hpp"

namespace kubesim::calibrate {

namespace {

// The interval a latency is measured as, per pod; NaN when a timestamp is missing.
struct IntervalSpec {
  const char* key;
  const char* interval;
  double (*measure)(const PodTimeline&);
};

double pod_startup(const PodTimeline& p) { return p.pulling - p.scheduled; }
double image_pull(const PodTimeline& p) { return known(p.pull_duration) ? p.pull_duration : p.pulled - p.pulling; }
double container_create(const PodTimeline& p) { return p.created - p.pulled; }
double container_start(const PodTimeline& p) { return p.started - p.created; }
double completion(const PodTimeline& p) { return p.finished - p.started - p.run_time; }

// A draw of `d` rounded down to the resolution of its two ends, from a random instant (what
// a measurement of that resolution records).
double observed(double start, double d, double res_start, double res_end) {
  auto floor_to = [](double t, double r) { return r > 0 ? std::floor(t / r) * r : t; };
  return floor_to(start + d, res_end) - floor_to(start, res_start);
}

}  // namespace

Calibration calibrate(const std::vector<MeasuredRun>& runs) {
  if (runs.empty()) throw InputError("calibrate", 0, "no measured runs");
  Calibration c;
  std::map<std::string, std::uint64_t> skipped_index;
  for (const auto& run : runs) {
    c.sources.push_back(run.source);
    for (const auto& [reason, n] : run.skipped.by_reason) {
      if (!skipped_index.count(reason)) {
        skipped_index[reason] = c.skipped.size();
        c.skipped.emplace_back(reason, 0);
      }
      c.skipped[skipped_index[reason]].second += n;
    }
  }
  const ModelConfig realistic = ModelConfig::realistic();
  const double pleg = realistic.kubelet.pleg_relist_period.to_seconds();
  const double ks_res = runs.front().kubelet_resolution, sched_res = runs.front().scheduled_resolution;
  for (const auto& r : runs)
    if (r.kubelet_resolution != ks_res || r.scheduled_resolution != sched_res)
      throw InputError(r.source, 0, "runs of different timestamp resolutions (jobs.csv and cluster) cannot be fitted together");
  // Timestamps truncated to r seconds (metav1.Time drops the fraction) read on average r/2
  // early: an interval from a truncated start to a finer end reads r/2 long. `rounding`
  // is the variance the truncation of both ends adds, `truncation_bias` the mean.
  auto rounding = [](double a, double b) { return (a * a + b * b) / 12; };
  auto truncation_bias = [](double res_start, double res_end) { return (res_start - res_end) / 2; };
  Distribution watch_delay;  // fitted first: the kubelet's start-up includes one watch
  const bool coarse_kubelet = ks_res >= 1e-3 * 10;  // whole-second kubelet timestamps

  {  // watchDelay from the submission -> Scheduled pipeline of pods that found room at once
    FittedLatency f;
    f.key = "watchDelay";
    const int hops = runs.front().submission_watch_hops;
    f.interval = "submission -> Scheduled of pods scheduled before the first completion, minus schedulingCycle "
                 "and bindLatency, over " + std::to_string(hops) + " watch hop(s)";
    for (const auto& run : runs) {
      double first_finish = kUnknown;
      for (const auto& p : run.pods) {
        const double exit = known(p.started) && known(p.run_time) ? p.started + p.run_time : kUnknown;
        if (known(exit) && (!known(first_finish) || exit < first_finish)) first_finish = exit;
      }
      for (const auto& p : run.pods) {
        const double d = p.scheduled - p.submitted;
        if (!known(d) || d < 0 || !known(first_finish) || p.scheduled >= first_finish) {
          ++f.skipped;
          continue;
        }
        f.measured.push_back(d);
      }
    }
    if (f.measured.empty()) throw InputError(runs.front().source, 0, "no pod was scheduled before the first completion");
    const Distribution& cycle = realistic.scheduler.cycle;
    const Distribution& bind = realistic.scheduler.bind;
    std::vector<double> per_hop;
    for (double d : f.measured) per_hop.push_back(d / hops);
    // Submission: the pod's (or Job's) creationTimestamp, whole seconds from a cluster.
    const double created_res = coarse_kubelet ? 1.0 : 0.001;
    f.fit = fit_by_moments(per_hop, (cycle.mean() + bind.mean() + truncation_bias(created_res, sched_res)) / hops,
                           (cycle.variance() + bind.variance() + rounding(created_res, sched_res)) / (hops * hops));
    RandomStream rng(1, "calibrate/watchDelay");
    for (std::size_t i = 0, n = std::max<std::size_t>(4000, f.measured.size() * 4); i < n; ++i) {
      double d = cycle.sample(rng).to_seconds() + bind.sample(rng).to_seconds();
      for (int h = 0; h < hops; ++h) d += f.fit.distribution.sample(rng).to_seconds();
      f.modelled.push_back(observed(rng.uniform01() * 1000, d, created_res, sched_res));
    }
    watch_delay = f.fit.distribution;
    c.latencies.push_back(std::move(f));
  }
  static const IntervalSpec kKubeletSteps[] = {
      {"podStartup", "Scheduled -> Pulling", pod_startup},
      {"imagePull", "Pulling -> Pulled", image_pull},
      {"containerCreate", "Pulled -> Created", container_create},
      {"containerStart", "Created -> Started", container_start},
  };
  for (const auto& step : kKubeletSteps) {
    FittedLatency f;
    f.key = step.key;
    f.interval = step.interval;
    bool precise_pull = false;
    for (const auto& run : runs)
      for (const auto& p : run.pods) {
        const double d = step.measure(p);
        // Truncated ends can read a short interval slightly negative: kept, or the mean would
        // be biased; a fine-grained negative interval is out of order and skipped.
        if (!known(d) || d < (coarse_kubelet ? -1.0 : 0.0)) {
          ++f.skipped;
          continue;
        }
        precise_pull = precise_pull || known(p.pull_duration);
        f.measured.push_back(d);
      }
    if (f.measured.empty())
      throw InputError(runs.front().source, 0, std::string("no pod has both timestamps of ") + step.interval + " (" + step.key + ")");
    const double res_a = f.key == "podStartup" ? sched_res : ks_res;
    const bool exact = f.key == "imagePull" && precise_pull;
    // The kubelet learns of the binding through its watch: podStartup is what remains of
    // Scheduled -> Pulling after the fitted watch delay.
    const double shift = f.key == "podStartup" ? watch_delay.mean() : 0.0;
    if (shift > 0) f.interval += ", minus watchDelay's mean";
    if (exact || !coarse_kubelet) {
      std::vector<double> shifted;
      for (double d : f.measured) shifted.push_back(std::max(d - shift, 1e-6));
      f.fit = fit_by_likelihood(std::move(shifted));
    } else {
      f.fit = fit_by_moments(f.measured, shift + truncation_bias(res_a, ks_res),
                             rounding(res_a, ks_res) + (shift > 0 ? watch_delay.variance() : 0.0));
      f.interval += " (whole-second timestamps)";
    }
    RandomStream rng(1, std::string("calibrate/") + f.key);
    const std::size_t draws = std::max<std::size_t>(4000, f.measured.size() * 4);
    for (std::size_t i = 0; i < draws; ++i) {
      double d = f.fit.distribution.sample(rng).to_seconds();
      if (f.key == "podStartup") d += watch_delay.sample(rng).to_seconds();
      const double start = rng.uniform01() * 1000;
      f.modelled.push_back(exact ? d : observed(start, d, res_a, ks_res));
    }
    c.latencies.push_back(std::move(f));
  }

  {  // statusUpdateLatency: completion seen - exit = PLEG wait + status update (+ the rest)
    FittedLatency f;
    f.key = "statusUpdateLatency";
    f.interval = "completion seen - (Started + run time), minus the PLEG wait";
    for (const auto& run : runs)
      for (const auto& p : run.pods) {
        const double d = completion(p);
        if (!known(d) || d < -0.5) {  // a container cannot be seen finishing before it ran
          ++f.skipped;
          continue;
        }
        f.measured.push_back(d);
      }
    if (f.measured.empty()) throw InputError(runs.front().source, 0, "no pod has Started, its run time and completion");
    f.fit = fit_by_moments(f.measured, pleg / 2, pleg * pleg / 12 + rounding(ks_res, ks_res));
    if (!runs.front().finish_meaning.empty()) f.interval += " (completion: " + runs.front().finish_meaning + ")";
    RandomStream rng(1, "calibrate/statusUpdateLatency");
    for (std::size_t i = 0, n = std::max<std::size_t>(4000, f.measured.size() * 4); i < n; ++i) {
      const double d = rng.uniform01() * pleg + f.fit.distribution.sample(rng).to_seconds();
      f.modelled.push_back(observed(rng.uniform01() * 1000, d, ks_res, ks_res));
    }
    c.latencies.push_back(std::move(f));
  }

  for (auto& f : c.latencies) f.ks = ks_distance(f.measured, f.modelled);
  return c;
}

std::string calibration_yaml(const Calibration& c) {
  std::string out = "# kubesim latency model, fitted by `kubesim calibrate` from:\n";
  for (const auto& s : c.sources) out += "#   " + s + "\n";
  out += "# Criterion: maximum likelihood per family (fixed, uniform, normal, lognormal, exponential),\n"
         "# smallest AIC; moments (normal) where timestamps have whole seconds or the latency is one\n"
         "# term of a measured sum (see src/calibrate/fit.hpp). Not observable in these measurements,\n"
         "# kept at the realistic model's: schedulingCycle, bindLatency, statusPatchLatency,\n"
         "# plegRelistPeriod (1 s, the kubelet's default).\n";
  if (!c.skipped.empty()) {
    out += "# Skipped input:";
    for (const auto& [reason, n] : c.skipped) out += " " + std::to_string(n) + " " + reason + ";";
    out.back() = '\n';
  }
  for (const auto& f : c.latencies) {
    char stats[200];
    std::snprintf(stats, sizeof stats, "%zu pods (%zu skipped), measured mean %s s sd %s s, fitted mean %s s, KS %s",
                  f.measured.size(), f.skipped, format_seconds_value(mean_of(f.measured)).c_str(),
                  format_seconds_value(std::sqrt(variance_of(f.measured, mean_of(f.measured)))).c_str(),
                  format_seconds_value(f.fit.distribution.mean()).c_str(), format_seconds_value(f.ks).c_str());
    out += "# " + f.key + ": " + f.interval + "; " + f.fit.method + "; " + stats + "\n";
    out += f.key + ": " + f.fit.spec + "\n";
  }
  return out;
}

std::string calibration_report_html(const Calibration& c) {
  const auto esc = [](const std::string& s) { return svg::escape(s); };
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kubesim calibration</title>\n"
      "<style>\n"
      "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;padding:0 12px;color:#222;}\n"
      "h1{font-size:24px;margin-bottom:4px;}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc;}\n"
      "table{border-collapse:collapse;font-size:13px;margin:8px 0;}\n"
      "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;}\n"
      "th{background:#f0f0f0;}td:first-child,th:first-child{text-align:left;}\n"
      "figure.chart{margin:12px 0;}figure.chart svg{max-width:100%;height:auto;border:1px solid #ddd;}\n"
      "</style>\n</head>\n<body>\n<h1>kubesim calibration</h1>\n<section id=\"sources\"><h2>Measurements</h2>\n<ul>\n";
  for (const auto& s : c.sources) out += "<li>" + esc(s) + "</li>\n";
  out += "</ul>\n";
  for (const auto& [reason, n] : c.skipped) out += "<p>Skipped: " + std::to_string(n) + " " + esc(reason) + "</p>\n";
  out += "</section>\n<section id=\"fits\"><h2>Fitted latencies</h2>\n<table>\n<tr><th>key</th><th>measured as</th>"
         "<th>pods</th><th>skipped</th><th>measured mean (s)</th><th>fit</th><th>method</th><th>KS</th></tr>\n";
  for (const auto& f : c.latencies)
    out += "<tr><td>" + esc(f.key) + "</td><td>" + esc(f.interval) + "</td><td>" + std::to_string(f.measured.size()) +
           "</td><td>" + std::to_string(f.skipped) + "</td><td>" + format_seconds_value(mean_of(f.measured)) +
           "</td><td>" + esc(f.fit.spec) + "</td><td>" + esc(f.fit.method) + "</td><td>" + svg::num(f.ks, 3) +
           "</td></tr>\n";
  out += "</table>\n</section>\n";
  for (const auto& f : c.latencies) {
    out += "<section class=\"latency\" id=\"" + esc(f.key) + "\"><h2>" + esc(f.key) + "</h2>\n";
    if (!f.fit.candidates.empty()) {
      out += "<table><tr><th>candidate (maximum likelihood)</th><th>AIC</th></tr>\n";
      for (const auto& cand : f.fit.candidates)
        out += "<tr><td>" + esc(cand.spec) + (cand.spec == f.fit.spec ? " (chosen)" : "") + "</td><td>" +
               (std::isfinite(cand.aic) ? svg::num(cand.aic, 1) : "-inf") + "</td></tr>\n";
      out += "</table>\n";
    }
    // Histogram of the measured interval and of the fitted model's, over the central
    // 99% of the measurements (a heavy tail would squeeze the rest into one bin).
    std::vector<double> m = f.measured;
    std::sort(m.begin(), m.end());
    const double lo = m.front();
    double hi = m[static_cast<std::size_t>(0.99 * static_cast<double>(m.size() - 1))];
    if (hi <= lo) hi = lo + 1e-3;
    constexpr int kBins = 40;
    const double width = (hi - lo) / kBins;
    auto histogram = [&](const std::vector<double>& v) {
      std::vector<double> h(kBins, 0.0);
      for (double x : v) {
        const int b = static_cast<int>(std::floor((x - lo) / width));
        if (b >= 0 && b < kBins) h[b] += 1.0;
      }
      for (double& x : h) x = x / static_cast<double>(v.size()) / width;  // density
      return h;
    };
    svg::ChartSpec spec;
    spec.id = "hist-" + f.key;
    spec.title = f.key + ": " + f.interval;
    spec.subtitle = "density per second; fit " + f.fit.spec + ", KS distance " + svg::num(f.ks, 3);
    spec.x_label = "seconds";
    spec.y_label = "density";
    for (int b = 0; b < kBins; ++b) spec.x.push_back(lo + (b + 0.5) * width);
    spec.series.push_back({"measured", svg::palette_color(0), svg::Series::Style::kLine, "", histogram(f.measured)});
    spec.series.push_back({"fitted model", svg::palette_color(1), svg::Series::Style::kLine, "6 3", histogram(f.modelled)});
    spec.x_min = lo;
    spec.x_max = hi;
    out += "<figure class=\"chart\">" + svg::line_chart_svg(spec) + "</figure>\n</section>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace kubesim::calibrate
