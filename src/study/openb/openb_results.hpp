// The protocol's outputs in the FGD authors' formats, so that their analysis and plot scripts
// (hkust-adsl/kubernetes-scheduler-simulator experiments/analysis/merge_*_discrete.py and
// experiments/plot/plot_openb_*.py) run unchanged on kubesim's results:
//
//   analysis_allo.csv   one row per arrived pod: used_nodes, used_gpus, used_gpu_milli,
//                       total_gpus, arrived_gpu_milli (scripts/analysis.py's "[Alloc]" columns)
//   analysis_frag.csv   one row per arrived pod: origin_milli, origin_ratio, origin_q124 (the
//                       "[Report] ... (origin)" columns, printed %.2f as the authors' log has them)
//   analysis_allo_discrete.csv, analysis_frag_discrete.csv, analysis_frag_ratio_discrete.csv:
//                       one row per run (workload, sc_policy, tune, seed[, total_gpus]) and
//                       columns 0..130: at each whole percent of arrived GPU request, the mean
//                       allocation ratio / fragmentation amount (% of the cluster's GPUs) /
//                       fragmentation ratio of the pods whose arrived ratio rounds to it, as
//                       the merge_*_discrete.py scripts compute them (Python rounding included)
// and report.html with kubesim's charts of the same curves.
#pragma once

#include <string>
#include <vector>

#include "study/openb/openb_protocol.hpp"

namespace kubesim::openb {

// The three discrete files' names, in the order of DiscreteRows.
inline constexpr const char* kDiscreteFiles[] = {"analysis_allo_discrete.csv", "analysis_frag_discrete.csv",
                                                 "analysis_frag_ratio_discrete.csv"};

struct RunLabels {
  std::string workload;  // e.g. openb_pod_list_default
  std::string policy;    // e.g. 06-FGD
  std::string tune;      // e.g. 1.3
  std::string seed;      // e.g. 42
};

std::string allo_steps_csv(const ProtocolResult& r);
std::string frag_steps_csv(const ProtocolResult& r);

// The header line of each discrete file (with its newline).
std::vector<std::string> discrete_headers();
// One run's row of each discrete file (with its newline).
std::vector<std::string> discrete_rows(const ProtocolResult& r, const RunLabels& labels);

// A tune value as the authors' folder names print it ("1.3").
std::string tune_label(double tune);

// report.html of one protocol run: a summary table and the three curves against arrived GPU %.
std::string protocol_report_html(const ProtocolResult& r, const RunLabels& labels);

// openb.html of a sweep of protocol runs: per workload, the mean over seeds of each policy's
// allocation ratio, fragmentation amount and ratio against arrived GPU %, from the merged
// discrete files' texts (in kDiscreteFiles order).
std::string discrete_report_html(const std::string& plan_name, const std::vector<std::string>& merged_csvs);

}  // namespace kubesim::openb
