#include "sweep/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/parse_number.hpp"
#include "report/html_page.hpp"
#include "report/human_format.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {

double student_t975(std::size_t df) {
  // Student's t 0.975 quantiles (any statistics table), then the normal 1.96 beyond 120.
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  if (df <= 30) return table[df - 1];
  if (df <= 40) return 2.021;
  if (df <= 60) return 2.000;
  if (df <= 120) return 1.980;
  return 1.960;
}

namespace {

// The per-cell metrics of the report, from the cell's tenant rows.
struct CellMetrics {
  double queue_s = 0, utilisation = 0, makespan_s = 0, completed_pct = 0;
};
// The table headers: the cells carry their units (durations and percents rounded for people).
constexpr const char* kMetricNames[] = {"mean queue time", "utilisation", "makespan", "jobs completed"};
double metric(const CellMetrics& m, std::size_t k) {
  switch (k) {
    case 0: return m.queue_s;
    case 1: return 100.0 * m.utilisation;
    case 2: return m.makespan_s;
    default: return m.completed_pct;
  }
}

CellMetrics cell_metrics(const SweepTable::Cell& c, std::size_t first_metric) {
  // Columns after the tenant: jobs, completed, started, failed_pods, average_queue_s,
  // total_queue_s, makespan_s, utilisation, end_s (sweep.hpp kSweepMetrics).
  double jobs = 0, completed = 0, started = 0, queue = 0;
  CellMetrics m;
  for (const auto& r : c.rows) {
    const auto at = [&](std::size_t k) { return r.size() > first_metric + k ? parse_double(r[first_metric + k]).value_or(0) : 0.0; };
    jobs += at(0);
    completed += at(1);
    started += at(2);
    queue += at(5);
    m.makespan_s = std::max(m.makespan_s, at(6));
    m.utilisation = at(7);
  }
  m.queue_s = started > 0 ? queue / started : 0;
  m.completed_pct = jobs > 0 ? 100.0 * completed / jobs : 0;
  return m;
}

struct Estimate {
  double mean = 0, half_width = 0;
  std::size_t n = 0;
};
Estimate estimate(const std::vector<double>& xs) {
  Estimate e;
  e.n = xs.size();
  if (xs.empty()) return e;
  for (double x : xs) e.mean += x;
  e.mean /= static_cast<double>(xs.size());
  if (xs.size() < 2) return e;
  double ss = 0;
  for (double x : xs) ss += (x - e.mean) * (x - e.mean);
  const double sd = std::sqrt(ss / static_cast<double>(xs.size() - 1));
  e.half_width = student_t975(xs.size() - 1) * sd / std::sqrt(static_cast<double>(xs.size()));
  return e;
}

// Metric k's estimate rounded for people: durations with their unit, percents with one decimal.
std::string show(const Estimate& e, std::size_t k) {
  const bool is_duration = k == 0 || k == 2;
  const auto one = [&](double x) { return is_duration ? human::duration(x) : human::percent(x / 100.0); };
  std::string s = one(e.mean);
  if (e.n >= 2) s += " \u00b1 " + one(e.half_width);
  return s;
}

// Means with their intervals as horizontal bars with whiskers.
std::string effect_chart(const std::string& id, const std::string& title, const std::vector<std::string>& labels,
                         const std::vector<Estimate>& es) {
  // The label column fits the longest label (about 7 px a character at 12 px), so none is cut.
  std::size_t longest = 0;
  for (const std::string& l : labels) longest = std::max(longest, l.size());
  const double label_w = std::max(120.0, 7.0 * static_cast<double>(longest) + 16), plot_w = 520, row_h = 26, top = 30;
  const double height = top + row_h * static_cast<double>(labels.size()) + 24;
  double hi = 0;
  for (const Estimate& e : es) hi = std::max(hi, e.mean + e.half_width);
  const svg::Axis axis = svg::nice_axis(0, hi > 0 ? hi : 1, 5);
  const auto px = [&](double v) { return label_w + (v - axis.lo) / (axis.hi - axis.lo) * plot_w; };
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + id + "\" width=\"" + svg::num(label_w + plot_w + 40) +
                    "\" height=\"" + svg::num(height) + "\" font-family=\"Helvetica,Arial,sans-serif\" font-size=\"12\">\n";
  out += "<text x=\"8\" y=\"18\" font-weight=\"bold\">" + svg::escape(title) + "</text>\n";
  for (double t : axis.ticks()) {
    out += "<line x1=\"" + svg::num(px(t)) + "\" y1=\"" + svg::num(top - 4) + "\" x2=\"" + svg::num(px(t)) + "\" y2=\"" +
           svg::num(height - 20) + "\" stroke=\"#e0e0e0\"/>\n";
    out += "<text x=\"" + svg::num(px(t)) + "\" y=\"" + svg::num(height - 6) + "\" text-anchor=\"middle\" fill=\"#555\">" +
           svg::num(t, 3) + "</text>\n";
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double y = top + row_h * static_cast<double>(i);
    const std::string& label = labels[i];
    out += "<g class=\"effect\" data-value=\"" + svg::escape(labels[i]) + "\" data-mean=\"" + svg::num(es[i].mean, 6) + "\">";
    out += "<text x=\"" + svg::num(label_w - 8) + "\" y=\"" + svg::num(y + 16) + "\" text-anchor=\"end\">" + svg::escape(label) + "</text>";
    out += "<rect x=\"" + svg::num(px(0)) + "\" y=\"" + svg::num(y + 5) + "\" width=\"" + svg::num(px(es[i].mean) - px(0)) +
           "\" height=\"14\" fill=\"" + svg::palette_color(i) + "\"/>";
    if (es[i].n >= 2) {
      const double lo = px(std::max(0.0, es[i].mean - es[i].half_width)), hi_x = px(es[i].mean + es[i].half_width);
      out += "<line x1=\"" + svg::num(lo) + "\" y1=\"" + svg::num(y + 12) + "\" x2=\"" + svg::num(hi_x) + "\" y2=\"" +
             svg::num(y + 12) + "\" stroke=\"#222\" stroke-width=\"1.5\"/>";
      for (double x : {lo, hi_x})
        out += "<line x1=\"" + svg::num(x) + "\" y1=\"" + svg::num(y + 6) + "\" x2=\"" + svg::num(x) + "\" y2=\"" +
               svg::num(y + 18) + "\" stroke=\"#222\" stroke-width=\"1.5\"/>";
    }
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string esc(const std::string& s) { return svg::escape(s); }

// What the page's sections read: the table, each cell's metrics, the seeds and each axis's
// values in first-seen (plan) order.
struct SweepView {
  const SweepTable& t;
  std::size_t seed_axis = 0;  // the last axis
  std::vector<CellMetrics> metrics;
  std::vector<std::string> seeds;
  std::vector<std::vector<std::string>> values;
};

SweepView sweep_view(const SweepTable& t) {
  SweepView v{t, t.axes.size() - 1, {}, {}, {}};
  const std::size_t first_metric = 1 + t.axes.size() + 1;
  for (const auto& c : t.cells) v.metrics.push_back(cell_metrics(c, first_metric));
  for (const auto& c : t.cells)
    if (std::find(v.seeds.begin(), v.seeds.end(), c.values[v.seed_axis]) == v.seeds.end()) v.seeds.push_back(c.values[v.seed_axis]);
  v.values.resize(t.axes.size());
  for (const auto& c : t.cells)
    for (std::size_t a = 0; a < t.axes.size(); ++a)
      if (std::find(v.values[a].begin(), v.values[a].end(), c.values[a]) == v.values[a].end()) v.values[a].push_back(c.values[a]);
  return v;
}

std::string axes_html(const SweepView& v) {
  const SweepTable& t = v.t;
  std::string out = "<section id=\"parameters\"><h2>Axes</h2>\n<table class=\"params\">\n";
  out += "<tr><th>cells</th><td>" + std::to_string(t.cells.size()) + "</td></tr>\n";
  for (std::size_t a = 0; a < t.axes.size(); ++a) {
    std::string list;
    for (const auto& x : v.values[a]) list += (list.empty() ? "" : ", ") + x;
    out += "<tr><th>" + esc(t.axes[a]) + "</th><td>" + esc(list) + "</td></tr>\n";
  }
  out += "</table>\n<p><small>Intervals: 95% Student-t confidence intervals of the mean over " + std::to_string(v.seeds.size()) +
         " seed(s); for an axis value, each seed's sample is the mean over the cells of that value and seed.</small></p>\n</section>\n";
  return out;
}

// Axis a's table (each value's metrics over the seeds) and its queue-time chart.
std::string axis_effect_html(const SweepView& v, std::size_t a) {
  const SweepTable& t = v.t;
  // The chart first (the answer), then its table.
  std::string out = "<div class=\"table-wrap\"><table class=\"effect\" data-axis=\"" + esc(t.axes[a]) +
                    "\">\n<tr><th>" + esc(t.axes[a]) + "</th>";
  for (const char* m : kMetricNames) out += "<th>" + esc(m) + "</th>";
  out += "</tr>\n";
  std::vector<Estimate> queue_estimates;
  for (const std::string& value : v.values[a]) {
    out += "<tr><td>" + esc(value) + "</td>";
    for (std::size_t k = 0; k < std::size(kMetricNames); ++k) {
      std::vector<double> per_seed;
      for (const std::string& s : v.seeds) {
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t i = 0; i < t.cells.size(); ++i)
          if (t.cells[i].values[a] == value && t.cells[i].values[v.seed_axis] == s) {
            sum += metric(v.metrics[i], k);
            ++n;
          }
        if (n > 0) per_seed.push_back(sum / static_cast<double>(n));
      }
      const Estimate e = estimate(per_seed);
      if (k == 0) queue_estimates.push_back(e);
      out += "<td>" + esc(show(e, k)) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  return "<h3>" + esc(t.axes[a]) + "</h3>\n<figure class=\"chart\">" +
         effect_chart("effect-" + std::to_string(a), "mean queue time (s) by " + t.axes[a], v.values[a], queue_estimates) +
         "</figure>\n" + out;
}

std::string effects_html(const SweepView& v) {
  std::string out = "<section id=\"effects\"><h2>Effect of each axis</h2>\n";
  bool any_effect = false;
  for (std::size_t a = 0; a < v.seed_axis; ++a) {
    if (v.values[a].size() < 2) continue;
    any_effect = true;
    out += axis_effect_html(v, a);
  }
  if (!any_effect) out += "<p>No axis but the seed has more than one value.</p>\n";
  out += "</section>\n";
  return out;
}

// A configuration (all axes but the seed) and its metrics' samples over its seeds.
struct Config {
  std::vector<std::string> values;
  std::vector<std::vector<double>> samples = std::vector<std::vector<double>>(std::size(kMetricNames));
};

// The configurations, ranked by mean queue time over their seeds (lowest first; ties in plan
// order).
std::vector<Config> ranked_configs(const SweepView& v) {
  const SweepTable& t = v.t;
  std::vector<Config> configs;
  std::map<std::vector<std::string>, std::size_t> index;
  for (std::size_t i = 0; i < t.cells.size(); ++i) {
    std::vector<std::string> key(t.cells[i].values.begin(), t.cells[i].values.end() - 1);
    auto [it, fresh] = index.try_emplace(key, configs.size());
    if (fresh) configs.push_back(Config{key});
    for (std::size_t k = 0; k < std::size(kMetricNames); ++k) configs[it->second].samples[k].push_back(metric(v.metrics[i], k));
  }
  std::stable_sort(configs.begin(), configs.end(), [](const Config& x, const Config& y) {
    return estimate(x.samples[0]).mean < estimate(y.samples[0]).mean;
  });
  return configs;
}

// Whether axis a (not the seed) takes more than one value: only those tell configurations
// apart; the others are stated once.
bool varies(const SweepView& v, std::size_t a) { return v.values[a].size() > 1; }

std::string config_name(const SweepView& v, const Config& c) {
  std::string out;
  for (std::size_t a = 0; a < c.values.size(); ++a)
    if (varies(v, a)) out += (out.empty() ? "" : ", ") + v.t.axes[a] + " = " + c.values[a];
  return out.empty() ? "the only configuration" : out;
}

// "scenario = e3.yaml, model = scenario": the axes with one value, the same in every row.
std::string constant_axes(const SweepView& v) {
  std::string out;
  for (std::size_t a = 0; a < v.seed_axis; ++a)
    if (!varies(v, a)) out += (out.empty() ? "" : ", ") + v.t.axes[a] + " = " + v.values[a].front();
  return out;
}

// The answering sentence: the best and the worst configuration by mean queue time.
std::string sweep_headline(const SweepView& v, const std::vector<Config>& configs) {
  if (configs.empty()) return "The sweep has no cell.";
  const Config& best = configs.front();
  const auto queue = [](const Config& c) { return human::duration(estimate(c.samples[0]).mean); };
  std::string out = "Lowest mean queue time with " + config_name(v, best) + ": " + queue(best) + " over " +
                    std::to_string(best.samples[0].size()) + " seed(s), utilisation " +
                    human::sig3(estimate(best.samples[1]).mean) + "%";
  if (configs.size() > 1)
    out += "; highest with " + config_name(v, configs.back()) + ": " + queue(configs.back()) + " (" +
           std::to_string(configs.size()) + " configurations)";
  return out + ".";
}

// Configurations (all axes but the seed), ranked by mean queue time over their seeds.
std::string best_html(const SweepView& v, const std::vector<Config>& ranked) {
  const SweepTable& t = v.t;
  const std::size_t shown = std::min<std::size_t>(ranked.size(), 10);
  std::string out = "<section id=\"best\"><h2>Best configurations</h2>\n<p>" + std::to_string(shown) + " of " +
                    std::to_string(ranked.size()) + " configuration(s), by mean queue time over their seeds (lowest first)";
  // Only the axes that vary get a column, so that the table fits the page.
  const std::string fixed = constant_axes(v);
  out += fixed.empty() ? "." : "; in every row " + esc(fixed) + ".";
  out += "</p>\n<div class=\"table-wrap\"><table class=\"best\">\n<tr><th>rank</th>";
  for (std::size_t a = 0; a < v.seed_axis; ++a)
    if (varies(v, a)) out += "<th>" + esc(t.axes[a]) + "</th>";
  out += "<th>seeds</th>";
  for (const char* m : kMetricNames) out += "<th>" + esc(m) + "</th>";
  out += "</tr>\n";
  for (std::size_t r = 0; r < shown; ++r) {
    const Config& c = ranked[r];
    out += "<tr><td>" + std::to_string(r + 1) + "</td>";
    for (std::size_t a = 0; a < c.values.size(); ++a)
      if (varies(v, a)) out += "<td>" + esc(c.values[a]) + "</td>";
    out += "<td>" + std::to_string(c.samples[0].size()) + "</td>";
    for (std::size_t k = 0; k < std::size(kMetricNames); ++k) out += "<td>" + esc(show(estimate(c.samples[k]), k)) + "</td>";
    out += "</tr>\n";
  }
  out += "</table></div>\n</section>\n";
  return out;
}

}  // namespace

std::string sweep_html(const SweepTable& t) {
  const SweepView v = sweep_view(t);
  const std::vector<Config> ranked = ranked_configs(v);
  std::string out = html_report_head(t.name + ": sweep");
  out += html_headline(sweep_headline(v, ranked), "", "");
  out += effects_html(v);
  out += best_html(v, ranked);
  out += axes_html(v);
  out += "<p><small>Every cell's rows are in results.csv; each cell's outputs in cells/&lt;id&gt;/.</small></p>\n</body>\n</html>\n";
  return out;
}

}  // namespace kubesim
