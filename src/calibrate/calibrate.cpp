#include "calibrate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "calibrate/observer.hpp"
#include "core/error.hpp"
#include "engine/model_config.hpp"
#include "report/html_page.hpp"
#include "report/human_format.hpp"
#include "report/svg_chart.hpp"

namespace kubesim::calibrate {

namespace {

// The interval a latency is measured as, per pod; NaN when a timestamp is missing.
struct IntervalSpec {
  const char* key;
  const char* interval;
  double (*measure)(const PodTimeline&);
  bool HeldStamps::*from;  // the interval's ends, in the measuring client's stamps
  bool HeldStamps::*to;
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

// Otsu's threshold: the split of `sorted` into [0, k) and [k, n) of least within-class
// variance (largest between-class variance). Returns k (0 when n < 4).
std::size_t otsu_split(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n < 4) return 0;
  double total = 0;
  for (double x : sorted) total += x;
  double left = 0, best = -1;
  std::size_t best_k = 0;
  for (std::size_t k = 1; k < n; ++k) {
    left += sorted[k - 1];
    if (sorted[k] == sorted[k - 1]) continue;  // a threshold lies between distinct values
    const double wl = static_cast<double>(k), wr = static_cast<double>(n - k);
    const double ml = left / wl, mr = (total - left) / wr;
    const double between = wl * wr * (ml - mr) * (ml - mr);
    if (between > best) {
      best = between;
      best_k = k;
    }
  }
  return best_k;
}

double best_aic(const Fit& f) {
  double a = std::numeric_limits<double>::infinity();
  for (const auto& c : f.candidates) a = std::min(a, c.aic);
  return a;
}

// Two modes in one interval (calibrate.hpp): the Otsu split of the values, kept when its AIC
// (each class fitted by maximum likelihood, plus the class share and the threshold) beats the
// best single fit. `high` holds the upper class minus the lower class's mean.
struct TwoModes {
  bool split = false;
  double threshold = 0;
  Fit low, high;
  std::vector<double> low_values, high_values;
  double aic_single = 0, aic_split = 0;
};

TwoModes two_modes(std::vector<double> v) {
  TwoModes m;
  std::sort(v.begin(), v.end());
  const std::size_t k = otsu_split(v);
  if (k < 2 || v.size() - k < 2) return m;
  m.aic_single = best_aic(fit_by_likelihood(v));
  m.low_values.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k));
  m.low = fit_by_likelihood(m.low_values);
  const double base = mean_of(m.low_values);
  for (std::size_t i = k; i < v.size(); ++i) m.high_values.push_back(std::max(v[i] - base, 1e-6));
  m.high = fit_by_likelihood(m.high_values);
  const double n = static_cast<double>(v.size()), pi = static_cast<double>(k) / n;
  // Hard-split likelihood: each class's fit times its share; the upper fit is of shifted
  // values, the same likelihood up to the shift.
  m.aic_split = best_aic(m.low) + best_aic(m.high) + 4 -
                2 * (static_cast<double>(k) * std::log(pi) + (n - static_cast<double>(k)) * std::log(1 - pi));
  m.threshold = (v[k - 1] + v[k]) / 2;
  m.split = m.aic_split < m.aic_single;
  return m;
}

// The stalled starts of podStartup (calibrate.hpp). `shift` is subtracted from Scheduled ->
// Pulling (the watch delay's mean) before fitting.
struct StallSplit {
  bool found = false;
  double threshold = 0;  // Scheduled -> Pulling above it: stalled
  TwoModes modes;
  FittedProbability first, after_unstalled, after_stalled;
};

