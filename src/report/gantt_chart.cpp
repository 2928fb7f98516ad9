#include "report/gantt_chart.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "report/svg_chart.hpp"

namespace kubesim {

namespace {


enum class BarState { kSucceeded, kRunning, kPreempted, kFailed };

struct Bar {
  PodId pod;
  std::size_t row = 0;   // index among the shown nodes
  std::size_t lane = 0;  // within the row
  double start = 0;
  double end = 0;
  std::size_t color = 0;  // palette index of the pod's namespace
  BarState state = BarState::kSucceeded;
  const char* state_name = "";
};

// What happened to the pod, for its bar's marking and data-state.
std::pair<BarState, const char*> bar_state(const Pod& p) {
  switch (p.disruption) {
    case DisruptionReason::kPreemptionByScheduler: return {BarState::kPreempted, "preempted"};
    case DisruptionReason::kDeletionByTaintManager:
    case DisruptionReason::kEvictionByEvictionAPI: return {BarState::kFailed, "evicted"};
    case DisruptionReason::kDeletionByUser:
    case DisruptionReason::kDeletionByPodGC: return {BarState::kFailed, "deleted"};
    case DisruptionReason::kNone: break;
  }
  if (p.phase == PodPhase::kFailed) return {BarState::kFailed, p.reason == "Evicted" ? "evicted" : "failed"};
  if (p.phase == PodPhase::kSucceeded) return {BarState::kSucceeded, "succeeded"};
  if (p.finished.is_never()) return {BarState::kRunning, "running"};
  return {BarState::kSucceeded, "stopped"};
}

// Palette index per namespace: the series' tenants first, in their order, then the other
// namespaces that ran pods, in namespace id order.
std::vector<std::size_t> namespace_colors(const TenantReportInput& in, std::vector<std::string>& names) {
  const ObjectStore& store = in.store;
  constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
  std::vector<std::size_t> color(store.namespace_count(), kUnset);
  std::size_t next = 0;
  for (const std::string& t : in.series.tenants) {
    const auto ns = store.find_namespace(t);
    if (ns && color[ns->value()] == kUnset) {
      color[ns->value()] = next;
      names.push_back(t);
    }
    ++next;  // a tenant keeps its colour index even if it has no namespace object
  }
  std::vector<bool> used(store.namespace_count(), false);
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) {
    const Pod& p = store.pod(PodId(i));
    if (p.ns.valid() && p.ns.value() < used.size() && p.node.valid() && !p.started.is_never())
      used[p.ns.value()] = true;
  }
  for (std::uint32_t n = 0; n < store.namespace_count(); ++n) {
    if (!used[n] || color[n] != kUnset) continue;
    color[n] = next++;
    names.push_back(store.namespace_(NamespaceId(n)).name);
  }
  return color;
}

std::string pod_tooltip(const ObjectStore& store, const Pod& p, const Bar& b) {
  std::string s;
  if (p.ns.valid() && p.ns.value() < store.namespace_count()) s += store.namespace_(p.ns).name + "/";
  s += p.name + " on " + store.node(p.node).name + ": " + svg::num(b.start, 3) + " s - " + svg::num(b.end, 3) +
       " s, " + b.state_name;
  if (!p.reason.empty()) s += " (" + p.reason.str() + ")";
  return s;
}

constexpr double kRowGap = 3;  // between two nodes' rows

// The bars of the pods that started on a shown node, by (start, pod id), at most
// gantt_max_bars of them, and the counts the chart's notes give.
struct GanttBars {
  std::vector<Bar> bars;
  std::size_t pods_total = 0;      // pods that started on any node
  std::size_t on_shown_nodes = 0;  // of those, on a shown node (before the bar cap)
};

GanttBars collect_bars(const TenantReportInput& in, const std::vector<std::size_t>& ns_color, std::size_t node_shown,
                       double end) {
  const ObjectStore& store = in.store;
  const std::size_t node_total = store.node_count();
  GanttBars g;
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) {
    const Pod& p = store.pod(PodId(i));
    if (!p.node.valid() || p.node.value() >= node_total || p.started.is_never()) continue;
    ++g.pods_total;
    if (p.node.value() >= node_shown) continue;
    Bar b;
    b.pod = PodId(i);
    b.row = p.node.value();
    b.start = p.started.to_seconds();
    b.end = p.finished.is_never() ? std::max(end, b.start) : std::max(p.finished.to_seconds(), b.start);
    b.color = p.ns.valid() && p.ns.value() < ns_color.size() ? ns_color[p.ns.value()] : 0;
    std::tie(b.state, b.state_name) = bar_state(p);
    g.bars.push_back(b);
  }
  std::stable_sort(g.bars.begin(), g.bars.end(), [](const Bar& a, const Bar& b) { return a.start < b.start; });
  g.on_shown_nodes = g.bars.size();
  if (g.bars.size() > in.gantt_max_bars) g.bars.resize(in.gantt_max_bars);
  return g;
}

