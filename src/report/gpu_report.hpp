// The GPU outputs of a run with GPUs (metrics/gpu_recorder.hpp):
//   gpu.csv          per instant: GPU milli allocated (whole GPUs, shares), free GPUs, the
//                    fragmentation amount (GPU milli) and its ratio to the free milli;
//   gpu_devices.csv  one row per (pod, device) held: node, device, model, pod, share, start, end;
//   gpu_allocation.svg, gpu_fragmentation.svg  those figures over time (% of the cluster's GPUs);
//   gpu_gantt.svg    one row per GPU (of the first nodes), each pod's share drawn as a bar whose
//                    height is its share of the GPU, stacked: the GPU's fill over time;
// and report.html's "GPUs" section with the charts.
#pragma once

#include <string>
#include <vector>

#include "metrics/gpu_recorder.hpp"
#include "report/run_outputs.hpp"

namespace kubesim {

std::string gpu_timeseries_csv(const GpuSeries& series);
std::string gpu_devices_csv(const GpuSeries& series, const ObjectStore& store);
std::string gpu_allocation_svg(const GpuSeries& series, double end_seconds);
std::string gpu_fragmentation_svg(const GpuSeries& series, double end_seconds);
// At most `max_gpus` rows (the GPUs of the first nodes by id).
std::string gpu_gantt_svg(const GpuSeries& series, const ObjectStore& store, double end_seconds,
                          std::size_t max_gpus = 64);
// The CSVs and charts above, in that order.
std::vector<ReportFile> gpu_report_files(const GpuSeries& series, const ObjectStore& store, double end_seconds);
// report.html's section: a summary line and the three charts inlined.
std::string gpu_report_section_html(const GpuSeries& series, const std::vector<ReportFile>& files);

}  // namespace kubesim