StallSplit find_stalls(const std::vector<MeasuredRun>& runs, const std::vector<double>& measured, double shift) {
  StallSplit s;
  std::vector<double> v = measured;
  for (double& d : v) d = std::max(d - shift, 1e-6);
  s.modes = two_modes(std::move(v));
  if (!s.modes.split) return s;
  s.threshold = s.modes.threshold + shift;
  s.first = {"podStartupStallProbabilityFirst", "stalled starts among the first pods of a node", 0, 0};
  s.after_unstalled = {"podStartupStallProbabilityAfterUnstalled",
                       "stalled starts among pods following, on their node, a start that did not stall", 0, 0};
  s.after_stalled = {"podStartupStallProbabilityAfterStalled",
                     "stalled starts among pods following, on their node, a stalled start", 0, 0};
  for (const auto& run : runs) {
    double first_exit = kUnknown;
    for (const auto& p : run.pods) {
      const double exit = known(p.started) && known(p.run_time) ? p.started + p.run_time : kUnknown;
      if (known(exit) && (!known(first_exit) || exit < first_exit)) first_exit = exit;
    }
    std::map<std::string, std::vector<const PodTimeline*>> by_node;
    for (const auto& p : run.pods)
      if (!p.node.empty() && known(p.scheduled) && known(p.pulling) && known(p.run_time)) by_node[p.node].push_back(&p);
    for (auto& [node, pods] : by_node) {
      std::sort(pods.begin(), pods.end(), [](const PodTimeline* a, const PodTimeline* b) {
        return a->scheduled < b->scheduled || (a->scheduled == b->scheduled && a->id < b->id);
      });
      for (std::size_t i = 0; i < pods.size(); ++i) {
        const bool stalled = pods[i]->pulling - pods[i]->scheduled > s.threshold;
        FittedProbability* slot = nullptr;
        if (i == 0) {
          if (known(first_exit) && pods[i]->scheduled < first_exit) slot = &s.first;
        } else if (pods[i]->scheduled - pods[i - 1]->scheduled < 2 * pods[i - 1]->run_time) {
          slot = pods[i - 1]->pulling - pods[i - 1]->scheduled > s.threshold ? &s.after_stalled : &s.after_unstalled;
        }
        if (slot) {
          slot->trials += 1;
          slot->hits += stalled;
        }
      }
    }
  }
  // The rule needs the node's history: without nodes (or without successive pods on one)
  // the split is not kept.
  s.found = s.first.trials > 0 && s.after_unstalled.trials > 0;
  return s;
}

// The image downloads of imagePull (calibrate.hpp).
struct Downloads : TwoModes {
  std::vector<double> raw_high;  // the download pulls' durations
  std::size_t first_pulls = 0, first_pulls_downloading = 0;
};

Downloads find_downloads(const std::vector<MeasuredRun>& runs, const std::vector<double>& measured) {
  Downloads d;
  static_cast<TwoModes&>(d) = two_modes(measured);
  if (!d.split) return d;
  std::size_t downloads = 0;
  for (const auto& run : runs) {
    std::map<std::string, const PodTimeline*> first;  // node -> its first pull
    for (const auto& p : run.pods) {
      const double pull = image_pull(p);
      if (!known(pull)) continue;
      if (pull > d.threshold) {
        ++downloads;
        d.raw_high.push_back(pull);
      }
      if (p.node.empty() || !known(p.pulling)) continue;
      auto [it, fresh] = first.emplace(p.node, &p);
      if (!fresh && (p.pulling < it->second->pulling || (p.pulling == it->second->pulling && p.id < it->second->id)))
        it->second = &p;
    }
    for (const auto& [node, p] : first) {
      ++d.first_pulls;
      if (image_pull(*p) > d.threshold) ++d.first_pulls_downloading;
    }
  }
  // The mechanism explains the upper mode only if every download is a node's first pull.
  if (downloads == 0 || d.first_pulls_downloading != downloads) d.split = false;
  std::sort(d.raw_high.begin(), d.raw_high.end());
  return d;
}

// The timestamps' resolutions (seconds) of every run (they must agree).
struct Resolutions {
  double kubelet = 0;    // the kubelet's Events
  double scheduled = 0;  // the Scheduled stamp
  bool coarse_kubelet = false;  // whole-second kubelet timestamps
};

