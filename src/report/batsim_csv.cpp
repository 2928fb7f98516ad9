#include "report/batsim_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "core/atomic_file.hpp"
#include "report/csv_text.hpp"

namespace kubesim {

const char* const kBatsimJobsHeader =
    "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,"
    "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
    "consumed_energy,metadata";

namespace {

constexpr const char* kPodsHeader =
    "namespace,pod,job_id,node,phase,reason,cpu_request_milli,memory_request_bytes,created,scheduled,started,finished,"
    "scheduling_attempts";

// Batsim's JobState values that a job can end in (batsim src/jobs.cpp@v4.2.1, job_state_to_string).
enum class BatsimJobState : std::uint8_t { kSuccess, kFailed, kWalltimeReached, kKilled, kRejected };

const char* to_string(BatsimJobState s) {
  switch (s) {
    case BatsimJobState::kSuccess: return "COMPLETED_SUCCESSFULLY";
    case BatsimJobState::kFailed: return "COMPLETED_FAILED";
    case BatsimJobState::kWalltimeReached: return "COMPLETED_WALLTIME_REACHED";
    case BatsimJobState::kKilled: return "COMPLETED_KILLED";
    case BatsimJobState::kRejected: return "REJECTED";
  }
  return "";
}

// How one workload job ended, in Batsim's terms. For non-rejected jobs start <= finish.
struct JobOutcome {
  BatsimJobState state = BatsimJobState::kRejected;
  SimTime submission;
  SimTime start;
  SimTime finish;
  NodeId node;  // invalid: empty allocation
  // A parallel job's allocation: its started ranks' nodes, sorted (the caller's scratch vector).
  std::span<const std::uint32_t> machines;
  bool rejected() const { return state == BatsimJobState::kRejected; }
};

// A job in output order with the pod that ran it (nullptr: never created).
struct JobRow {
  std::uint32_t job = 0;
  const Pod* pod = nullptr;
};

const Pod* pod_or_null(const ObjectStore& store, PodId id) {
  return id.valid() && id.value() < store.pod_count() ? &store.pod(id) : nullptr;
}

// Batsim appends a jobs.csv row when a job completes (batsim src/export.cpp@v4.2.1,
// JobsTracer::write_job is called from the job-completion handlers), so rows follow completion
// order. Batsim never ends with incomplete jobs (write_job xbt_die()s on them); kubesim can,
// and reports those after the completed ones, in workload order.
std::vector<JobRow> jobs_in_output_order(const RunOutputs& run) {
  const std::size_t n = run.workload.jobs.size();
  std::vector<JobRow> rows;
  rows.reserve(n);
  std::vector<bool> emitted(n, false);
  std::vector<std::uint32_t> ended(n, 0);  // a parallel job completes with its last pod
  for (const PodId id : run.completion_order) {
    const Pod* pod = pod_or_null(run.store, id);
    if (pod == nullptr || pod->workload_job >= n || emitted[pod->workload_job]) continue;
    if (++ended[pod->workload_job] < std::max<std::uint32_t>(pod->machines, 1)) continue;
    emitted[pod->workload_job] = true;
    const std::uint32_t job = pod->workload_job;
    rows.push_back(JobRow{job, pod});
  }
  for (std::uint32_t j = 0; j < n; ++j) {
    if (emitted[j]) continue;
    const Pod* pod = j < run.job_pods.size() ? pod_or_null(run.store, run.job_pods[j]) : nullptr;
    rows.push_back(JobRow{j, pod});
  }
  return rows;
}

// Maps a pod's life onto Batsim's job model. A Batsim job starts when its allocation is given
// and the profile begins; the closest Kubernetes moment is the container start, so a pod whose
// container never started (kubelet admission failure such as OutOfcpu, still Pending at the
// end, never created) is REJECTED: Batsim has no start time to write for it.
JobOutcome pod_outcome_of(const RunOutputs& run, const WorkloadJob& job, const Pod* pod);

// The ranks of each rigid parallel job (Pod::machines > 1): rank -> its latest pod (invalid:
// never created). Bare pods of one job are consecutive; a Job's pods (the kueue setup runs a
// parallel job as an Indexed Job) are not, and an index recreated replaces its earlier pod.
using JobRanks = std::vector<std::vector<PodId>>;
JobRanks ranks_of_jobs(const RunOutputs& run) {
  JobRanks ranks(run.workload.jobs.size());
  for (std::size_t i = 0; i < run.store.pod_count(); ++i) {
    const PodId id(static_cast<std::uint32_t>(i));
    const Pod& p = run.store.pod(id);
    if (p.machines <= 1 || p.workload_job >= ranks.size()) continue;
    std::vector<PodId>& r = ranks[p.workload_job];
    if (r.empty()) r.assign(p.machines, PodId());
    if (p.machine_rank < r.size()) r[p.machine_rank] = id;
  }
  return ranks;
}

// A rigid parallel job (Batsim's `res` machines, one pod per machine): it started when its
// first rank started (it began to hold machines) and ended with its last; its state is its
// started ranks' worst (walltime reached, failed, killed over success). The allocation lists
// the started ranks' nodes. A job of which no rank started is REJECTED. A job placed in part
// (kube-scheduler without a gang: some ranks never started, or never all at once, see
// control/kubelet.hpp) is reported with the machines it held, and the state that ended its
// waiting ranks: COMPLETED_WALLTIME_REACHED (activeDeadlineSeconds) or COMPLETED_KILLED (cut
// off by the end of the run, deleted).
JobOutcome parallel_outcome_of(const RunOutputs& run, const WorkloadJob& job, const std::vector<PodId>& ranks,
                               std::vector<std::uint32_t>& nodes) {
  // Submitted when the job was (its pods, or its Job, created at the job's subtime; a Job's
  // pods later, once admitted).
  JobOutcome out;
  out.submission = job.submit;
  nodes.clear();
  for (const PodId id : ranks) {
    const Pod* pod = pod_or_null(run.store, id);
    if (pod == nullptr) continue;
    const JobOutcome o = pod_outcome_of(run, job, pod);
    if (o.rejected()) continue;
    out.start = nodes.empty() ? o.start : std::min(out.start, o.start);
    out.finish = nodes.empty() ? o.finish : std::max(out.finish, o.finish);
    if (nodes.empty() || static_cast<int>(o.state) > static_cast<int>(out.state)) out.state = o.state;
    nodes.push_back(o.node.value());
  }
  if (nodes.empty()) return JobOutcome{BatsimJobState::kRejected, out.submission};
  std::sort(nodes.begin(), nodes.end());
  out.machines = nodes;
  return out;
}

JobOutcome pod_outcome_of(const RunOutputs& run, const WorkloadJob& job, const Pod* pod) {
  JobOutcome out;
  out.submission = job.submit;
  if (pod == nullptr) return out;
  if (!pod->created.is_never()) out.submission = pod->created;
  if (pod->started.is_never()) return out;

  out.start = pod->started;
  // A container still running when the run stopped is cut off at the end time; it is reported
  // as killed (Batsim itself would never have stopped).
  out.finish = pod->finished.is_never() ? run.end_time : pod->finished;
  if (out.finish.is_never() || out.finish < out.start) out.finish = out.start;
  out.node = pod->node;

  switch (pod->phase) {
    case PodPhase::kSucceeded:
      out.state = BatsimJobState::kSuccess;
      break;
    case PodPhase::kFailed:
      // The kubelet sets reason DeadlineExceeded when activeDeadlineSeconds (the walltime) ends
      // the pod. A container that exits non-zero leaves status.reason empty, which is Batsim's
      // COMPLETED_FAILED (profile "ret" != 0); any other reason (eviction, preemption, ...) is
      // an external kill.
      if (pod->reason == "DeadlineExceeded") {
        out.state = BatsimJobState::kWalltimeReached;
      } else if (pod->reason.empty() && pod->exit_code != 0) {
        out.state = BatsimJobState::kFailed;
      } else {
        out.state = BatsimJobState::kKilled;
      }
      break;
    case PodPhase::kPending:
    case PodPhase::kRunning:
      out.state = BatsimJobState::kKilled;  // cut off by the end of the run
      break;
  }
  return out;
}

// `pod`: the job's pod (any rank of a parallel job, whose ranks `ranks` holds); `nodes`: scratch
// for a parallel job's allocation, which the outcome refers to.
JobOutcome outcome_of(const RunOutputs& run, const JobRanks& ranks, const WorkloadJob& job, const Pod* pod,
                      std::vector<std::uint32_t>& nodes) {
  if (pod != nullptr && pod->machines > 1) return parallel_outcome_of(run, job, ranks[pod->workload_job], nodes);
  return pod_outcome_of(run, job, pod);
}

// std::to_string(double), i.e. "%f", which is what Batsim uses for every float it writes
// (CsvText::put_fixed6). NaN is written "-nan": Batsim's NaNs come from 0/0 on x86-64, whose
// default NaN has the sign bit set, and glibc prints it "-nan"; fixing the spelling keeps
// outputs identical on other CPUs. `p` has room for CsvText::kMaxFixed6Chars.
char* put_batsim_double(char* p, double x) {
  return std::isnan(x) ? CsvText::put(p, "-nan") : CsvText::put_fixed6(p, x);
}

std::string batsim_double(double x) {
  char buf[CsvText::kMaxFixed6Chars];
  return std::string(buf, put_batsim_double(buf, x));
}

double micros_to_seconds(std::int64_t us) { return static_cast<double>(us) / 1e6; }

// Batsim's stretch/slowdown: turnaround / execution (batsim src/export.cpp@v4.2.1,
// JobsTracer::write_job), with no guard against a zero execution time: x/0 is inf, 0/0 NaN.
double stretch_of(const JobOutcome& o) {
  const std::int64_t turnaround = (o.finish - o.submission).micros();
  const std::int64_t execution = (o.finish - o.start).micros();
  if (execution == 0) return turnaround > 0 ? std::numeric_limits<double>::infinity()
                                            : std::numeric_limits<double>::quiet_NaN();
  return micros_to_seconds(turnaround) / micros_to_seconds(execution);
}

void append_job_row(CsvText& csv, const RunOutputs& run, const WorkloadJob& job, const JobOutcome& o) {
  // Field order and formatting: batsim src/export.cpp@v4.2.1, JobsTracer::write_job. Batsim does
  // not quote fields; put_field() only quotes values that would otherwise break the CSV.
  // Seven times, the stretch, res; the state's name, the commas and the constant tail fit in 64.
  constexpr std::size_t kNumbers = 7 * CsvText::kMaxSecondsChars + CsvText::kMaxFixed6Chars + CsvText::kMaxIntChars + 64;
  char* p = csv.room(CsvText::field_bound(job.id) + CsvText::field_bound(run.workload.name) +
                     CsvText::field_bound(job.profile) + kNumbers + (CsvText::kMaxIntChars + 1) * o.machines.size());
  p = CsvText::put_field(p, job.id);
  *p++ = ',';
  p = CsvText::put_field(p, run.workload.name);
  *p++ = ',';
  p = CsvText::put_field(p, job.profile);
  *p++ = ',';
  p = CsvText::put_seconds(p, o.submission.micros());
  *p++ = ',';
  p = CsvText::put_int(p, job.requested_resources);
  *p++ = ',';
  // Batsim's walltime is -1 when the job has none; to_string(-1.0) is "-1.000000".
  p = job.walltime.micros() > 0 ? CsvText::put_seconds(p, job.walltime.micros()) : CsvText::put(p, "-1.000000");
  *p++ = ',';
  *p++ = o.state == BatsimJobState::kSuccess ? '1' : '0';
  *p++ = ',';
  p = CsvText::put(p, to_string(o.state));
  if (o.rejected()) {
    // Rejected jobs: starting_time .. consumed_energy are empty and the allocation is the empty
    // interval set, which prints as "" (batsim src/export.cpp@v4.2.1).
    csv.done(CsvText::put(p, ",,,,,,,,,\"\"\n"));
    return;
  }
  for (const std::int64_t t : {o.start.micros(), (o.finish - o.start).micros(), o.finish.micros(),
                               (o.start - o.submission).micros(), (o.finish - o.submission).micros()}) {
    *p++ = ',';
    p = CsvText::put_seconds(p, t);
  }
  *p++ = ',';
  p = put_batsim_double(p, stretch_of(o));
  *p++ = ',';
  // allocated_resources: IntervalSet::to_string_hyphen(" ") of the Batsim resource ids: a pod
  // runs on one node, whose id is its index in the store; a parallel job's sorted nodes are
  // written as runs "a-b" of consecutive ids, separated by spaces.
  if (!o.machines.empty()) {
    const std::span<const std::uint32_t> nodes = o.machines;
    for (std::size_t i = 0; i < nodes.size();) {
      std::size_t j = i;
      while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1) ++j;
      if (i > 0) *p++ = ' ';
      p = CsvText::put_int(p, nodes[i]);
      if (j > i) {
        *p++ = '-';
        p = CsvText::put_int(p, nodes[j]);
      }
      i = j + 1;
    }
  } else if (o.node.valid()) {
    p = CsvText::put_int(p, o.node.value());
  }
  // consumed_energy: Job::consumed_energy stays -1 without energy simulation (-E); metadata:
  // always written as '"' + job->metadata + '"', empty here.
  csv.done(CsvText::put(p, ",-1.000000,\"\"\n"));
}

}  // namespace

