// gpu_gantt.svg (report/gpu_report.hpp): one row per GPU, each pod's share of it a bar from
// its binding to its end whose height is its share; bars holding the GPU at once are stacked
// (first fit from the bottom), so a row's filled height is the GPU's use over time.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "report/gpu_report.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {
namespace {

struct Placed {
  const DeviceInterval* d;
  double start = 0;
  double end = 0;
  std::int32_t offset = 0;  // milli from the bottom of the row
};

// First fit of the intervals of one GPU (in start order) into [0, 1000) milli.
std::vector<Placed> stack_device(const std::vector<const DeviceInterval*>& intervals, double end) {
  std::vector<Placed> out;
  std::vector<Placed> active;
  for (const DeviceInterval* d : intervals) {
    Placed p{d, d->start.to_seconds(), d->end.is_never() ? end : d->end.to_seconds(), 0};
    std::erase_if(active, [&](const Placed& a) { return a.end <= p.start; });
    std::sort(active.begin(), active.end(), [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    std::int32_t at = 0;
    for (const Placed& a : active) {
      if (a.offset - at >= d->share) break;
      at = std::max(at, a.offset + a.d->share);
    }
    p.offset = std::min(at, kDeviceShareUnits - d->share);
    active.push_back(p);
    out.push_back(p);
  }
  return out;
}

}  // namespace

std::string gpu_gantt_svg(const GpuSeries& s, const ObjectStore& store, double end, std::size_t max_gpus) {
  // The GPUs shown: (node, device) of the intervals, the first nodes by id.
  std::map<std::pair<std::uint32_t, std::uint16_t>, std::vector<const DeviceInterval*>> rows;
  for (const DeviceInterval& d : s.devices) rows[{d.node.value(), d.device}].push_back(&d);
  while (rows.size() > max_gpus) rows.erase(std::prev(rows.end()));
  const double row_h = rows.empty() ? 14 : std::clamp(900.0 / static_cast<double>(rows.size()), 4.0, 24.0);
  svg::Frame f;
  f.left = 170;
  f.height = f.top + f.bottom + std::max(60.0, row_h * static_cast<double>(rows.size()));
  f.x = svg::nice_axis(0, std::max(end, 1e-6), 8);
  f.y = svg::Axis{0, f.plot_height(), f.plot_height()};
  const std::string id = "gpu-gantt";
  const std::string title = "GPU use by device";
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg::open_svg(out, f, id, title);
  svg::draw_title(out, f, title, "bar height: the pod's share of the GPU");
  svg::draw_plot_area(out, f, id, false);
  out += "<g class=\"bars\" clip-path=\"url(#" + id + "-clip)\">\n";
  double top = f.plot_top();
  std::size_t r = 0;
  for (const auto& [key, intervals] : rows) {
    const Node& n = store.node(NodeId(key.first));
    out += "<text class=\"gpu-label\" x=\"" + svg::num(f.plot_left() - 6) + "\" y=\"" + svg::num(top + row_h / 2 + 4) +
           "\" text-anchor=\"end\" font-size=\"10\">" + svg::escape(n.name + " gpu" + std::to_string(key.second)) +
           "</text>\n";
    if (r++ % 2 == 1)
      out += "<rect x=\"" + svg::num(f.plot_left()) + "\" y=\"" + svg::num(top) + "\" width=\"" +
             svg::num(f.plot_width()) + "\" height=\"" + svg::num(row_h) + "\" fill=\"#eeeeee\"/>\n";
    for (const Placed& p : stack_device(intervals, end)) {
      const double h = row_h * p.d->share / kDeviceShareUnits;
      const double y = top + row_h - row_h * p.offset / kDeviceShareUnits - h;
      const double x = f.px(p.start);
      out += "<rect x=\"" + svg::num(x) + "\" y=\"" + svg::num(y) + "\" width=\"" +
             svg::num(std::max(0.5, f.px(p.end) - x)) + "\" height=\"" + svg::num(h) + "\" fill=\"" +
             svg::palette_color(p.d->pod.value() % 10) + "\"><title>" +
             svg::escape(store.pod(p.d->pod).name + ": " + std::to_string(p.d->share) + "m") + "</title></rect>\n";
    }
    top += row_h;
  }
  out += "</g>\n";
  svg::draw_x_axis(out, f, "Run time (s)");
  std::vector<std::string> notes;
  notes.push_back(std::to_string(s.devices.size()) + " device grants.");
  if (rows.size() == max_gpus) notes.push_back("Capped: at most " + std::to_string(max_gpus) + " GPUs shown.");
  svg::draw_legend(out, f, {}, notes, "");
  svg::close_svg(out);
  return out;
}

}  // namespace kubesim
