#include "bsp/gang_run.hpp"

#include <algorithm>
#include <memory>

#include "bsp/number_text.hpp"
#include "core/error.hpp"
#include "sched/kueue/kueue_controller.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"
#include "sched/kube/scheduler.hpp"
#include "sched/scheduler_plugins_objects.hpp"
#include "sched/volcano/volcano.hpp"
#include "sched/yunikorn/yunikorn.hpp"
#include "workload/workload.hpp"

namespace kubesim::bsp {
namespace {

double seconds_between(SimTime from, SimTime to) { return (to - from).to_seconds(); }

// The study's data, with errors naming the scenario's bsp: line and then the data file's.
StudyData load_for(const GangSpec& spec) {
  try {
    return load_study_data(spec.data_dir);
  } catch (const InputError& e) {
    throw InputError(spec.source, spec.line, std::string("bsp: ") + e.what());
  }
}

// The study's settings with the scenario's overrides.
StudySettings settings_for(const GangSpec& spec, const StudyData& data) {
  StudySettings settings = data.settings;
  if (spec.steps > 0) settings.simulation_length = spec.steps;
  if (spec.horizon > 0) settings.window_size = spec.horizon;
  if (spec.penalty >= 0) settings.checkpoint_penalty = spec.penalty;
  return settings;
}

}  // namespace

GangRun::GangRun(Simulation& sim, const GangSpec& spec, int first_row)
    : sim_(sim),
      spec_(spec),
      data_(load_for(spec)),
      settings_(settings_for(spec, data_)),
      planner_(data_.model, data_.trace(spec.plan), settings_),
      executed_(data_.model, data_.trace(spec.execute), settings_),
      current_(data_.model.task_count(), settings_.starting_shares) {
  const int columns = std::max(settings_.window_size, spec_.controller == "static-window" ? spec_.window : 1);
  const int rows = first_row + settings_.simulation_length;
  const std::string run = first_row == 0 ? "the scenario's bsp job (" + std::to_string(rows) + " steps)"
                                          : "the scenario's bsp job (rows " + std::to_string(first_row) + " .. " +
                                                std::to_string(rows - 1) + ")";
  try {
    data_.trace(spec_.plan).require(rows, columns, run);
    data_.trace(spec_.execute).require(rows, 1, run);
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
  const std::string& task_name = data_.model.task_name(task);
  WorkloadJob job;
  job.name = "bsp-" + task_name + "-" + std::to_string(generation_);
  job.ns = sim_.ensure_namespace(spec_.namespace_name);
  job.profile = "bsp-task";
  job.run_time = Duration::max();  // runs until the job deletes it
  PodTemplate spec = batch_job_template(shares, std::nullopt, spec_.scheduler_name);
  if (!spec_.pod_group.empty()) {
    if (spec_.gang_scheduler == GangScheduler::kCoscheduling) {
      set_label(spec.labels, kPodGroupLabel, spec_.pod_group);
    } else if (spec_.gang_scheduler == GangScheduler::kKueue) {
      // Kueue's plain-pod group (pod_webhook.go): one group per set of task pods, admitted as one
      // Workload once all of them exist; retriable-in-group "false" makes the group finished
      // (its quota released) once the job has deleted its pods, rather than waiting for
      // replacements.
      set_label(spec.labels, kueue::kPodGroupNameLabel, spec_.pod_group + "-" + std::to_string(generation_));
      set_label(spec.annotations, kueue::kPodGroupTotalCountAnnotation, std::to_string(data_.model.task_count()));
      set_label(spec.annotations, kueue::kRetriableInGroupAnnotation, "false");
    } else if (spec_.gang_scheduler == GangScheduler::kVolcano) {
      set_label(spec.annotations, volcano::kGroupNameAnnotation, spec_.pod_group + "-" + std::to_string(generation_));
    } else {  // yunikorn: k8shim utils.go GetApplicationIDFromPod, GetQueueNameFromPod; task_group.go
      set_label(spec.labels, "applicationId", spec_.pod_group + "-" + std::to_string(generation_));
      set_label(spec.annotations, yunikorn::kAnnotationTaskGroups, task_groups_);
      set_label(spec.annotations, yunikorn::kAnnotationTaskGroupName, task_name);
    }
  }
  if (!spec_.queue.empty() && spec_.gang_scheduler != GangScheduler::kVolcano)  // (Volcano: the PodGroup's)
    set_label(spec.labels, spec_.gang_scheduler == GangScheduler::kKueue ? kueue::kQueueNameLabel : "queue", spec_.queue);
  set_label(spec.labels, "kubesim.io/bsp-task", task_name);
  spec.priority_class_name = spec_.priority_class_name;
  spec.termination_grace_period_seconds = spec_.termination_grace_period_seconds;
  spec.exits_on_sigterm = true;  // stress-ng stops at SIGTERM
  auto created = sim_.create_from_api(std::move(job), std::move(spec));
  if (const auto* refused = std::get_if<std::string>(&created))
    throw InputError(spec_.source, spec_.line, "bsp: the API refused task pod " + task_name + ": " + *refused);
  return std::get<Simulation::Created>(created).pod;
}

void GangRun::set_up_gang_scheduler() {
  // The task pods need a scheduler of their schedulerName with the gang scheduler's machinery.
  SchedulerModel* model = sim_.scheduler_serving(spec_.scheduler_name);
  const std::string where = "bsp: gangScheduler " + std::string(gang_scheduler_name(spec_.gang_scheduler)) + " needs ";
  if (spec_.gang_scheduler == GangScheduler::kYuniKorn) {
    if (!dynamic_cast<yunikorn::YuniKorn*>(model))
      throw InputError(spec_.source, spec_.line,
                       where + "YuniKorn to serve schedulerName " + spec_.scheduler_name + " (list the yunikorn setup under schedulers:)");
    return;
  }
  if (spec_.gang_scheduler == GangScheduler::kVolcano) {
    if (!dynamic_cast<volcano::Volcano*>(model))
      throw InputError(spec_.source, spec_.line,
                       where + "Volcano to serve schedulerName " + spec_.scheduler_name + " (list the volcano setup under schedulers:)");
    return;
  }
  if (spec_.gang_scheduler == GangScheduler::kKueue) {
    // Kueue gates the pods and admits the group; kube-scheduler places them once ungated.
    const kueue::Controller* kueue = sim_.find_controller<kueue::Controller>();
    if (!kueue || !kueue->cache().config().pod_integration)
      throw InputError(spec_.source, spec_.line,
                       where + "Kueue with its pod integration (list the kueue setup under schedulers:, with a "
                               "Configuration whose integrations.frameworks lists pod)");
    if (!dynamic_cast<Scheduler*>(model))
      throw InputError(spec_.source, spec_.line, where + "kube-scheduler to serve schedulerName " + spec_.scheduler_name);
    return;
  }
  if (spec_.pod_group.empty()) return;
  auto* scheduler = dynamic_cast<Scheduler*>(model);
  auto* coscheduling = scheduler ? dynamic_cast<Coscheduling*>(scheduler->plugin("Coscheduling")) : nullptr;
  if (!coscheduling)
    throw InputError(spec_.source, spec_.line,
                     where + "a scheduler with the Coscheduling plugin serving schedulerName " + spec_.scheduler_name +
                         " (list the scheduler-plugins setup under schedulers:)");
  // The job's PodGroup (pkg/apis/scheduling/v1alpha1 PodGroupSpec): minMember = the task
  // count; no minResources, no scheduleTimeoutSeconds (the plugin's defaults apply).
  PodGroupObject group;
  group.ns = spec_.namespace_name;
  group.name = spec_.pod_group;
  group.min_member = static_cast<std::int32_t>(data_.model.task_count());
  group.created = sim_.now();
  sim_.ensure_namespace(spec_.namespace_name);  // the task pods' namespace, as their CREATE makes it
  if (!create_pod_group(sim_.store(), group))
    throw InputError(spec_.source, spec_.line,
                     "bsp: PodGroup " + spec_.namespace_name + "/" + spec_.pod_group + " already exists");
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
  if (spec_.gang_scheduler == GangScheduler::kYuniKorn) {
    // The task-groups annotation: one group per task, in task order (JSON as upstream's
    // examples write it).
    task_groups_ = "[";
    for (std::size_t i = 0; i < shares.size(); ++i)
      task_groups_ += std::string(i ? "," : "") + "{\"name\":\"" + data_.model.task_name(i) +
                      "\",\"minMember\":1,\"minResource\":{\"cpu\":\"" + std::to_string(shares[i]) + "m\"}}";
    task_groups_ += "]";
  }
  if (spec_.gang_scheduler == GangScheduler::kVolcano && !spec_.pod_group.empty()) {
    // The set's PodGroup, created with it (minMember = the task count; no minResources: the
    // enqueue action admits it at once and allocate binds it whole or not at all).
    volcano::PodGroupSpec group;
    group.name = spec_.pod_group + "-" + std::to_string(generation_);
    group.ns = spec_.namespace_name;
    group.min_member = static_cast<std::int32_t>(shares.size());
    if (!spec_.queue.empty()) group.queue = spec_.queue;
    group.priority_class = spec_.priority_class_name;
    auto* vc = dynamic_cast<volcano::Volcano*>(sim_.scheduler_serving(spec_.scheduler_name));
    if (!vc->add_pod_group(group, sim_.now()))
      throw InputError(spec_.source, spec_.line, "bsp: PodGroup " + spec_.namespace_name + "/" + group.name + " already exists");
  }
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

bool GangRun::start(SimTime until) {
  const SimTime start = SimTime::from_seconds(spec_.start_seconds);
  if (start > until) {
    stopped_ = true;
    return false;
  }
  sim_.advance_to(start);
  set_up_gang_scheduler();
  return true;
}

bool GangRun::launch(SimTime until) {
  launch_record_ = GangStepRecord{};
  launch_record_.start = sim_.now().to_seconds();
  launch_record_.shares = current_;
  create_gang(current_, launch_record_, until);
  launch_record_.end = sim_.now().to_seconds();
  return !stopped_;
}

bool GangRun::step(int row, int w, SimTime until) {
  if (stopped_) return false;
  GangStepRecord record;
  record.step = row;
  record.start = sim_.now().to_seconds();
  if (w != 0) current_ = planner_.plan(row, w, 0);
  record.plan_window = w;
  record.shares = current_;
  const bool running = !pods_.empty();
  if (w != 0 || !running) {
    record.reconfigured = true;
    if (running) {
      // The checkpoint: the task pods keep their resources while the job saves its state.
      const SimTime checkpointed = sim_.now() + Duration::from_seconds(settings_.checkpoint_penalty);
      if (checkpointed > until) {
        stopped_ = true;
        return false;
      }
      ++result_.checkpoints;
      sim_.advance_to(checkpointed);
      record.penalty = settings_.checkpoint_penalty;
      delete_gang(record, until);
    }
    create_gang(current_, record, until);
    if (stopped_) return false;
  }
  record.superstep = executed_.step_duration(current_, row, 0);
  const SimTime end = sim_.now() + Duration::from_seconds(record.superstep);
  if (end > until) {
    stopped_ = true;
    return false;
  }
  sim_.advance_to(end);
  record.end = sim_.now().to_seconds();
  result_.duration_without_penalty += record.superstep;
  result_.penalty_total += record.penalty;
  result_.deletion_total += record.deletion;
  result_.gang_wait_total += record.gang_wait;
  result_.startup_total += record.startup;
  result_.steps.push_back(std::move(record));
  return true;
}

void GangRun::finish(SimTime until) {
  if (!result_.steps.empty()) result_.cluster_total = result_.steps.back().end - result_.steps.front().start;
  result_.study_total = result_.duration_without_penalty + settings_.checkpoint_penalty * result_.checkpoints;
  // The job ends: its pods are deleted; the rest of the cluster's work goes on.
  GangStepRecord final_deletion;
  if (!stopped_) delete_gang(final_deletion, until);
  result_.study_table = run_study_table(data_.model, data_.trace(spec_.plan), data_.trace(spec_.execute), settings_);
}

void GangRun::run(SimTime until) {
  std::unique_ptr<Controller> controller;
  if (spec_.controller == "static-window") controller = std::make_unique<StaticWindowController>(spec_.window);
  if (spec_.controller == "dynamic-mpc") controller = std::make_unique<DynamicMpcController>(settings_.window_size);
  result_.controller = controller ? controller->name() : "EXPPO";
  if (start(until)) {
    if (!controller) current_ = planner_.static_configuration();  // kept for the whole run
    for (int t = 0; t < settings_.simulation_length; ++t)
      if (!step(t, controller ? controller->horizon(t, current_, planner_) : 0, until)) break;
  }
  finish(until);
  sim_.run();
}

}  // namespace kubesim::bsp
