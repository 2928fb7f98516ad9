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
#include "core/huge_pages.hpp"
#include "model/pod_end.hpp"
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
  SimTime submitted = SimTime::never();  // a single-pod Job: its first pod's creation
};

const Pod* pod_or_null(const ObjectStore& store, PodId id) {
  return id.valid() && id.value() < store.pod_count() ? &store.pod(id) : nullptr;
}

// Batsim appends a jobs.csv row when a job completes (batsim src/export.cpp@v4.2.1,
// JobsTracer::write_job is called from the job-completion handlers), so rows follow completion
// order. Batsim never ends with incomplete jobs (write_job xbt_die()s on them); kubesim can,
// and reports those after the completed ones, in workload order.
// Single-pod Jobs, whose pod may be replaced: a Job whose pod failed (a preemption victim, an
// evicted or deleted pod) gets a new pod from the Job controller until its backoffLimit, so
// the Job completes with the pod that succeeded, or else fails with its last failed pod
// (pkg/controller/job/job_controller.go, syncJob: Complete once succeeded >= completions,
// Failed once failed > backoffLimit). It was submitted when its first pod was created.
// Both empty when no job is a single-pod Job.
struct JobPods {
  std::vector<PodId> final_pod;   // by workload job; invalid: none ended, or not such a Job
  std::vector<SimTime> first_created;  // by workload job; never: not such a Job
};

JobPods single_pod_jobs(const RunOutputs& run) {
  const std::vector<WorkloadJob>& jobs = run.workload.jobs;
  const auto single_pod_job = [](const WorkloadJob& j) { return j.as_job && j.machines <= 1 && j.pods_asked() == 1; };
  JobPods out;
  if (std::none_of(jobs.begin(), jobs.end(), single_pod_job)) return out;
  out.final_pod.resize(jobs.size());
  out.first_created.assign(jobs.size(), SimTime::never());
  for (std::uint32_t i = 0; i < run.store.pod_count(); ++i) {
    const Pod& p = run.store.pod(PodId(i));
    if (p.workload_job < jobs.size() && single_pod_job(jobs[p.workload_job]))
      out.first_created[p.workload_job] = std::min(out.first_created[p.workload_job], p.created);
  }
  for (const PodId id : run.completion_order) {
    const Pod* pod = pod_or_null(run.store, id);
    if (pod == nullptr || pod->workload_job >= jobs.size() || !single_pod_job(jobs[pod->workload_job])) continue;
    PodId& final_pod = out.final_pod[pod->workload_job];
    if (!final_pod.valid() || run.store.pod(final_pod).phase != PodPhase::kSucceeded) final_pod = id;
  }
  return out;
}

std::vector<JobRow> jobs_in_output_order(const RunOutputs& run) {
  const std::size_t n = run.workload.jobs.size();
  std::vector<JobRow> rows;
  rows.reserve(n);
  std::vector<bool> emitted(n, false);
  std::vector<std::uint32_t> ended(n, 0);  // a parallel job completes with its last pod
  const JobPods job_pods = single_pod_jobs(run);
  const auto submitted = [&](std::uint32_t job) {
    return job_pods.first_created.empty() ? SimTime::never() : job_pods.first_created[job];
  };
  for (const PodId id : run.completion_order) {
    const Pod* pod = pod_or_null(run.store, id);
    if (pod == nullptr || pod->workload_job >= n || emitted[pod->workload_job]) continue;
    if (!job_pods.final_pod.empty() && job_pods.final_pod[pod->workload_job].valid() &&
        job_pods.final_pod[pod->workload_job] != id)
      continue;
    if (++ended[pod->workload_job] < std::max<std::uint32_t>(pod->machines, 1)) continue;
    emitted[pod->workload_job] = true;
    const std::uint32_t job = pod->workload_job;
    rows.push_back(JobRow{job, pod, submitted(job)});
  }
  for (std::uint32_t j = 0; j < n; ++j) {
    if (emitted[j]) continue;
    const Pod* pod = j < run.job_pods.size() ? pod_or_null(run.store, run.job_pods[j]) : nullptr;
    rows.push_back(JobRow{j, pod, submitted(j)});
  }
  return rows;
}

