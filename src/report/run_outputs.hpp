// What the writers report on: the final object store, the workload that was submitted, and
// the order of completions. Built by the CLI after a run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "model/object_store.hpp"
#include "report/csv_text.hpp"
#include "workload/workload.hpp"

namespace kubesim {

struct RunOutputs {
  const ObjectStore& store;
  const Workload& workload;
  const std::vector<PodId>& completion_order;  // pods in the order they became terminal
  const std::vector<PodId>& job_pods;          // workload job index -> its pod (invalid: never created)
  SimTime end_time;                            // simulated time when the run ended
  std::string version;                         // kubesim version, for schedule.csv's batsim_version
};

// One output file: name within the output directory (may contain '/'), and content.
struct ReportFile {
  std::string name;
  std::string content;
  // Set instead of `content` for a file formatted as it is written (RunPipeline's
  // FileForm::kStreamed): write_report_files() calls it once with the file's sink. It reads
  // the run's state, which must outlive the writing.
  std::function<void(const TextSink&)> stream = {};
};

// Creates `out_dir` (and parents) and writes each file (and the folders in its name)
// atomically, in order. Throws std::runtime_error naming the path on failure.
void write_report_files(const std::string& out_dir, const std::vector<ReportFile>& files);

}  // namespace kubesim
