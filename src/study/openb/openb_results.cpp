#include "study/openb/openb_results.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "core/parse_number.hpp"
#include "core/split.hpp"
#include "report/html_page.hpp"
#include "report/svg_chart.hpp"

namespace kubesim::openb {
namespace {

constexpr int kColumns = 131;  // arrived 0..130 % of the cluster's GPUs

// Python's repr of a float in fixed notation (the values here are between 1e-4 and 1e16):
// the shortest text that reads back to the same double, ".0" added to whole numbers.
std::string py_repr(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, res.ptr);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

// A value as printf("%.2f") prints it (the exact binary value rounded, ties to even) and read
// back: the authors' log lines, and Python's round(x, 2) on a float.
double round2_exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return std::strtod(buf, nullptr);
}

// numpy's round(x, 2) (np.round on a float64): rint(x * 100) / 100.
double round2_numpy(double v) { return std::nearbyint(v * 100) / 100; }

// numpy's pairwise summation (numpy/core/src/umath/loops_utils.h.src pairwise_sum), which
// pandas' mean uses: 8 interleaved partial sums in blocks of up to 128, halves above that.
double pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double s = 0.;
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    return s;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t k = 0; k < 8; ++k) r[k] = a[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t k = 0; k < 8; ++k) r[k] += a[i + k];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double mean(const std::vector<double>& v) { return pairwise_sum(v.data(), v.size()) / static_cast<double>(v.size()); }

// Per step: the arrived ratio (rounded to a whole percent, ties to even, as Python's round).
std::vector<double> arrive_ratios(const ProtocolResult& r) {
  std::vector<double> out;
  out.reserve(r.steps.size());
  for (const ProtocolStep& s : r.steps)
    out.push_back(std::nearbyint(static_cast<double>(s.arrived_gpu_milli) / static_cast<double>(r.total_gpus) / 10));
  return out;
}

// The merge scripts' selection for column `col`: the steps whose ratio is col, else those
// within col +- 1; the mean of `value` over them (nullopt: none).
template <typename Value>
std::optional<double> column_mean(const std::vector<double>& ratios, int col, Value&& value) {
  std::vector<double> picked;
  const double c = col;
  for (std::size_t i = 0; i < ratios.size(); ++i)
    if (ratios[i] == c) picked.push_back(value(i));
  if (picked.empty())
    for (std::size_t i = 0; i < ratios.size(); ++i)
      if (ratios[i] >= c - 1 && ratios[i] <= c + 1) picked.push_back(value(i));
  if (picked.empty()) return std::nullopt;
  return mean(picked);
}

std::string fmt2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string tune_label(double tune) { return py_repr(tune); }

std::string allo_steps_csv(const ProtocolResult& r) {
  std::string out = "used_nodes,used_gpus,used_gpu_milli,total_gpus,arrived_gpu_milli\n";
  for (const ProtocolStep& s : r.steps)
    out += std::to_string(s.used_nodes) + "," + std::to_string(s.used_gpus) + "," + std::to_string(s.used_gpu_milli) + "," +
           std::to_string(r.total_gpus) + "," + std::to_string(s.arrived_gpu_milli) + "\n";
  return out;
}

std::string frag_steps_csv(const ProtocolResult& r) {
  std::string out = "origin_milli,origin_ratio,origin_q124\n";
  for (const ProtocolStep& s : r.steps) out += fmt2(s.frag_milli) + "," + fmt2(s.frag_ratio) + "," + fmt2(s.q124_ratio) + "\n";
  return out;
}

std::vector<std::string> discrete_headers() {
  std::string columns;
  for (int c = 0; c < kColumns; ++c) columns += "," + std::to_string(c);
  return {"workload,sc_policy,tune,seed,total_gpus" + columns + "\n", "workload,sc_policy,tune,seed" + columns + "\n",
          "workload,sc_policy,tune,seed" + columns + "\n"};
}