// Maps a pod's life onto Batsim's job model. A Batsim job starts when its allocation is given
// and the profile begins; the closest Kubernetes moment is the container start, so a pod whose
// container never started (kubelet admission failure such as OutOfcpu, still Pending at the
// end, never created) is REJECTED: Batsim has no start time to write for it.
JobOutcome pod_outcome_of(const RunOutputs& run, const WorkloadJob& job, const Pod* pod);

// The ranks of each rigid parallel job (Pod::machines > 1): rank -> its latest pod (invalid:
// never created), in one array.
class JobRanks {
 public:
  explicit JobRanks(const RunOutputs& run) : slots_of_job_(run.workload.jobs.size()) {
    const std::vector<WorkloadJob>& jobs = run.workload.jobs;
    bool job_objects = false;
    for (std::uint32_t j = 0; j < jobs.size(); ++j) {
      if (jobs[j].machines <= 1) continue;
      if (jobs[j].as_job) {
        job_objects = true;
        continue;
      }
      // Bare pods, created together: rank k is the first's PodId + k (Simulation::submit), if
      // its creation was not refused (parallel_outcome_of checks each pod's job and rank).
      const Slots& s = add(j, jobs[j].machines);
      const PodId first = j < run.job_pods.size() ? run.job_pods[j] : PodId();
      if (first.valid())
        for (std::uint32_t k = 0; k < s.count; ++k) pods_[s.first + k] = PodId(first.value() + k);
    }
    if (!job_objects) return;
    // A Job's pods (the kueue setup runs a parallel job as an Indexed Job) are not consecutive,
    // and an index recreated replaces its earlier pod: they are found among all pods.
    for (std::uint32_t i = 0; i < run.store.pod_count(); ++i) {
      const Pod& p = run.store.pod(PodId(i));
      if (p.machines <= 1 || p.workload_job >= jobs.size() || !jobs[p.workload_job].as_job) continue;
      const Slots& s = slots_of_job_[p.workload_job].count == 0 ? add(p.workload_job, p.machines)
                                                                : slots_of_job_[p.workload_job];
      if (p.machine_rank < s.count) pods_[s.first + p.machine_rank] = PodId(i);
    }
  }
  std::span<const PodId> of(std::uint32_t job) const {
    const Slots& s = slots_of_job_[job];
    return {pods_.data() + s.first, s.count};
  }

 private:
  struct Slots {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
  };
  const Slots& add(std::uint32_t job, std::uint32_t ranks) {
    slots_of_job_[job] = Slots{static_cast<std::uint32_t>(pods_.size()), ranks};
    pods_.resize(pods_.size() + ranks);
    return slots_of_job_[job];
  }
  std::vector<Slots> slots_of_job_;
  std::vector<PodId> pods_;
};