// Timestamps truncated to r seconds (metav1.Time drops the fraction) read on average r/2
// early: an interval from a truncated start to a finer end reads r/2 long. `rounding` is the
// variance the truncation of both ends adds, `truncation_bias` the mean.
double rounding(double a, double b) { return (a * a + b * b) / 12; }
double truncation_bias(double res_start, double res_end) { return (res_start - res_end) / 2; }

// How many values to draw from a fitted model for its comparison with the measured ones.
std::size_t draws(const FittedLatency& f) { return std::max<std::size_t>(4000, f.measured.size() * 4); }

// The runs' sources, and their skipped pods summed by reason in first-seen order.
void add_sources(const std::vector<MeasuredRun>& runs, Calibration& c) {
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
}

Resolutions resolutions_of(const std::vector<MeasuredRun>& runs) {
  Resolutions res{runs.front().kubelet_resolution, runs.front().scheduled_resolution, false};
  for (const auto& r : runs)
    if (r.kubelet_resolution != res.kubelet || r.scheduled_resolution != res.scheduled)
      throw InputError(r.source, 0, "runs of different timestamp resolutions (jobs.csv and cluster) cannot be fitted together");
  res.coarse_kubelet = res.kubelet >= 1e-3 * 10;
  return res;
}

// watchDelay from the submission -> Scheduled pipeline of pods that found room at once
// (fitted first: the kubelet's start-up includes one watch).
FittedLatency fit_watch_delay(const std::vector<MeasuredRun>& runs, const ModelConfig& realistic, const Resolutions& res) {
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
  const double created_res = res.coarse_kubelet ? 1.0 : 0.001;
  f.fit = fit_by_moments(per_hop, (cycle.mean() + bind.mean() + truncation_bias(created_res, res.scheduled)) / hops,
                         (cycle.variance() + bind.variance() + rounding(created_res, res.scheduled)) / (hops * hops));
  RandomStream rng(1, "calibrate/watchDelay");
  for (std::size_t i = 0, n = draws(f); i < n; ++i) {
    double d = cycle.sample(rng).to_seconds() + bind.sample(rng).to_seconds();
    for (int h = 0; h < hops; ++h) d += f.fit.distribution.sample(rng).to_seconds();
    f.modelled.push_back(observed(rng.uniform01() * 1000, d, created_res, res.scheduled));
  }
  return f;
}

constexpr IntervalSpec kKubeletSteps[] = {
    {"podStartup", "Scheduled -> Pulling", pod_startup, &HeldStamps::scheduled, &HeldStamps::pulling},
    {"imagePull", "Pulling -> Pulled", image_pull, &HeldStamps::pulling, &HeldStamps::pulled},
    {"containerCreate", "Pulled -> Created", container_create, &HeldStamps::pulled, &HeldStamps::created},
    {"containerStart", "Created -> Started", container_start, &HeldStamps::created, &HeldStamps::started},
};

// The step's intervals into f.measured (skipping the unknown, the out of order and those with
// an end the measuring client held); returns whether a pull's duration came from its Pulled
// message (exact).
bool measure_step(const std::vector<MeasuredRun>& runs, const std::vector<std::vector<HeldStamps>>& held,
                  const IntervalSpec& step, const Resolutions& res, FittedLatency& f) {
  bool precise_pull = false;
  std::size_t skipped_held = 0;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t i = 0; i < runs[r].pods.size(); ++i) {
      const PodTimeline& p = runs[r].pods[i];
      // (A pull's duration from its Pulled message is the kubelet's own, never held.)
      const bool pull_message = f.key == "imagePull" && known(p.pull_duration);
      if (!pull_message && (held[r][i].*step.from || held[r][i].*step.to)) {
        ++skipped_held;
        continue;
      }
      const double d = step.measure(p);
      // Truncated ends can read a short interval slightly negative: kept, or the mean would
      // be biased; a fine-grained negative interval is out of order and skipped.
      if (!known(d) || d < (res.coarse_kubelet ? -1.0 : 0.0)) {
        ++f.skipped;
        continue;
      }
      precise_pull = precise_pull || known(p.pull_duration);
      f.measured.push_back(d);
    }
  if (f.measured.empty())
    throw InputError(runs.front().source, 0, std::string("no pod has both timestamps of ") + step.interval + " (" + step.key + ")");
  if (skipped_held > 0) {
    f.skipped += skipped_held;
    f.interval += ", without the " + std::to_string(skipped_held) +
                  " pods with an end stamped late by the submitter's client limit (observer.hpp)";
  }
  return precise_pull;
}