std::vector<std::string> discrete_rows(const ProtocolResult& r, const RunLabels& labels) {
  const std::vector<double> ratios = arrive_ratios(r);
  const double total = static_cast<double>(r.total_gpus);
  const std::string head = labels.workload + "," + labels.policy + "," + labels.tune + "," + labels.seed;
  std::string allo = head + "," + std::to_string(r.total_gpus), frag = head, frag_ratio = head;
  for (int c = 0; c < kColumns; ++c) {
    const auto a = column_mean(ratios, c, [&](std::size_t i) {
      return round2_exact(static_cast<double>(r.steps[i].used_gpu_milli) / total / 10);
    });
    const auto f = column_mean(ratios, c, [&](std::size_t i) { return round2_exact(r.steps[i].frag_milli); });
    const auto fr = column_mean(ratios, c, [&](std::size_t i) { return round2_exact(r.steps[i].frag_ratio); });
    allo += "," + (a ? py_repr(round2_numpy(*a)) : std::string());
    frag += "," + (f ? py_repr(round2_numpy(100 * *f / 1000 / total)) : std::string());
    frag_ratio += "," + (fr ? py_repr(*fr) : std::string());
  }
  return {allo + "\n", frag + "\n", frag_ratio + "\n"};
}

std::string protocol_report_html(const ProtocolResult& r, const RunLabels& labels) {
  std::string html = html_report_head("openb protocol: " + labels.workload + ", " + labels.policy + ", seed " + labels.seed);
  html += "<table class=\"params\"><tr><td>workload</td><td>" + svg::escape(labels.workload) + "</td></tr><tr><td>policy</td><td>" +
          svg::escape(labels.policy) + "</td></tr><tr><td>tune</td><td>" + labels.tune + "</td></tr><tr><td>seed</td><td>" +
          labels.seed + "</td></tr><tr><td>GPUs</td><td>" + std::to_string(r.total_gpus) + "</td></tr><tr><td>pods arrived</td><td>" +
          std::to_string(r.pods) + "</td></tr><tr><td>placed</td><td>" + std::to_string(r.placed) +
          "</td></tr><tr><td>dropped (fit nowhere)</td><td>" + std::to_string(r.dropped) + "</td></tr></table>\n";
  std::vector<double> x, alloc, frag, frag_ratio;
  const double total = static_cast<double>(r.total_gpus);
  for (const ProtocolStep& s : r.steps) {
    x.push_back(static_cast<double>(s.arrived_gpu_milli) / total / 10);
    alloc.push_back(static_cast<double>(s.used_gpu_milli) / total / 10);
    frag.push_back(100 * s.frag_milli / 1000 / total);
    frag_ratio.push_back(s.frag_ratio);
  }
  const auto chart = [&](const std::string& id, const std::string& title, const std::string& y_label, std::vector<double> y) {
    svg::ChartSpec spec;
    spec.id = id;
    spec.title = title;
    spec.subtitle = labels.workload + ", " + labels.policy + ", seed " + labels.seed;
    spec.x_label = "arrived GPU request (% of the cluster's GPUs)";
    spec.y_label = y_label;
    spec.y_suffix = "%";
    spec.x = x;
    spec.series.push_back({labels.policy, svg::palette_color(0), svg::Series::Style::kLine, "", std::move(y)});
    spec.x_max = 130;
    spec.y_min_top = 100;
    html += "<figure class=\"chart\">" + std::string(svg::strip_xml_declaration(svg::line_chart_svg(std::move(spec)))) +
            "</figure>\n";
  };
  chart("alloc", "GPU allocation ratio", "allocated GPUs", alloc);
  chart("frag", "Fragmentation amount", "fragmented GPUs", frag);
  chart("frag-ratio", "Fragmentation ratio", "of the idle GPUs", frag_ratio);
  html += "</body>\n</html>\n";
  return html;
}