void append_csv_field(std::string& out, std::string_view s) {
  const std::size_t size = out.size();
  out.resize(size + CsvText::field_bound(s));
  out.resize(static_cast<std::size_t>(CsvText::put_field(out.data() + size, s) - out.data()));
}

std::string csv_field(const std::string& s) {
  std::string out;
  append_csv_field(out, s);
  return out;
}

std::string batsim_jobs_csv(const RunOutputs& run) {
  CsvText csv(256 + run.workload.jobs.size() * 160);
  csv.append(kBatsimJobsHeader);
  csv.append("\n");
  const JobRanks ranks = ranks_of_jobs(run);
  std::vector<std::uint32_t> nodes;
  for (const JobRow& row : jobs_in_output_order(run)) {
    const WorkloadJob& job = run.workload.jobs[row.job];
    append_job_row(csv, run, job, outcome_of(run, ranks, job, row.pod, nodes));
  }
  return std::move(csv).take();
}

std::string batsim_schedule_csv(const RunOutputs& run) {
  // Counters and sums as in batsim src/export.cpp@v4.2.1 (JobsTracer::write_job, accumulated in
  // row order, and JobsTracer::finalize). Times are summed as exact integer microseconds.
  std::int64_t nb_jobs = 0;
  std::int64_t nb_finished = 0;
  std::int64_t nb_success = 0;
  std::int64_t nb_killed = 0;
  std::int64_t nb_rejected = 0;
  std::int64_t makespan = 0;
  std::int64_t sum_waiting = 0;
  std::int64_t sum_turnaround = 0;
  std::int64_t max_waiting = 0;
  std::int64_t max_turnaround = 0;
  double sum_slowdown = 0;
  double max_slowdown = 0;

  // Busy intervals per node, for the machine-state times.
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> busy(run.store.node_count());

  const JobRanks ranks = ranks_of_jobs(run);
  std::vector<std::uint32_t> nodes;
  for (const JobRow& row : jobs_in_output_order(run)) {
    const JobOutcome o = outcome_of(run, ranks, run.workload.jobs[row.job], row.pod, nodes);
    ++nb_jobs;
    if (o.rejected()) {
      ++nb_rejected;
      continue;
    }
    ++nb_finished;
    // Batsim's "killed" is every finished job that is not a success (failed, walltime, killed).
    if (o.state == BatsimJobState::kSuccess) {
      ++nb_success;
    } else {
      ++nb_killed;
    }
    const std::int64_t waiting = (o.start - o.submission).micros();
    const std::int64_t turnaround = (o.finish - o.submission).micros();
    const double slowdown = stretch_of(o);
    sum_waiting += waiting;
    sum_turnaround += turnaround;
    sum_slowdown += slowdown;
    makespan = std::max(makespan, o.finish.micros());  // completion time, absolute
    max_waiting = std::max(max_waiting, waiting);
    max_turnaround = std::max(max_turnaround, turnaround);
    if (slowdown > max_slowdown) max_slowdown = slowdown;  // NaN never wins, as in Batsim
    if (o.node.valid() && o.node.value() < busy.size())
      busy[o.node.value()].emplace_back(o.start.micros(), o.finish.micros());
  }

  // Machine states (batsim src/machines.cpp, s4u-era v4 sources: Machine::update_machine_state,
  // Machines::update_machines_on_job_run/_end): a machine is IDLE from time 0, turns COMPUTING
  // when a job starts on it and back to IDLE when its last job ends, and update_machine_state()
  // adds the elapsed time to the state being left. Time is only credited on a transition and
  // nothing closes the final period at the end of the simulation, so a machine's idle time is
  // the gaps before its busy periods: idle time after its last job (and all of an unused
  // machine's time) is not counted.
  std::int64_t time_computing = 0;
  std::int64_t time_idle = 0;
  for (auto& intervals : busy) {
    if (intervals.empty()) continue;
    std::sort(intervals.begin(), intervals.end());
    std::int64_t computing = 0;
    std::int64_t cur_start = intervals.front().first;
    std::int64_t cur_end = intervals.front().second;
    for (const auto& [s, e] : intervals) {
      if (s > cur_end) {
        computing += cur_end - cur_start;
        cur_start = s;
        cur_end = e;
      } else {
        cur_end = std::max(cur_end, e);
      }
    }
    computing += cur_end - cur_start;
    time_computing += computing;
    time_idle += cur_end - computing;
  }

  // Batsim divides by nb_jobs, which counts rejected jobs too; with no job at all the
  // divisions are 0/0 and print as NaN.
  const double n = static_cast<double>(nb_jobs);
  const auto mean = [&](double sum) {
    return nb_jobs == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / n;
  };

  std::map<std::string, std::string> values;
  values["batsim_version"] = "kubesim-" + run.version;
  // consumed_joules = energy_last_job_completion - energy_first_job_submission; without energy
  // both stay -1 (batsim src/context.hpp, v4 series), hence 0.
  values["consumed_joules"] = "0.000000";
  values["makespan"] = format_seconds(makespan);
  values["max_slowdown"] = batsim_double(max_slowdown);
  values["max_turnaround_time"] = format_seconds(max_turnaround);
  values["max_waiting_time"] = format_seconds(max_waiting);
  values["mean_slowdown"] = batsim_double(mean(sum_slowdown));
  values["mean_turnaround_time"] = batsim_double(mean(micros_to_seconds(sum_turnaround)));
  values["mean_waiting_time"] = batsim_double(mean(micros_to_seconds(sum_waiting)));
  values["nb_computing_machines"] = std::to_string(run.store.node_count());  // machines.nb_machines()
  values["nb_grouped_switches"] = "0";  // no power-state switches are simulated
  values["nb_jobs"] = std::to_string(nb_jobs);
  values["nb_jobs_finished"] = std::to_string(nb_finished);
  values["nb_jobs_killed"] = std::to_string(nb_killed);
  values["nb_jobs_rejected"] = std::to_string(nb_rejected);
  values["nb_jobs_success"] = std::to_string(nb_success);
  values["nb_machine_switches"] = "0";
  // Batsim writes wall-clock seconds spent in the scheduler and in the whole run here; kubesim
  // writes 0 so that outputs are byte-identical across runs.
  values["scheduling_time"] = "0.000000";
  values["simulation_time"] = "0.000000";
  values["success_rate"] = batsim_double(mean(static_cast<double>(nb_success)));
  values["time_computing"] = format_seconds(time_computing);
  values["time_idle"] = format_seconds(time_idle);
  values["time_sleeping"] = "0.000000";
  values["time_switching_off"] = "0.000000";
  values["time_switching_on"] = "0.000000";
  values["time_unavailable"] = "0.000000";

  std::string keys_line;
  std::string values_line;
  for (const auto& [key, value] : values) {  // std::map: bytewise key order, as Batsim's output_map
    if (!keys_line.empty()) {
      keys_line += ',';
      values_line += ',';
    }
    keys_line += key;
    values_line += csv_field(value);
  }
  return keys_line + "\n" + values_line + "\n";
}