// The kubelet step measured in `f`, fitted: podStartup's starts that did not stall and
// imagePull's pulls that did not download (their other mode in `stalls` / `downloads`), or
// one fit of all (by likelihood where timestamps are fine, by moments where whole seconds).
// Its model is drawn with `shift` (podStartup: the watch delay) added and the stamps'
// truncation (`res_start` to the kubelet's), unless `exact`.
void fit_kubelet_step(FittedLatency& f, const std::vector<MeasuredRun>& runs, const Resolutions& res, double res_start,
                      bool exact, const Distribution& watch_delay, StallSplit& stalls, Downloads& downloads) {
  const double shift = f.key == "podStartup" ? watch_delay.mean() : 0.0;
  if (shift > 0) f.interval += ", minus watchDelay's mean";
  if (f.key == "podStartup" && !res.coarse_kubelet && (stalls = find_stalls(runs, f.measured, shift)).found) {
    f.fit = stalls.modes.low;
    f.interval += ", of the starts that did not stall (at most " + format_seconds_value(stalls.threshold) +
                  " s; split AIC " + svg::num(stalls.modes.aic_split, 1) + " against " + svg::num(stalls.modes.aic_single, 1) +
                  " for one fit)";
    std::vector<double> unstalled;
    for (double d : f.measured)
      if (d <= stalls.threshold) unstalled.push_back(d);
    f.skipped += f.measured.size() - unstalled.size();
    f.measured = std::move(unstalled);
  } else if (f.key == "imagePull" && (exact || !res.coarse_kubelet) && (downloads = find_downloads(runs, f.measured)).split) {
    f.fit = downloads.low;
    f.interval += ", of the pulls that did not download the image (at most " +
                  format_seconds_value(downloads.threshold) + " s; split AIC " + svg::num(downloads.aic_split, 1) +
                  " against " + svg::num(downloads.aic_single, 1) + " for one fit)";
    f.skipped += downloads.high_values.size();
    f.measured = downloads.low_values;
  } else if (exact || !res.coarse_kubelet) {
    std::vector<double> shifted;
    for (double d : f.measured) shifted.push_back(std::max(d - shift, 1e-6));
    f.fit = fit_by_likelihood(std::move(shifted));
  } else {
    f.fit = fit_by_moments(f.measured, shift + truncation_bias(res_start, res.kubelet),
                           rounding(res_start, res.kubelet) + (shift > 0 ? watch_delay.variance() : 0.0));
    f.interval += " (whole-second timestamps)";
  }
  RandomStream rng(1, std::string("calibrate/") + f.key);
  for (std::size_t i = 0, n = draws(f); i < n; ++i) {
    double d = f.fit.distribution.sample(rng).to_seconds();
    if (f.key == "podStartup") d += watch_delay.sample(rng).to_seconds();
    const double start = rng.uniform01() * 1000;
    f.modelled.push_back(exact ? d : observed(start, d, res_start, res.kubelet));
  }
}

