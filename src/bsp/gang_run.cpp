#include "bsp/gang_run.hpp"

#include <algorithm>
#include <memory>

#include "bsp/number_text.hpp"
#include "core/error.hpp"
#include "sched/plugins/coscheduling/coscheduling.hpp"
#include "workload/workload.hpp"

namespace kubesim::bsp {
namespace {

double seconds_between(SimTime from, SimTime to) { return (to - from).to_seconds(); }

}  // namespace

namespace {

// The study's data, with errors naming the scenario's bsp: line and then the data file's.
StudyData load_for(const GangSpec& spec) {
  try {
    return load_study_data(spec.data_dir);
  } catch (const InputError& e) {
    throw InputError(spec.source, spec.line, std::string("bsp: ") + e.what());
  }
}

}  // namespace

GangRun::GangRun(Simulation& sim, const GangSpec& spec) : sim_(sim), spec_(spec), data_(load_for(spec)) {
  settings_ = data_.settings;
  if (spec_.steps > 0) settings_.simulation_length = spec_.steps;
  if (spec_.horizon > 0) settings_.window_size = spec_.horizon;
  if (spec_.penalty >= 0) settings_.checkpoint_penalty = spec_.penalty;
  const int columns = std::max(settings_.window_size, spec_.controller == "static-window" ? spec_.window : 1);
  const std::string run = "the scenario's bsp job (" + std::to_string(settings_.simulation_length) + " steps)";
  try {
    data_.trace(spec_.plan).require(settings_.simulation_length, columns, run);
    data_.trace(spec_.execute).require(settings_.simulation_length, 1, run);
  } catch (const InputError& e) {
    throw InputError(spec_.source, spec_.line, std::string("bsp: ") + e.what());
  }
  result_.task_names.reserve(data_.model.task_count());
  for (std::size_t i = 0; i < data_.model.task_count(); ++i) result_.task_names.push_back(data_.model.task_name(i));
}

void GangRun::check_fits(const Shares& shares, int step) const {
  std::int64_t largest = 0;
  const ObjectStore& store = sim_.store();
  for (std::size_t n = 0; n < store.node_count(); ++n)
    largest = std::max(largest, store.node(NodeId(static_cast<std::uint32_t>(n))).allocatable[kCpu]);
  for (std::size_t i = 0; i < shares.size(); ++i)
    if (shares[i] > largest)
      throw InputError(spec_.source, spec_.line,
                       "bsp: the plan of step " + std::to_string(step) + " gives task " + data_.model.task_name(i) + " " +
                           std::to_string(shares[i]) + "m cpu, which fits no node (the largest allocatable cpu is " +
                           std::to_string(largest) + "m)");
}

PodId GangRun::create_task_pod(std::size_t task, int shares) {
  WorkloadJob job;
  job.name = "bsp-" + data_.model.task_name(task) + "-" + std::to_string(generation_);
  job.ns = sim_.ensure_namespace(spec_.namespace_name);
  job.profile = "bsp-task";
  job.run_time = Duration::max();  // runs until the job deletes it
  PodTemplate spec = batch_job_template(shares, std::nullopt, spec_.scheduler_name);
  if (!spec_.pod_group.empty()) set_label(spec.labels, kPodGroupLabel, spec_.pod_group);
  set_label(spec.labels, "kubesim.io/bsp-task", data_.model.task_name(task));
  spec.priority_class_name = spec_.priority_class_name;
  spec.termination_grace_period_seconds = spec_.termination_grace_period_seconds;
  spec.exits_on_sigterm = true;  // stress-ng stops at SIGTERM
  auto created = sim_.create_from_api(std::move(job), std::move(spec));
  if (const auto* refused = std::get_if<std::string>(&created))
    throw InputError(spec_.source, spec_.line, "bsp: the API refused task pod " + data_.model.task_name(task) + ": " + *refused);
  return std::get<Simulation::Created>(created).pod;
}

bool GangRun::advance_one(SimTime until) {
  const SimTime next = sim_.next_event_time();
  if (next.is_never() || !sim_.has_work()) return false;
  if (next > until) {
    stopped_ = true;
    return false;
  }
  sim_.advance_to(next);
  return true;
}

void GangRun::create_gang(const Shares& shares, GangStepRecord& record, SimTime until) {
  check_fits(shares, record.step);
  ++generation_;
  const SimTime created = sim_.now();
  pods_.clear();
  for (std::size_t i = 0; i < shares.size(); ++i) pods_.push_back(create_task_pod(i, shares[i]));
  for (;;) {
    bool all_started = true;
    for (std::size_t i = 0; i < pods_.size(); ++i) {
      const Pod& p = sim_.store().pod(pods_[i]);
      if (is_terminal(p.phase)) {  // e.g. OutOfcpu at the kubelet: create it again
        pods_[i] = create_task_pod(i, shares[i]);
        ++record.replaced_pods;
        all_started = false;
      } else if (p.phase != PodPhase::kRunning || p.started.is_never()) {
        all_started = false;
      }
    }
    if (all_started) break;
    if (!advance_one(until)) {
      if (stopped_) return;
      throw InputError(spec_.source, spec_.line,
                       "bsp: the gang of step " + std::to_string(record.step) +
                           " can never be placed (nothing else can change in the cluster); check the task pods' "
                           "cpu shares, the nodes and the PodGroup");
    }
  }
  SimTime last_bound = created, last_started = created;
  for (const PodId pod : pods_) {
    last_bound = std::max(last_bound, sim_.store().pod(pod).scheduled);
    last_started = std::max(last_started, sim_.store().pod(pod).started);
  }
  record.gang_wait = seconds_between(created, last_bound);
  record.startup = seconds_between(last_bound, last_started);
}

void GangRun::delete_gang(GangStepRecord& record, SimTime until) {
  const SimTime begin = sim_.now();
  for (const PodId pod : pods_) {
    const Pod& p = sim_.store().pod(pod);
    if (!p.deleted && !p.terminating())
      sim_.store().delete_pod(pod, sim_.now(), Duration::seconds(spec_.termination_grace_period_seconds),
                              DisruptionReason::kDeletionByUser);
  }
  for (;;) {
    bool gone = true;
    for (const PodId pod : pods_) gone = gone && sim_.store().pod(pod).deleted;
    if (gone || !advance_one(until)) break;
  }
  pods_.clear();
  record.deletion = seconds_between(begin, sim_.now());
}

void GangRun::run(SimTime until) {
  const SimTime start = SimTime::from_seconds(spec_.start_seconds);
  if (start > until) {
    sim_.run();
    return;
  }
  sim_.advance_to(start);
  Planner planner(data_.model, data_.trace(spec_.plan), settings_);
  Planner executed(data_.model, data_.trace(spec_.execute), settings_);
  std::unique_ptr<Controller> controller;
  if (spec_.controller == "static-window") controller = std::make_unique<StaticWindowController>(spec_.window);
  if (spec_.controller == "dynamic-mpc") controller = std::make_unique<DynamicMpcController>(settings_.window_size);
  result_.controller = controller ? controller->name() : "EXPPO";
  Shares current(data_.model.task_count(), settings_.starting_shares);
  for (int t = 0; t < settings_.simulation_length && !stopped_; ++t) {
    GangStepRecord record;
    record.step = t;
    record.start = sim_.now().to_seconds();
    int w = 0;
    if (!controller) {
      if (t == 0) current = planner.static_configuration();
    } else {
      w = controller->horizon(t, current, planner);
      if (w != 0) current = planner.plan(t, w, 0);
    }
    record.plan_window = w;
    record.shares = current;
    if (w != 0 || t == 0) {
      record.reconfigured = true;
      if (t != 0) {
        ++result_.checkpoints;
        // The checkpoint: the task pods keep their resources while the job saves its state.
        const SimTime checkpointed = sim_.now() + Duration::from_seconds(settings_.checkpoint_penalty);
        if (checkpointed > until) break;
        sim_.advance_to(checkpointed);
        record.penalty = settings_.checkpoint_penalty;
        delete_gang(record, until);
      }
      create_gang(current, record, until);
      if (stopped_) break;
    }
    record.superstep = executed.step_duration(current, t, 0);
    const SimTime end = sim_.now() + Duration::from_seconds(record.superstep);
    if (end > until) break;
    sim_.advance_to(end);
    record.end = sim_.now().to_seconds();
    result_.duration_without_penalty += record.superstep;
    result_.penalty_total += record.penalty;
    result_.deletion_total += record.deletion;
    result_.gang_wait_total += record.gang_wait;
    result_.startup_total += record.startup;
    result_.steps.push_back(std::move(record));
  }
  if (!result_.steps.empty()) result_.cluster_total = result_.steps.back().end - result_.steps.front().start;
  result_.study_total = result_.duration_without_penalty + settings_.checkpoint_penalty * result_.checkpoints;
  // The job ends: its pods are deleted; the rest of the cluster's work goes on.
  GangStepRecord final_deletion;
  if (!stopped_) delete_gang(final_deletion, until);
  result_.study_table = run_study_table(data_.model, data_.trace(spec_.plan), data_.trace(spec_.execute), settings_);
  sim_.run();
}

}  // namespace kubesim::bsp