// A rigid parallel job (Batsim's `res` machines, one pod per machine): it started when its
// first rank started (it began to hold machines) and ended with its last; its state is its
// started ranks' worst (walltime reached, failed, killed over success). The allocation lists
// the started ranks' nodes. A job of which no rank started is REJECTED. A job placed in part
// (kube-scheduler without a gang: some ranks never started, or never all at once, see
// control/kubelet.hpp) is reported with the machines it held, and the state that ended its
// waiting ranks: COMPLETED_WALLTIME_REACHED (activeDeadlineSeconds) or COMPLETED_KILLED (cut
// off by the end of the run, deleted).
JobOutcome parallel_outcome_of(const RunOutputs& run, std::uint32_t job_index, std::span<const PodId> ranks,
                               std::vector<std::uint32_t>& nodes) {
  const WorkloadJob& job = run.workload.jobs[job_index];
  // Submitted when the job was (its pods, or its Job, created at the job's subtime; a Job's
  // pods later, once admitted).
  JobOutcome out;
  out.submission = job.submit;
  nodes.clear();
  for (std::uint32_t rank = 0; rank < ranks.size(); ++rank) {
    const Pod* pod = pod_or_null(run.store, ranks[rank]);
    if (pod == nullptr || pod->workload_job != job_index || pod->machine_rank != rank) continue;
    const JobOutcome o = pod_outcome_of(run, job, pod);
    if (o.rejected()) continue;
    out.start = nodes.empty() ? o.start : std::min(out.start, o.start);
    out.finish = nodes.empty() ? o.finish : std::max(out.finish, o.finish);
    if (nodes.empty() || static_cast<int>(o.state) > static_cast<int>(out.state)) out.state = o.state;
    nodes.push_back(o.node.value());
  }
  if (nodes.empty()) {
    JobOutcome rejected;
    rejected.submission = out.submission;
    return rejected;
  }
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

  // A pod that runs until its owner deletes it ended as planned when its owner did (a BSP
  // task at a reconfiguration: model/pod_end.hpp).
  switch (ended_by_owner(*pod) ? PodPhase::kSucceeded : pod->phase) {
    case PodPhase::kSucceeded:
      out.state = BatsimJobState::kSuccess;
      break;
    case PodPhase::kFailed:
      // The kubelet sets reason DeadlineExceeded when activeDeadlineSeconds (the walltime) ends
      // the pod. A container that exits non-zero leaves status.reason empty, which is Batsim's
      // COMPLETED_FAILED (profile "ret" != 0); any other reason (eviction, preemption, ...) is
      // an external kill, and so is the plain deletion of a rank of a rigid Batsim job (what a
      // Batsim scheduler's KILL_JOB does, batsim_server/).
      if (pod->reason == "DeadlineExceeded") {
        out.state = BatsimJobState::kWalltimeReached;
      } else if (pod->reason.empty() && pod->exit_code != 0 &&
                 !(pod->machines > 0 && pod->disruption == DisruptionReason::kDeletionByUser)) {
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
  if (pod != nullptr && pod->machines > 1)
    return parallel_outcome_of(run, pod->workload_job, ranks.of(pod->workload_job), nodes);
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

void append_job_row(CsvText& csv, const RunOutputs& run, std::size_t job_index, const JobOutcome& o) {
  const WorkloadJob& job = run.workload.jobs[job_index];
  // metadata: Batsim writes '"' + job->metadata + '"' (SET_JOB_METADATA refuses double quotes).
  const std::vector<std::string>* meta = run.workload.job_metadata.get();
  const std::string_view metadata = meta && job_index < meta->size() ? std::string_view((*meta)[job_index]) : std::string_view("");
  // Field order and formatting: batsim src/export.cpp@v4.2.1, JobsTracer::write_job. Batsim does
  // not quote fields; put_field() only quotes values that would otherwise break the CSV.
  // Seven times, the stretch, res; the state's name, the commas and the constant tail fit in 64.
  constexpr std::size_t kNumbers = 7 * CsvText::kMaxSecondsChars + CsvText::kMaxFixed6Chars + CsvText::kMaxIntChars + 64;
  char* p = csv.room(CsvText::field_bound(job.id) + CsvText::field_bound(run.workload.name) +
                     CsvText::field_bound(job.profile) + kNumbers + (CsvText::kMaxIntChars + 1) * o.machines.size() +
                     metadata.size());
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
    p = CsvText::put(p, ",,,,,,,,,\"");
    csv.done(CsvText::put(CsvText::put(p, metadata), "\"\n"));
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
  // consumed_energy: Job::consumed_energy stays -1 without energy simulation (-E).
  p = CsvText::put(p, ",-1.000000,\"");
  csv.done(CsvText::put(CsvText::put(p, metadata), "\"\n"));
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

namespace {

// Every workload job's outcome in jobs.csv's row order: what jobs.csv and schedule.csv are both
// made of, computed once for the two.
struct JobTable {
  struct Row {
    std::uint32_t job = 0;
    JobOutcome outcome;
  };
  std::vector<Row> rows;
  // The parallel jobs' allocations, which their outcomes view (a machine per rank: 1.2 MB for
  // the NASA trace, in huge pages as the pod table).
  HugePageVector<std::uint32_t> machines;
};

JobTable job_table(const RunOutputs& run) {
  const JobRanks ranks(run);
  const std::vector<JobRow> order = jobs_in_output_order(run);
  JobTable table;
  table.rows.reserve(order.size());
  std::vector<std::size_t> first_machine;  // per row, where its allocation begins in table.machines
  first_machine.reserve(order.size());
  table.machines.reserve(run.store.pod_count());  // at most a machine per pod
  std::vector<std::uint32_t> nodes;
  for (const JobRow& row : order) {
    JobOutcome o = outcome_of(run, ranks, run.workload.jobs[row.job], row.pod, nodes);
    if (!row.submitted.is_never()) o.submission = row.submitted;
    first_machine.push_back(table.machines.size());
    table.machines.insert(table.machines.end(), o.machines.begin(), o.machines.end());
    table.rows.push_back({row.job, o});
  }
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    JobOutcome& o = table.rows[i].outcome;
    o.machines = {table.machines.data() + first_machine[i], o.machines.size()};
  }
  return table;
}

std::string jobs_csv_of(const RunOutputs& run, const JobTable& table) {
  CsvText csv(256 + run.workload.jobs.size() * 160);
  csv.append(kBatsimJobsHeader);
  csv.append("\n");
  for (const JobTable::Row& row : table.rows) append_job_row(csv, run, row.job, row.outcome);
  return std::move(csv).take();
}

// A time as Batsim holds it: SimGrid's clock is a double of seconds, and Batsim computes with
// it in long double (batsim src/jobs.hpp@v4.2.1: starting_time, runtime, submission_time;
// src/machines.cpp: Machine::update_machine_state). The schedule.csv figures are sums of
// thousands of such values, so they are summed the same way to print the same last digit.
long double batsim_time(std::int64_t micros) { return static_cast<long double>(micros_to_seconds(micros)); }

// The per-job counters and sums of schedule.csv, as in batsim src/export.cpp@v4.2.1
// (JobsTracer::write_job, accumulated in row order, and JobsTracer::finalize).
struct JobFigures {
  std::int64_t nb_jobs = 0;
  std::int64_t nb_finished = 0;
  std::int64_t nb_success = 0;
  std::int64_t nb_killed = 0;
  std::int64_t nb_rejected = 0;
  long double makespan = 0;
  long double sum_waiting = 0;
  long double sum_turnaround = 0;
  long double sum_slowdown = 0;
  long double max_waiting = 0;
  long double max_turnaround = 0;
  long double max_slowdown = 0;
};

JobFigures job_figures(const JobTable& table) {
  JobFigures f;
  for (const JobTable::Row& row : table.rows) {
    const JobOutcome& o = row.outcome;
    ++f.nb_jobs;
    if (o.rejected()) {
      ++f.nb_rejected;
      continue;
    }
    ++f.nb_finished;
    // Batsim's "killed" is every finished job that is not a success (failed, walltime, killed).
    if (o.state == BatsimJobState::kSuccess) {
      ++f.nb_success;
    } else {
      ++f.nb_killed;
    }
    // JobsTracer::write_job, in its long doubles. A null runtime stays 0, as in jobs.csv (x/0 is
    // inf, 0/0 NaN): Batsim refuses a delay profile of 0 s (profiles.cpp), so its 1e-5 s
    // stand-in for one (jobs_execution.cpp) has nothing to match.
    const long double starting_time = batsim_time(o.start.micros());
    const long double runtime = batsim_time(o.finish.micros()) - starting_time;
    const long double waiting = starting_time - batsim_time(o.submission.micros());
    const long double completion = starting_time + runtime;
    const long double turnaround = completion - batsim_time(o.submission.micros());
    const long double slowdown = turnaround / runtime;
    f.sum_waiting += waiting;
    f.sum_turnaround += turnaround;
    f.sum_slowdown += slowdown;
    if (completion > f.makespan) f.makespan = completion;
    if (waiting > f.max_waiting) f.max_waiting = waiting;
    if (turnaround > f.max_turnaround) f.max_turnaround = turnaround;
    if (slowdown > f.max_slowdown) f.max_slowdown = slowdown;  // NaN never wins, as in Batsim
  }
  return f;
}

// Each machine's busy intervals: every machine of a job's allocation computes from the job's
// start to its end (Machines::update_machines_on_job_run/_end over allocation->machine_ids).
// Counted first, then laid out machine by machine in one array: machine m's are
// busy[first[m], first[m + 1]).
struct BusyIntervals {
  std::vector<std::size_t> first;
  HugePageVector<std::pair<std::int64_t, std::int64_t>> busy;  // 4.9 MB for NASA
};

BusyIntervals busy_intervals(const RunOutputs& run, const JobTable& table) {
  const std::size_t machine_count = run.store.node_count();
  const auto for_each_machine = [&](const JobOutcome& o, const auto& visit) {
    if (o.rejected()) return;
    for (const std::uint32_t m : o.machines)
      if (m < machine_count) visit(m);
    if (o.machines.empty() && o.node.valid() && o.node.value() < machine_count) visit(o.node.value());
  };
  std::vector<std::size_t> first(machine_count + 1, 0);
  for (const JobTable::Row& row : table.rows)
    for_each_machine(row.outcome, [&](std::uint32_t m) { ++first[m + 1]; });
  for (std::size_t m = 0; m < machine_count; ++m) first[m + 1] += first[m];
  HugePageVector<std::pair<std::int64_t, std::int64_t>> busy(first.back());
  std::vector<std::size_t> next(first.begin(), first.end() - 1);
  for (const JobTable::Row& row : table.rows) {
    const JobOutcome& o = row.outcome;
    for_each_machine(o, [&](std::uint32_t m) { busy[next[m]++] = {o.start.micros(), o.finish.micros()}; });
  }
  return {std::move(first), std::move(busy)};
}

// Machine states (batsim src/machines.cpp@v4.2.1: Machine::update_machine_state,
// Machines::update_machines_on_job_run/_end): a machine is IDLE from time 0, and each job
// start on it sets COMPUTING, adding the time since the last change to the state it was in;
// when its last job ends it turns IDLE, adding the time since the last change to COMPUTING.
// Time is only credited on a change and nothing closes the final period at the end of the
// simulation, so a machine's idle time is the gaps before its busy periods: idle time after
// its last job (and all of an unused machine's time) is not counted. Each machine sums its
// own times, which finalize() then adds up machine by machine (export.cpp).
struct MachineTimes {
  long double computing = 0;
  long double idle = 0;
};

MachineTimes machine_times(BusyIntervals& b) {
  MachineTimes total;
  for (std::size_t m = 0; m + 1 < b.first.size(); ++m) {
    const std::span intervals(b.busy.begin() + static_cast<std::ptrdiff_t>(b.first[m]),
                              b.busy.begin() + static_cast<std::ptrdiff_t>(b.first[m + 1]));
    std::sort(intervals.begin(), intervals.end());
    long double computing = 0;
    long double idle = 0;
    long double last_change = 0;
    std::int64_t busy_until = 0;  // the end of the running jobs, while one runs
    bool running = false;
    for (const auto& [start, end] : intervals) {
      if (running && start > busy_until) {  // its last job ended before this one started
        computing += batsim_time(busy_until) - last_change;
        last_change = batsim_time(busy_until);
        running = false;
      }
      (running ? computing : idle) += batsim_time(start) - last_change;
      last_change = batsim_time(start);
      busy_until = running ? std::max(busy_until, end) : end;
      running = true;
    }
    if (running) computing += batsim_time(busy_until) - last_change;
    total.computing += computing;
    total.idle += idle;
  }
  return total;
}

std::string schedule_csv_of(const RunOutputs& run, const JobTable& table) {
  const JobFigures jf = job_figures(table);
  const std::int64_t nb_jobs = jf.nb_jobs;
  MachineTimes times;
  {
    BusyIntervals busy = busy_intervals(run, table);
    times = machine_times(busy);
  }

  // Batsim divides by nb_jobs, which counts rejected jobs too; with no job at all the
  // divisions are 0/0 and print as NaN.
  // finalize() casts each sum to double first.
  const double n = static_cast<double>(nb_jobs);
  const auto mean = [&](long double sum) {
    return nb_jobs == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(sum) / n;
  };
  const auto seconds = [](long double t) { return batsim_double(static_cast<double>(t)); };

  std::map<std::string, std::string> values;
  values["batsim_version"] = "kubesim-" + run.version;
  // consumed_joules = energy_last_job_completion - energy_first_job_submission; without energy
  // both stay -1 (batsim src/context.hpp, v4 series), hence 0.
  values["consumed_joules"] = "0.000000";
  values["makespan"] = seconds(jf.makespan);
  values["max_slowdown"] = seconds(jf.max_slowdown);
  values["max_turnaround_time"] = seconds(jf.max_turnaround);
  values["max_waiting_time"] = seconds(jf.max_waiting);
  values["mean_slowdown"] = batsim_double(mean(jf.sum_slowdown));
  values["mean_turnaround_time"] = batsim_double(mean(jf.sum_turnaround));
  values["mean_waiting_time"] = batsim_double(mean(jf.sum_waiting));
  values["nb_computing_machines"] = std::to_string(run.store.node_count());  // machines.nb_machines()
  values["nb_grouped_switches"] = "0";  // no power-state switches are simulated
  values["nb_jobs"] = std::to_string(nb_jobs);
  values["nb_jobs_finished"] = std::to_string(jf.nb_finished);
  values["nb_jobs_killed"] = std::to_string(jf.nb_killed);
  values["nb_jobs_rejected"] = std::to_string(jf.nb_rejected);
  values["nb_jobs_success"] = std::to_string(jf.nb_success);
  values["nb_machine_switches"] = "0";
  // Batsim writes wall-clock seconds spent in the scheduler and in the whole run here; kubesim
  // writes 0 so that outputs are byte-identical across runs.
  values["scheduling_time"] = "0.000000";
  values["simulation_time"] = "0.000000";
  values["success_rate"] = batsim_double(static_cast<double>(jf.nb_success) / n);
  values["time_computing"] = seconds(times.computing);
  values["time_idle"] = seconds(times.idle);
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

}  // namespace

std::string batsim_jobs_csv(const RunOutputs& run) { return jobs_csv_of(run, job_table(run)); }

std::string batsim_schedule_csv(const RunOutputs& run) { return schedule_csv_of(run, job_table(run)); }

std::vector<JobResult> job_results(const RunOutputs& run) {
  const JobTable table = job_table(run);
  std::vector<JobResult> out;
  out.reserve(table.rows.size());
  for (const JobTable::Row& row : table.rows) {
    const JobOutcome& o = row.outcome;
    out.push_back({row.job, o.submission, o.start, o.finish, o.rejected(), o.state == BatsimJobState::kSuccess});
  }
  return out;
}

std::vector<ReportFile> batsim_job_files(const RunOutputs& run, bool jobs, bool schedule) {
  std::vector<ReportFile> files;
  if (!jobs && !schedule) return files;
  const JobTable table = job_table(run);
  if (jobs) files.push_back({"jobs.csv", jobs_csv_of(run, table)});
  if (schedule) files.push_back({"schedule.csv", schedule_csv_of(run, table)});
  return files;
}

namespace {

// The largest output of a run (one row per pod: 303,638 rows, 33 MB for the NASA trace): each
// row written in place (report/csv_text.hpp), and the fields that repeat (namespace, node,
// phase) escaped once.
void write_pods_csv(const RunOutputs& run, CsvText& csv) {
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

  // A last column `devices` (each grant as device index, ":share" when not whole, joined by
  // '-') only in runs where some pod holds devices: other runs' pods.csv stays as it was.
  bool with_devices = false;
  for (std::uint32_t i = 0; i < store.pod_count() && !with_devices; ++i) with_devices = !store.pod(PodId(i)).devices().empty();
  csv.append(kPodsHeader);
  csv.append(with_devices ? ",devices\n" : "\n");
  std::string devices;
  const std::vector<WorkloadJob>& jobs = run.workload.jobs;
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) {
    const PodId id(i);
    const Pod& pod = store.pod(id);
    const PodTemplate& spec = store.spec_of(id);
    const std::string_view job_id = pod.workload_job < jobs.size() ? std::string_view(jobs[pod.workload_job].id) : "";
    const std::string& reason = pod.reason.str();
    if (with_devices) devices = to_string(pod.devices(), '-');
    char* p = csv.room(row_fixed + CsvText::field_bound(pod.name) + CsvText::field_bound(job_id) +
                       CsvText::field_bound(reason) + devices.size() + 1);
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
    if (with_devices) {
      *p++ = ',';
      p = CsvText::put(p, devices);
    }
    *p++ = '\n';
    csv.done(p);
  }
}

}  // namespace

std::string pods_csv(const RunOutputs& run) {
  CsvText csv(128 + run.store.pod_count() * 112);
  write_pods_csv(run, csv);
  return std::move(csv).take();
}

void stream_pods_csv(const RunOutputs& run, const TextSink& sink) {
  CsvText csv(CsvText::kStreamChunk, sink);
  write_pods_csv(run, csv);
  csv.flush();
}

std::vector<ReportFile> build_run_outputs(const RunOutputs& run) {
  std::vector<ReportFile> files = batsim_job_files(run, true, true);
  files.push_back({"pods.csv", pods_csv(run)});
  return files;
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
    if (f.stream) {
      AtomicFile file(path.string());
      f.stream([&file](std::string_view piece) { file.write(piece); });
      file.commit();
    } else {
      write_file_atomically(path.string(), f.content);
    }
  }
}

}  // namespace kubesim