// podStartupStall: the stalled starts' mode.
FittedLatency stall_latency(const StallSplit& stalls) {
  FittedLatency st;
  st.key = "podStartupStall";
  st.interval = "Scheduled -> Pulling of the stalled starts (above " + format_seconds_value(stalls.threshold) +
                " s) minus the others' mean";
  st.measured = stalls.modes.high_values;
  st.fit = stalls.modes.high;
  RandomStream srng(1, "calibrate/podStartupStall");
  for (std::size_t i = 0, n = draws(st); i < n; ++i) st.modelled.push_back(st.fit.distribution.sample(srng).to_seconds());
  return st;
}

// imagePullFirst: the pulls that downloaded the image, applied only if every node's first
// pull did.
FittedLatency download_latency(const Downloads& downloads) {
  FittedLatency dl;
  dl.key = "imagePullFirst";
  dl.interval = "Pulling -> Pulled of the pulls above " + format_seconds_value(downloads.threshold) +
                " s, each the first pull on its node in its run";
  dl.measured = downloads.raw_high;
  dl.fit = fit_by_likelihood(dl.measured);
  RandomStream drng(1, "calibrate/imagePullFirst");
  for (std::size_t i = 0, n = draws(dl); i < n; ++i) dl.modelled.push_back(dl.fit.distribution.sample(drng).to_seconds());
  dl.commented = downloads.first_pulls_downloading < downloads.first_pulls;
  dl.note = std::to_string(downloads.first_pulls_downloading) + " of the " + std::to_string(downloads.first_pulls) +
            " first pulls on a node downloaded the image" +
            (dl.commented ? ": the other nodes had it already, so it is not applied (set imagePullFirst for a "
                            "cluster whose nodes do not have the image)"
                          : "");
  return dl;
}

// The kubelet's steps (kKubeletSteps) in order, each followed by its other mode when it has two.
void fit_kubelet_steps(const std::vector<MeasuredRun>& runs, const Resolutions& res, const Distribution& watch_delay,
                       Calibration& c) {
  // Stamps the measuring client held (observer.hpp): a Scheduled stamped late by its
  // client-side limit, an Event queued behind such a GET. An interval with a held end is the
  // client's, not the cluster's, so the kubelet's steps are fitted without them (`kubesim
  // fidelity` puts the replays through the same client).
  std::vector<std::vector<HeldStamps>> held;
  for (const auto& run : runs)
    held.push_back(run.stamped_by_batkube_submitter ? held_by_batkube_submitter(run)
                                                    : std::vector<HeldStamps>(run.pods.size()));
  StallSplit stalls;
  Downloads downloads;
  for (const auto& step : kKubeletSteps) {
    FittedLatency f;
    f.key = step.key;
    f.interval = step.interval;
    const bool precise_pull = measure_step(runs, held, step, res, f);
    const double res_start = f.key == "podStartup" ? res.scheduled : res.kubelet;
    const bool exact = f.key == "imagePull" && precise_pull;
    fit_kubelet_step(f, runs, res, res_start, exact, watch_delay, stalls, downloads);
    c.latencies.push_back(std::move(f));
    if (step.key == std::string("podStartup") && stalls.found) {
      c.latencies.push_back(stall_latency(stalls));
      c.probabilities = {stalls.first, stalls.after_unstalled, stalls.after_stalled};
    }
    if (step.key == std::string("imagePull") && downloads.split) c.latencies.push_back(download_latency(downloads));
  }
}

// statusUpdateLatency: completion seen - exit = PLEG wait + status update (+ the rest).
FittedLatency fit_status_update(const std::vector<MeasuredRun>& runs, double pleg, const Resolutions& res) {
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
  f.fit = fit_by_moments(f.measured, pleg / 2, pleg * pleg / 12 + rounding(res.kubelet, res.kubelet));
  if (!runs.front().finish_meaning.empty()) f.interval += " (completion: " + runs.front().finish_meaning + ")";
  RandomStream rng(1, "calibrate/statusUpdateLatency");
  for (std::size_t i = 0, n = draws(f); i < n; ++i) {
    const double d = rng.uniform01() * pleg + f.fit.distribution.sample(rng).to_seconds();
    f.modelled.push_back(observed(rng.uniform01() * 1000, d, res.kubelet, res.kubelet));
  }
  return f;
}

}  // namespace