// The rows' vertical layout: each bar's lane, the lanes' height and each row's top.
struct RowLayout {
  double lane_h = 14;
  std::vector<double> row_top;  // node_shown + 1 entries: the last is the bottom of the rows
};

// Lanes: in start order, each bar takes the first lane of its node that is free by then.
RowLayout layout_rows(std::vector<Bar>& bars, std::size_t node_shown) {
  std::vector<std::vector<double>> lane_end(node_shown);
  for (Bar& b : bars) {
    auto& lanes = lane_end[b.row];
    std::size_t l = 0;
    while (l < lanes.size() && lanes[l] > b.start) ++l;
    if (l == lanes.size()) lanes.push_back(b.end);
    else lanes[l] = b.end;
    b.lane = l;
  }
  std::size_t total_lanes = 0;
  for (const auto& lanes : lane_end) total_lanes += std::max<std::size_t>(1, lanes.size());
  RowLayout layout;
  layout.lane_h = total_lanes == 0 ? 14 : std::clamp(1400.0 / static_cast<double>(total_lanes), 1.0, 14.0);
  layout.row_top.assign(node_shown + 1, 0);
  double y = 0;
  for (std::size_t r = 0; r < node_shown; ++r) {
    layout.row_top[r] = y;
    y += static_cast<double>(std::max<std::size_t>(1, lane_end[r].size())) * layout.lane_h + kRowGap;
  }
  layout.row_top[node_shown] = y;
  return layout;
}

// The namespaces' colours, then the markings of the bars' states.
std::vector<svg::LegendEntry> gantt_legend(const ObjectStore& store, const std::vector<std::string>& ns_names,
                                           const std::vector<std::size_t>& ns_color) {
  std::vector<svg::LegendEntry> legend;
  for (std::size_t i = 0; i < ns_names.size(); ++i) {
    svg::LegendEntry e;
    e.label = ns_names[i];
    e.mark = svg::LegendMark::kBox;
    const auto ns = store.find_namespace(ns_names[i]);
    e.color = svg::palette_color(ns ? ns_color[ns->value()] : i);
    legend.push_back(std::move(e));
  }
  legend.push_back(svg::LegendEntry{"preempted", "#bbbbbb", svg::LegendMark::kBox, "", "#000000", true});
  legend.push_back(svg::LegendEntry{"failed / evicted / deleted", "#bbbbbb", svg::LegendMark::kBox, "", "", true});
  legend.push_back(svg::LegendEntry{"running at the end", "#dddddd", svg::LegendMark::kBox, "", "", false});
  return legend;
}

std::vector<std::string> gantt_notes(const GanttBars& g, std::size_t node_total, std::size_t node_shown) {
  std::vector<std::string> notes;
  notes.push_back(std::to_string(g.pods_total) + " pods started on " + std::to_string(node_total) + " nodes.");
  if (node_shown < node_total)
    notes.push_back("Capped: first " + std::to_string(node_shown) + " of " + std::to_string(node_total) +
                    " nodes shown.");
  if (g.bars.size() < g.on_shown_nodes)
    notes.push_back("Capped: the first " + std::to_string(g.bars.size()) + " of " + std::to_string(g.on_shown_nodes) +
                    " pods on the shown nodes by start time.");
  return notes;
}

// Row bands and node labels (skipped where rows are too thin to label them all).
void draw_rows(std::string& out, const svg::Frame& f, const ObjectStore& store, const RowLayout& layout) {
  out += "<g class=\"rows\">\n";
  const double y0 = f.plot_top();
  double last_label = -1e9;
  for (std::size_t r = 0; r + 1 < layout.row_top.size(); ++r) {
    const double top = y0 + layout.row_top[r];
    const double h = layout.row_top[r + 1] - layout.row_top[r] - kRowGap;
    if (r % 2 == 1)
      out += "<rect x=\"" + svg::num(f.plot_left()) + "\" y=\"" + svg::num(top) + "\" width=\"" +
             svg::num(f.plot_width()) + "\" height=\"" + svg::num(h) + "\" fill=\"#eeeeee\"/>";
    const double mid = top + h / 2;
    if (mid - last_label >= 11) {
      out += "<text class=\"node-label\" x=\"" + svg::num(f.plot_left() - 6) + "\" y=\"" + svg::num(mid + 4) +
             "\" text-anchor=\"end\" font-size=\"11\">" + svg::escape(store.node(NodeId(static_cast<std::uint32_t>(r))).name) +
             "</text>";
      last_label = mid;
    }
    out += '\n';
  }
  out += "</g>\n";
}

