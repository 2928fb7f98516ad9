#include "report/gpu_report.hpp"

#include <algorithm>

#include "report/svg_chart.hpp"

namespace kubesim {
namespace {

double percent(double milli, std::int64_t capacity) {
  return capacity > 0 ? 100.0 * milli / static_cast<double>(capacity) : 0.0;
}

// The x values (seconds) of the samples and the chart's common frame.
svg::ChartSpec gpu_chart(const GpuSeries& s, double end, const std::string& id, const std::string& title) {
  svg::ChartSpec spec;
  spec.id = id;
  spec.title = title;
  spec.subtitle = std::to_string(s.gpus) + " GPUs; " + std::to_string(s.typical_pods) + " typical pod shapes";
  spec.x_label = "Run time (s)";
  spec.y_suffix = "%";
  spec.x_max = std::max(end, 1e-6);
  for (const GpuSample& g : s.samples) spec.x.push_back(g.time.to_seconds());
  return spec;
}

svg::Series gpu_line(const GpuSeries& s, const std::string& label, std::size_t color, double (*value)(const GpuSample&, std::int64_t)) {
  svg::Series out;
  out.label = label;
  out.color = svg::palette_color(color);
  for (const GpuSample& g : s.samples) out.y.push_back(value(g, s.capacity_milli));
  return out;
}

}  // namespace

std::string gpu_timeseries_csv(const GpuSeries& s) {
  std::string out =
      "time,allocated_milli,whole_milli,shared_milli,allocated_pct,free_gpus,free_milli,frag_milli,frag_pct,"
      "frag_ratio_pct\n";
  for (const GpuSample& g : s.samples) {
    const std::int64_t allocated = g.whole_milli + g.shared_milli;
    out += format_seconds(g.time) + "," + std::to_string(allocated) + "," + std::to_string(g.whole_milli) + "," +
           std::to_string(g.shared_milli) + "," + svg::num(percent(static_cast<double>(allocated), s.capacity_milli), 4) +
           "," + std::to_string(g.free_gpus) + "," + std::to_string(g.free_milli) + "," + svg::num(g.frag_milli, 3) +
           "," + svg::num(percent(g.frag_milli, s.capacity_milli), 4) + "," + svg::num(100.0 * g.frag_ratio(), 4) + "\n";
  }
  return out;
}

std::string gpu_devices_csv(const GpuSeries& s, const ObjectStore& store) {
  std::string out = "node,device,model,namespace,pod,share_milli,start,end\n";
  for (const DeviceInterval& d : s.devices) {
    const Node& n = store.node(d.node);
    const std::string model = d.device < n.devices.size() ? n.devices[d.device].model : "";
    const Pod& p = store.pod(d.pod);
    const std::string ns = p.ns.valid() ? store.namespace_(p.ns).name : "";
    out += n.name + "," + std::to_string(d.device) + "," + model + "," + ns + "," + p.name + "," +
           std::to_string(d.share) + "," + format_seconds(d.start) + "," + (d.end.is_never() ? "" : format_seconds(d.end)) +
           "\n";
  }
  return out;
}

std::string gpu_allocation_svg(const GpuSeries& s, double end) {
  svg::ChartSpec spec = gpu_chart(s, end, "gpu-allocation", "GPU allocation");
  spec.y_label = "Share of the cluster's GPUs";
  spec.y_fixed_top = 100;
  spec.series.push_back(gpu_line(s, "allocated", 0, [](const GpuSample& g, std::int64_t c) {
    return percent(static_cast<double>(g.whole_milli + g.shared_milli), c);
  }));
  spec.series.push_back(gpu_line(s, "whole GPUs", 1, [](const GpuSample& g, std::int64_t c) {
    return percent(static_cast<double>(g.whole_milli), c);
  }));
  spec.series.push_back(gpu_line(s, "shared GPUs", 2, [](const GpuSample& g, std::int64_t c) {
    return percent(static_cast<double>(g.shared_milli), c);
  }));
  spec.notes.push_back("GPU milli held by pods bound to nodes, as % of all GPUs' milli.");
  return svg::line_chart_svg(std::move(spec));
}

std::string gpu_fragmentation_svg(const GpuSeries& s, double end) {
  svg::ChartSpec spec = gpu_chart(s, end, "gpu-fragmentation", "GPU fragmentation (FGD)");
  spec.y_label = "Percent";
  spec.y_fixed_top = 100;
  spec.series.push_back(gpu_line(s, "fragmented (% of GPUs)", 3, [](const GpuSample& g, std::int64_t c) {
    return percent(g.frag_milli, c);
  }));
  spec.series.push_back(gpu_line(s, "fragmented (% of free)", 4, [](const GpuSample& g, std::int64_t) {
    return 100.0 * g.frag_ratio();
  }));
  spec.series.push_back(gpu_line(s, "free (% of GPUs)", 5, [](const GpuSample& g, std::int64_t c) {
    return percent(static_cast<double>(g.free_milli), c);
  }));
  spec.notes.push_back("Fragmentation: the free GPU milli the typical pods could not use, weighted by their "
                       "frequency (Weng et al., ATC'23).");
  return svg::line_chart_svg(std::move(spec));
}

std::vector<ReportFile> gpu_report_files(const GpuSeries& s, const ObjectStore& store, double end) {
  std::vector<ReportFile> files;
  files.push_back({"gpu.csv", gpu_timeseries_csv(s)});
  files.push_back({"gpu_devices.csv", gpu_devices_csv(s, store)});
  files.push_back({"gpu_allocation.svg", gpu_allocation_svg(s, end)});
  files.push_back({"gpu_fragmentation.svg", gpu_fragmentation_svg(s, end)});
  files.push_back({"gpu_gantt.svg", gpu_gantt_svg(s, store, end)});
  return files;
}

std::string gpu_report_section_html(const GpuSeries& s, const std::vector<ReportFile>& files) {
  std::string out = "<section id=\"gpus\"><h2>GPUs</h2>\n<p>" + std::to_string(s.gpus) + " GPUs; ";
  if (!s.samples.empty()) {
    const GpuSample& last = s.samples.back();
    out += "at the end " + svg::num(percent(static_cast<double>(last.whole_milli + last.shared_milli), s.capacity_milli), 2) +
           "% allocated, fragmentation " + svg::num(percent(last.frag_milli, s.capacity_milli), 2) + "% of the GPUs (" +
           svg::num(100.0 * last.frag_ratio(), 2) + "% of the free GPU milli).";
  }
  out += "</p>\n";
  for (const ReportFile& f : files) {
    if (f.name.size() < 4 || f.name.compare(f.name.size() - 4, 4, ".svg") != 0) continue;
    out += "<figure class=\"chart\" id=\"fig-" + svg::escape(f.name.substr(0, f.name.size() - 4)) + "\">\n";
    out += svg::strip_xml_declaration(f.content);
    out += "<figcaption>" + svg::escape(f.name) + "</figcaption>\n</figure>\n";
  }
  out += "<p>Files: <a href=\"gpu.csv\">gpu.csv</a>, <a href=\"gpu_devices.csv\">gpu_devices.csv</a>.</p>\n</section>\n";
  return out;
}

}  // namespace kubesim