Calibration calibrate(const std::vector<MeasuredRun>& runs) {
  if (runs.empty()) throw InputError("calibrate", 0, "no measured runs");
  Calibration c;
  add_sources(runs, c);
  const ModelConfig realistic = ModelConfig::realistic();
  const double pleg = realistic.kubelet.pleg_relist_period.to_seconds();
  const Resolutions res = resolutions_of(runs);
  c.latencies.push_back(fit_watch_delay(runs, realistic, res));
  const Distribution watch_delay = c.latencies.back().fit.distribution;
  fit_kubelet_steps(runs, res, watch_delay, c);
  c.latencies.push_back(fit_status_update(runs, pleg, res));
  for (auto& f : c.latencies) {
    // The model file must be one `run` reads (fuzz/calibrate_inputs_fuzz).
    if (!f.commented && !within_latency_limit(f.fit.distribution))
      throw InputError(runs.front().source, 0,
                       f.key + ": the measurements fit " + f.fit.spec +
                           ", beyond the model's latency limit (mean and deviation at most 86400 s)");
    f.ks = ks_distance(f.measured, f.modelled);
  }
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
    if (!f.note.empty()) out += "# " + f.key + ": " + f.note + "\n";
    out += (f.commented ? "# " : "") + f.key + ": " + f.fit.spec + "\n";
    if (f.key == "podStartupStall")
      for (const auto& p : c.probabilities)
        out += "# " + p.key + ": " + p.counted + ": " + std::to_string(p.hits) + " of " + std::to_string(p.trials) +
               "\n" + p.key + ": " + format_seconds_value(p.value()) + "\n";
  }
  return out;
}

std::string calibration_headline(const Calibration& c) {
  if (c.latencies.empty()) return "No latency could be fitted from these measurements.";
  std::size_t pods = 0;
  std::string poor;
  std::size_t n_poor = 0;
  for (const auto& f : c.latencies) {
    pods = std::max(pods, f.measured.size());
    if (f.ks <= kPoorFitKs) continue;
    poor += (n_poor++ ? ", " : "") + f.key + " (KS " + svg::num(f.ks, 3) + ")";
  }
  std::string out = "Fitted " + std::to_string(c.latencies.size()) + " latencies from up to " + std::to_string(pods) +
                    " pods each; ";
  if (n_poor == 0) return out + "every fit is close to its measurements (KS distance at most " + svg::num(kPoorFitKs, 1) + ").";
  return out + std::to_string(n_poor) + " fit(s) poor (KS distance above " + svg::num(kPoorFitKs, 1) + "): " + poor +
         "; check those measurements or set them by hand.";
}

