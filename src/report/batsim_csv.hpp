// Batsim-compatible outputs (jobs.csv, schedule.csv) plus the Kubernetes view (pods.csv).
//
// jobs.csv and schedule.csv reproduce what Batsim v4.2.1 writes (batsim src/export.cpp@v4.2.1,
// JobsTracer::write_job and JobsTracer::finalize), so that evalys and the batkube-test scripts
// read kubesim runs unchanged. A workload job is run by one pod; the pod's life is mapped onto
// Batsim's job states as described in batsim_csv.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/run_outputs.hpp"

namespace kubesim {

// The header line of jobs.csv (batsim src/export.cpp@v4.2.1, JobsTracer::initialize), without "\n".
extern const char* const kBatsimJobsHeader;

// jobs.csv: the header, then one row per workload job: jobs whose pod became terminal, in
// completion order, then the others (pod still Pending/Running at the end, or never created)
// in workload order.
std::string batsim_jobs_csv(const RunOutputs& run);

// schedule.csv: a header line of the v4.2.1 keys sorted bytewise and one line of values.
std::string batsim_schedule_csv(const RunOutputs& run);
// jobs.csv and/or schedule.csv (in this order), the jobs' outcomes computed once for both.
std::vector<ReportFile> batsim_job_files(const RunOutputs& run, bool jobs, bool schedule);

// Each workload job's outcome as jobs.csv writes it, in jobs.csv's row order: its submission,
// start and finish (start and finish unset when rejected), and whether Batsim would call it
// REJECTED or COMPLETED_SUCCESSFULLY. The reports' statistics (report/job_stats.hpp) and the
// run's messages read these, so that they say what jobs.csv says.
struct JobResult {
  std::uint32_t job = 0;  // workload index
  SimTime submission;
  SimTime start;
  SimTime finish;
  bool rejected = true;
  bool success = false;
};
std::vector<JobResult> job_results(const RunOutputs& run);

// pods.csv: one row per pod in creation (PodId) order with the Kubernetes lifecycle times.
// Every pod of the cluster is listed, as `kubectl get pods` would: a pod that runs no workload
// job (YuniKorn's placeholders, named tg-<app>-<task group>-<nonce>) has an empty job_id.
std::string pods_csv(const RunOutputs& run);
// pods_csv(run), handed to `sink` in pieces as it is formatted: a large run's pods.csv is never
// held whole (the NASA trace's 33 MB would cost more to allocate than to format).
void stream_pods_csv(const RunOutputs& run, const TextSink& sink);

// jobs.csv, schedule.csv and pods.csv, in this order.
std::vector<ReportFile> build_run_outputs(const RunOutputs& run);

// Creates `out_dir` (and its parents) if needed and writes jobs.csv, schedule.csv and pods.csv
// into it, each atomically. All three are built before any is written. Throws
// std::runtime_error naming the path when the directory or a file cannot be created.
void write_run_outputs(const std::string& out_dir, const RunOutputs& run);

// RFC 4180 field: returned as is unless it holds a comma, a double quote, CR or LF, in which
// case it is enclosed in double quotes with inner quotes doubled.
std::string csv_field(const std::string& s);
// csv_field(s), appended to `out`.
void append_csv_field(std::string& out, std::string_view s);

}  // namespace kubesim