std::string pods_csv(const RunOutputs& run) {
  // The largest output of a run (one row per pod: 303,638 rows, 33 MB for the NASA trace):
  // one buffer, each row written in place (report/csv_text.hpp), and the fields that repeat
  // (namespace, node, phase) escaped once.
  const ObjectStore& store = run.store;
  std::vector<std::string> namespaces(store.namespace_count());
  for (std::uint32_t i = 0; i < namespaces.size(); ++i) namespaces[i] = csv_field(store.namespace_(NamespaceId(i)).name);
  std::vector<std::string> nodes(store.node_count());
  for (std::uint32_t i = 0; i < nodes.size(); ++i) nodes[i] = csv_field(store.node(NodeId(i)).name);
  const std::string_view phases[] = {to_string(PodPhase::kPending), to_string(PodPhase::kRunning),
                                     to_string(PodPhase::kSucceeded), to_string(PodPhase::kFailed)};
  const auto longest = [](const std::vector<std::string>& v) {
    std::size_t n = 0;
    for (const std::string& s : v) n = std::max(n, s.size());
    return n;
  };
  // Room for a row beyond its own texts: the longest namespace and node, the phase (at most
  // 16), the numbers and the commas.
  const std::size_t row_fixed = longest(namespaces) + longest(nodes) + 16 + 3 * CsvText::kMaxIntChars +
                                4 * CsvText::kMaxSecondsChars + 13;

  CsvText csv(128 + store.pod_count() * 112);
  csv.append(kPodsHeader);
  csv.append("\n");
  const std::vector<WorkloadJob>& jobs = run.workload.jobs;
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) {
    const PodId id(i);
    const Pod& pod = store.pod(id);
    const PodTemplate& spec = store.spec_of(id);
    const std::string_view job_id = pod.workload_job < jobs.size() ? std::string_view(jobs[pod.workload_job].id) : "";
    const std::string& reason = pod.reason.str();
    char* p = csv.room(row_fixed + CsvText::field_bound(pod.name) + CsvText::field_bound(job_id) +
                       CsvText::field_bound(reason));
    if (pod.ns.valid() && pod.ns.value() < namespaces.size()) p = CsvText::put(p, namespaces[pod.ns.value()]);
    *p++ = ',';
    p = CsvText::put_field(p, pod.name);
    *p++ = ',';
    p = CsvText::put_field(p, job_id);
    *p++ = ',';
    if (pod.node.valid() && pod.node.value() < nodes.size()) p = CsvText::put(p, nodes[pod.node.value()]);
    *p++ = ',';
    p = CsvText::put(p, phases[static_cast<std::size_t>(pod.phase)]);
    *p++ = ',';
    p = CsvText::put_field(p, reason);
    *p++ = ',';
    p = CsvText::put_int(p, spec.requests[kCpu]);
    *p++ = ',';
    p = CsvText::put_int(p, spec.requests[kMemory]);
    *p++ = ',';
    for (const SimTime t : {pod.created, pod.scheduled, pod.started, pod.finished}) {
      if (!t.is_never()) p = CsvText::put_seconds(p, t.micros());
      *p++ = ',';
    }
    p = CsvText::put_int(p, pod.scheduling_attempts);
    *p++ = '\n';
    csv.done(p);
  }
  return std::move(csv).take();
}

std::vector<ReportFile> build_run_outputs(const RunOutputs& run) {
  return {{"jobs.csv", batsim_jobs_csv(run)}, {"schedule.csv", batsim_schedule_csv(run)}, {"pods.csv", pods_csv(run)}};
}

void write_run_outputs(const std::string& out_dir, const RunOutputs& run) {
  // Build everything first: a failure while computing leaves no partial set of files.
  write_report_files(out_dir, build_run_outputs(run));
}

void write_report_files(const std::string& out_dir, const std::vector<ReportFile>& files) {
  const std::filesystem::path dir = make_output_directory(out_dir);
  for (const ReportFile& f : files) {
    const std::filesystem::path path = dir / f.name;
    if (f.name.find('/') != std::string::npos) make_output_directory(path.parent_path().string());
    write_file_atomically(path.string(), f.content);
  }
}

}  // namespace kubesim