namespace {

// A fitted distribution for people: "normal, mean 0.081 s, sd 0.0701 s" (the model file keeps
// every digit of its spec).
std::string human_fit(const std::string& spec) {
  const Distribution d = Distribution::parse(spec, "calibrate", 0);
  const std::string family = spec.substr(0, spec.find(':'));
  if (family == "fixed") return "fixed " + human::duration(d.mean());
  return family + ", mean " + human::duration(d.mean()) + ", sd " + human::duration(std::sqrt(d.variance()));
}

// The decisive chart: each latency's KS distance as a bar, with the poor-fit line.
std::string ks_chart_svg(const Calibration& c) {
  std::size_t longest = 0;
  for (const auto& f : c.latencies) longest = std::max(longest, f.key.size());
  // About 7 px a character at 12 px, so that no label is cut.
  const double label_w = 7.0 * static_cast<double>(longest) + 16, plot_w = 520, row_h = 22, top = 34;
  const double height = top + row_h * static_cast<double>(c.latencies.size()) + 26;
  const auto px = [&](double v) { return label_w + v * plot_w; };
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"ks-chart\" width=\"" + svg::num(label_w + plot_w + 24) +
                    "\" height=\"" + svg::num(height) + "\" font-family=\"Helvetica,Arial,sans-serif\" font-size=\"12\">\n";
  out += "<text x=\"8\" y=\"18\" font-weight=\"bold\">KS distance, fitted against measured (poor above " +
         svg::num(kPoorFitKs, 1) + ")</text>\n";
  for (int t = 0; t <= 5; ++t) {
    const double v = t / 5.0, x = px(v);
    out += "<line x1=\"" + svg::num(x) + "\" y1=\"" + svg::num(top - 4) + "\" x2=\"" + svg::num(x) + "\" y2=\"" +
           svg::num(height - 22) + "\" stroke=\"#e0e0e0\"/>\n<text x=\"" + svg::num(x) + "\" y=\"" + svg::num(height - 8) +
           "\" text-anchor=\"middle\" fill=\"#555\">" + svg::num(v, 1) + "</text>\n";
  }
  for (std::size_t i = 0; i < c.latencies.size(); ++i) {
    const FittedLatency& f = c.latencies[i];
    const double y = top + row_h * static_cast<double>(i);
    out += "<g class=\"ks\" data-key=\"" + svg::escape(f.key) + "\"><text x=\"" + svg::num(label_w - 8) + "\" y=\"" +
           svg::num(y + 15) + "\" text-anchor=\"end\">" + svg::escape(f.key) + "</text><rect x=\"" + svg::num(px(0)) +
           "\" y=\"" + svg::num(y + 4) + "\" width=\"" + svg::num(std::min(1.0, f.ks) * plot_w) + "\" height=\"14\" fill=\"" +
           (f.ks > kPoorFitKs ? "#b42318" : svg::palette_color(0)) + "\"/></g>\n";
  }
  // Over the bars, so that a bar past it shows where poor begins.
  out += "<line x1=\"" + svg::num(px(kPoorFitKs)) + "\" y1=\"" + svg::num(top - 4) + "\" x2=\"" + svg::num(px(kPoorFitKs)) +
         "\" y2=\"" + svg::num(height - 22) + "\" stroke=\"#222\" stroke-dasharray=\"5 3\"/>\n";
  return out + "</svg>\n";
}

std::string fits_table_html(const Calibration& c) {
  const auto esc = [](const std::string& s) { return svg::escape(s); };
  std::string out = "<section id=\"fits\"><h2>Fitted latencies</h2>\n<table>\n<tr><th>key</th><th>measured as</th>"
                    "<th>pods</th><th>skipped</th><th>measured mean</th><th>fit</th><th>method</th><th>KS</th></tr>\n";
  for (const auto& f : c.latencies)
    out += "<tr><td>" + esc(f.key) + "</td><td>" + esc(f.interval) + "</td><td>" + human::count(f.measured.size()) +
           "</td><td>" + human::count(f.skipped) + "</td><td>" + human::duration(mean_of(f.measured)) + "</td><td>" +
           esc(human_fit(f.fit.spec)) + "</td><td>" + esc(f.fit.method) + "</td><td" +
           (f.ks > kPoorFitKs ? " class=\"poor\">" : ">") + svg::num(f.ks, 3) + (f.ks > kPoorFitKs ? " (poor)" : "") +
           "</td></tr>\n";
  out += "</table>\n<p><small>KS: the largest gap between the measured and the fitted cumulative distributions; above " +
         svg::num(kPoorFitKs, 1) + " the fit is poor (they differ by over " + svg::num(100 * kPoorFitKs, 0) +
         " percentage points somewhere; with 50 or more pods the KS test rejects it at the 5% level). The model file "
         "holds each fit with every digit.</small></p>\n";
  if (!c.probabilities.empty()) {
    out += "<table>\n<tr><th>key</th><th>counted</th><th>stalled</th><th>of</th><th>probability</th></tr>\n";
    for (const auto& p : c.probabilities)
      out += "<tr><td>" + esc(p.key) + "</td><td>" + esc(p.counted) + "</td><td>" + human::count(p.hits) + "</td><td>" +
             human::count(p.trials) + "</td><td>" + human::percent(p.value()) + "</td></tr>\n";
    out += "</table>\n";
  }
  return out + "</section>\n";
}

// One latency's section: the candidates' AIC and the measured and fitted histograms.
std::string latency_html(const FittedLatency& f) {
  const auto esc = [](const std::string& s) { return svg::escape(s); };
  std::string out = "<section class=\"latency\" id=\"" + esc(f.key) + "\"><h2>" + esc(f.key) + "</h2>\n";
  if (!f.fit.candidates.empty()) {
    out += "<table><tr><th>candidate (maximum likelihood)</th><th>AIC</th></tr>\n";
    for (const auto& cand : f.fit.candidates)
      out += "<tr><td>" + esc(human_fit(cand.spec)) + (cand.spec == f.fit.spec ? " (chosen)" : "") + "</td><td>" +
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
      // Compared as a double: a modelled value far outside the bins (or NaN) has no int.
      const double b = std::floor((x - lo) / width);
      if (b >= 0 && b < kBins) h[static_cast<std::size_t>(b)] += 1.0;
    }
    for (double& x : h) x = x / static_cast<double>(v.size()) / width;  // density
    return h;
  };
  svg::ChartSpec spec;
  spec.id = "hist-" + f.key;
  spec.title = f.key + ": measured and fitted";
  spec.subtitle = "density per second; fit " + human_fit(f.fit.spec) + "; KS distance " + svg::num(f.ks, 3);
  spec.x_label = "seconds";
  spec.y_label = "density";
  for (int b = 0; b < kBins; ++b) spec.x.push_back(lo + (b + 0.5) * width);
  spec.series.push_back({"measured", svg::palette_color(0), svg::Series::Style::kLine, "", histogram(f.measured)});
  spec.series.push_back({"fitted model", svg::palette_color(1), svg::Series::Style::kLine, "6 3", histogram(f.modelled)});
  spec.x_min = lo;
  spec.x_max = hi;
  return out + "<p>" + esc(f.interval) + ".</p>\n<figure class=\"chart\">" + svg::line_chart_svg(spec) + "</figure>\n</section>\n";
}

}  // namespace