void draw_bars(std::string& out, const svg::Frame& f, const ObjectStore& store, const std::vector<Bar>& bars,
               const RowLayout& layout, const std::string& id, const std::string& hatch) {
  out += "<g class=\"bars\" clip-path=\"url(#" + id + "-clip)\">\n";
  const double y0 = f.plot_top();
  const double lane_h = layout.lane_h;
  const double inset = lane_h >= 4 ? 0.5 : 0;
  for (const Bar& b : bars) {
    const Pod& p = store.pod(b.pod);
    const double x = f.px(b.start);
    const double w = std::max(0.5, f.px(b.end) - x);
    const double top = y0 + layout.row_top[b.row] + static_cast<double>(b.lane) * lane_h + inset;
    const double h = lane_h - 2 * inset;
    const std::string geom = "x=\"" + svg::num(x) + "\" y=\"" + svg::num(top) + "\" width=\"" + svg::num(w) +
                             "\" height=\"" + svg::num(h) + "\"";
    out += "<g class=\"pod\" data-state=\"" + std::string(b.state_name) + "\"><title>" +
           svg::escape(pod_tooltip(store, p, b)) + "</title><rect " + geom + " fill=\"" +
           svg::palette_color(b.color) + "\"";
    if (b.state == BarState::kRunning) out += " fill-opacity=\"0.55\"";
    if (b.state == BarState::kPreempted) out += " stroke=\"#000000\" stroke-width=\"1.2\"";
    out += "/>";
    if (b.state == BarState::kPreempted || b.state == BarState::kFailed)
      out += "<rect " + geom + " fill=\"url(#" + hatch + ")\"/>";
    out += "</g>\n";
  }
  out += "</g>\n";
}

}  // namespace

std::string gantt_svg(const TenantReportInput& in) {
  const ObjectStore& store = in.store;
  const double end = tenant_report_end_seconds(in);
  std::vector<std::string> ns_names;
  const std::vector<std::size_t> ns_color = namespace_colors(in, ns_names);
  const std::size_t node_total = store.node_count();
  const std::size_t node_shown = std::min(node_total, in.gantt_max_nodes);
  GanttBars g = collect_bars(in, ns_color, node_shown, end);
  const RowLayout layout = layout_rows(g.bars, node_shown);
  const double plot_h = std::max(layout.row_top[node_shown], 60.0);
  const std::vector<svg::LegendEntry> legend = gantt_legend(store, ns_names, ns_color);
  const std::vector<std::string> notes = gantt_notes(g, node_total, node_shown);

  svg::Frame f;
  f.left = 130;
  // Tall enough for the rows, and for the legend and notes (a note wraps to at most 3 lines).
  const double legend_h = static_cast<double>(legend.size()) * 18 + static_cast<double>(notes.size()) * 3 * 13 + 24;
  f.height = f.top + std::max(plot_h + f.bottom, legend_h);
  f.bottom = f.height - f.top - plot_h;  // the plot area fits the rows; extra room goes below the axis
  f.x = svg::nice_axis(0, end, 8);
  f.y = svg::Axis{0, f.plot_height(), f.plot_height()};

  const std::string id = "gantt";
  const std::string hatch = id + "-hatch";
  const std::string title = in.title.empty() ? "pods by node" : in.title + ": pods by node";
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out.reserve(4096 + g.bars.size() * 260);
  svg::open_svg(out, f, id, title);
  svg::define_hatch(out, hatch, "#000000");
  svg::draw_title(out, f, title, tenant_report_subtitle(in));
  svg::draw_plot_area(out, f, id, false);
  draw_rows(out, f, store, layout);
  draw_bars(out, f, store, g.bars, layout, id, hatch);
  svg::draw_x_axis(out, f, "Run time (s)");
  out += "<text class=\"axis-label\" x=\"16\" y=\"" + svg::num(f.plot_top() + f.plot_height() / 2) +
         "\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 16 " +
         svg::num(f.plot_top() + f.plot_height() / 2) + ")\">Node</text>\n";
  svg::draw_legend(out, f, legend, notes, hatch);
  svg::close_svg(out);
  return out;
}

}  // namespace kubesim