namespace {

// Mean over the rows (seeds) of each (workload, policy) of every column 0..130 of one merged
// discrete file; columns no row has are NaN. Workloads and policies in the file's order.
struct CurveTable {
  std::vector<std::string> workloads;
  std::map<std::string, std::vector<std::string>> policies;  // by workload
  std::map<std::pair<std::string, std::string>, std::vector<double>> mean;
};

CurveTable curve_table(const std::string& csv) {
  CurveTable t;
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<double>, std::vector<int>>> sums;
  bool header = true;
  std::size_t first_column = 4;
  for (const std::string& line : split(csv, '\n')) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, ',');
    if (header) {
      header = false;
      first_column = f.size() > 4 && f[4] == "total_gpus" ? 5 : 4;
      continue;
    }
    if (f.size() < first_column + kColumns) continue;
    const std::pair<std::string, std::string> key{f[0], f[1]};
    if (std::find(t.workloads.begin(), t.workloads.end(), f[0]) == t.workloads.end()) t.workloads.push_back(f[0]);
    auto& pols = t.policies[f[0]];
    if (std::find(pols.begin(), pols.end(), f[1]) == pols.end()) pols.push_back(f[1]);
    auto& [sum, count] = sums[key];
    sum.resize(kColumns, 0.0);
    count.resize(kColumns, 0);
    for (int c = 0; c < kColumns; ++c)
      if (const std::optional<double> v = parse_double(f[first_column + static_cast<std::size_t>(c)])) {
        sum[static_cast<std::size_t>(c)] += *v;
        ++count[static_cast<std::size_t>(c)];
      }
  }
  for (const auto& [key, sc] : sums) {
    std::vector<double> m(kColumns, std::nan(""));
    for (std::size_t c = 0; c < m.size(); ++c)
      if (sc.second[c] > 0) m[c] = sc.first[c] / sc.second[c];
    t.mean[key] = std::move(m);
  }
  return t;
}

}  // namespace

std::string discrete_report_html(const std::string& plan_name, const std::vector<std::string>& merged_csvs) {
  static constexpr const char* kTitles[] = {"GPU allocation ratio", "Fragmentation amount", "Fragmentation ratio"};
  static constexpr const char* kAxes[] = {"allocated GPUs", "fragmented GPUs", "of the idle GPUs"};
  std::string html = html_report_head("openb sweep: " + plan_name);
  html += "<p>Mean over the seeds of each policy, against the arrived GPU request (% of the cluster's GPUs); "
          "the merged analysis_*_discrete.csv files hold every run.</p>\n";
  std::vector<CurveTable> tables;
  for (const std::string& csv : merged_csvs) tables.push_back(curve_table(csv));
  if (tables.empty()) return html + "</body>\n</html>\n";
  std::vector<double> x(kColumns);
  for (int c = 0; c < kColumns; ++c) x[static_cast<std::size_t>(c)] = c;
  for (const std::string& workload : tables[0].workloads) {
    html += "<h2>" + svg::escape(workload) + "</h2>\n";
    for (std::size_t k = 0; k < tables.size() && k < 3; ++k) {
      svg::ChartSpec spec;
      spec.id = workload + "-" + std::to_string(k);
      spec.title = kTitles[k];
      spec.subtitle = workload;
      spec.x_label = "arrived GPU request (% of the cluster's GPUs)";
      spec.y_label = kAxes[k];
      spec.y_suffix = "%";
      spec.x = x;
      spec.x_max = kColumns - 1;
      std::size_t colour = 0;
      for (const std::string& policy : tables[k].policies[workload]) {
        std::vector<double> y = tables[k].mean[{workload, policy}];
        for (double& v : y)
          if (std::isnan(v)) v = 0;  // a column no run reached (an empty field in the CSV)
        spec.series.push_back({policy, svg::palette_color(colour++), svg::Series::Style::kLine, "", std::move(y)});
      }
      html += "<figure class=\"chart\">" + std::string(svg::strip_xml_declaration(svg::line_chart_svg(std::move(spec)))) +
              "</figure>\n";
    }
  }
  return html + "</body>\n</html>\n";
}

}  // namespace kubesim::openb