// The answer first (the sentence and every fit's KS distance), then the fits rounded for
// people, each latency's histograms, and the measurements last.
std::string calibration_report_html(const Calibration& c) {
  // The fits table's text columns (what was measured, the fit, the method) read left-aligned.
  std::string out = html_report_head("kubesim calibration",
                                     ".poor{color:#b42318;font-weight:bold;}#fits tr>:nth-child(2),#fits tr>:nth-child(6),"
                                     "#fits tr>:nth-child(7){text-align:left;}\n");
  out += html_headline(calibration_headline(c), c.latencies.empty() ? "" : ks_chart_svg(c),
                       c.latencies.empty() ? "" : "Each fitted latency's KS distance; the dashed line marks a poor fit.");
  out += fits_table_html(c);
  for (const auto& f : c.latencies) out += latency_html(f);
  out += "<section id=\"sources\"><h2>Measurements</h2>\n<ul>\n";
  for (const auto& s : c.sources) out += "<li>" + svg::escape(s) + "</li>\n";
  out += "</ul>\n";
  for (const auto& [reason, n] : c.skipped) out += "<p>Skipped: " + human::count(n) + " " + svg::escape(reason) + "</p>\n";
  return out + "</section>\n</body>\n</html>\n";
}

}  // namespace kubesim::calibrate
