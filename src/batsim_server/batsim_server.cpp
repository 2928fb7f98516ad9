#include "batsim_server/batsim_server.hpp"

#include <zmq.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>

#include "core/error.hpp"
#include "sched/batch/batch_scheduler.hpp"

namespace kubesim {
namespace {

constexpr const char* kSchedulerName = "batsim-protocol";

std::runtime_error protocol_error(const std::string& what) {
  return std::runtime_error("Batsim protocol: " + what);
}

// BatchScheduler's MachineDecider: the server's scheduler decides.
class RemoteDecider final : public MachineDecider {
 public:
  explicit RemoteDecider(std::shared_ptr<BatsimServer> server) : server_(std::move(server)) {}
  void make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                      const std::vector<std::pair<std::uint32_t, MachineSchedule::Job>>& released, bool requested_call,
                      std::vector<MachineSchedule::Start>& starts, std::vector<std::uint32_t>& rejects) override {
    server_->make_decisions(date, ended, released, requested_call, starts, rejects);
  }
  SimTime requested_call() const override { return server_->requested_call(); }
  void take_kills(std::vector<std::uint32_t>& kills) override { server_->take_kills(kills); }

 private:
  std::shared_ptr<BatsimServer> server_;
};

}  // namespace

BatsimEndpoint::BatsimEndpoint(std::string endpoint) : endpoint_(std::move(endpoint)) {
  context_ = zmq_ctx_new();
  socket_ = context_ ? zmq_socket(context_, ZMQ_REQ) : nullptr;
  const int linger = 0;  // an unanswered message must not hold the process at exit
  if (!socket_ || zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
      zmq_connect(socket_, endpoint_.c_str()) != 0) {
    const std::string why = zmq_strerror(zmq_errno());
    if (socket_) zmq_close(socket_);
    if (context_) zmq_ctx_term(context_);
    throw InputError("", 0, "--batsim-socket " + endpoint_ + ": " + why + " (expected a ZeroMQ endpoint such as tcp://localhost:28000)");
  }
}

BatsimEndpoint::~BatsimEndpoint() {
  zmq_close(socket_);
  zmq_ctx_term(context_);
}

std::string BatsimEndpoint::exchange(const std::string& message) {
  if (zmq_send(socket_, message.data(), message.size(), 0) < 0)
    throw protocol_error("sending to " + endpoint_ + ": " + zmq_strerror(zmq_errno()));
  zmq_pollitem_t item{socket_, 0, ZMQ_POLLIN, 0};
  for (;;) {
    const int ready = zmq_poll(&item, 1, 10000);
    if (ready > 0) break;
    if (ready < 0 && zmq_errno() != EINTR) throw protocol_error("waiting on " + endpoint_ + ": " + zmq_strerror(zmq_errno()));
    if (ready == 0 && !told_waiting_) {
      told_waiting_ = true;
      std::fprintf(stderr, "kubesim: waiting for the Batsim scheduler at %s (no reply after 10 s)\n", endpoint_.c_str());
    }
  }
  zmq_msg_t reply;
  zmq_msg_init(&reply);
  if (zmq_msg_recv(&reply, socket_, 0) < 0) {
    zmq_msg_close(&reply);
    throw protocol_error("receiving from " + endpoint_ + ": " + zmq_strerror(zmq_errno()));
  }
  std::string text(static_cast<const char*>(zmq_msg_data(&reply)), zmq_msg_size(&reply));
  zmq_msg_close(&reply);
  ++exchanges_;
  return text;
}

BatsimServer::BatsimServer(std::string endpoint) : endpoint_(std::move(endpoint)) {}

void BatsimServer::install(const std::shared_ptr<BatsimServer>& server, SimulationInputs& in) {
  BatsimServer& s = *server;
  const Workload& w = in.workload;
  s.platform_.workload_path = w.source;
  for (const Node& n : in.nodes) s.platform_.machine_names.push_back(n.name);
  std::unordered_set<std::string> profiles;  // lookup only
  s.jobs_.reserve(w.jobs.size());
  for (const WorkloadJob& j : w.jobs) {
    if (j.machines == 0)
      throw InputError(w.source, 0, "--batsim-socket schedules Batsim jobs of `res` machines; job \"" + j.id +
                                        "\" asks for cpu on one node instead (a Batkube `cpu` profile or manifest)");
    BatsimJobInfo info;
    info.id = "w0!" + j.id;
    info.profile = j.profile;
    info.res = j.machines;
    info.run_time = j.run_time;
    // jobs_execution.cpp: killed at the walltime, else failed if the profile's ret is not 0.
    if (j.walltime > Duration() && j.run_time > j.walltime) {
      info.final_state = "COMPLETED_WALLTIME_REACHED";
      info.return_code = -1;
    } else if (j.exit_code != 0) {
      info.final_state = "COMPLETED_FAILED";
      info.return_code = j.exit_code;
    }
    if (!s.ids_.emplace(info.id, static_cast<std::uint32_t>(s.jobs_.size())).second)
      throw InputError(w.source, 0, "job id \"" + j.id + "\" appears twice");
    if (profiles.insert(j.profile).second) s.platform_.profiles.emplace_back(j.profile, j.run_time);
    s.jobs_.push_back(std::move(info));
  }
  s.state_.assign(s.jobs_.size(), JobState::kUnknown);
  s.metadata_ = std::make_shared<std::vector<std::string>>(s.jobs_.size());
  in.workload.job_metadata = s.metadata_;
  s.allocs_.resize(s.jobs_.size());
  s.started_.resize(s.jobs_.size());
  s.kill_group_of_.resize(s.jobs_.size());
  s.kill_requested_.resize(s.jobs_.size());
  for (auto& t : in.workload.templates) t.scheduler_name = kSchedulerName;
  const auto jobs = static_cast<std::uint32_t>(s.jobs_.size());
  in.other_schedulers.push_back(SchedulerFactory{
      [server, jobs](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) {
        // As the batch setups (setups/batch_setup.cpp): a job without walltime is planned with
        // twice its run time, batsched's rjms_delay, and Batsim's message latencies if modelled.
        auto scheduler = std::make_unique<BatchScheduler>(
            store, host, kSchedulerName, 1, Duration(), 2, BatchScheduler::kBatschedRjmsDelay,
            options.model.batsim_server_latency, options.model.batsim_node_latency, jobs);
        server->begin(static_cast<std::uint32_t>(server->platform_.machine_names.size()));
        scheduler->set_machine_decider(std::make_unique<RemoteDecider>(server));
        return scheduler;
      },
      Duration()});
}

void BatsimServer::begin(std::uint32_t machines) {
  if (begun_) throw protocol_error("one Batsim scheduler drives one simulation");
  begun_ = true;
  machines_ = machines;
  machine_job_.assign(machines, -1);
  BatsimMessage m(SimTime::zero());
  m.simulation_begins(platform_);
  std::vector<MachineSchedule::Start> starts;
  std::vector<std::uint32_t> rejects;
  exchange(m, SimTime::zero(), starts, rejects);  // no job is known yet: a decision is an error
}

std::uint32_t BatsimServer::job_index(const std::string& id, const char* event) const {
  const auto it = ids_.find(id);
  if (it == ids_.end() || state_[it->second] == JobState::kUnknown)
    throw protocol_error(std::string(event) + " of job \"" + id + "\", which was not submitted");
  if (state_[it->second] != JobState::kWaiting)
    throw protocol_error(std::string(event) + " of job \"" + id + "\", which was already started or rejected");
  return it->second;
}

// A job of the workload whose jobs.csv row is not written yet (Batsim knows every static job
// from the start and deletes a job once written: Jobs::operator[] then fails).
std::uint32_t BatsimServer::known_job(const std::string& id, const char* event) const {
  const auto it = ids_.find(id);
  if (it == ids_.end()) throw protocol_error(std::string(event) + " of job \"" + id + "\", which does not exist");
  if (state_[it->second] == JobState::kOver)
    throw protocol_error(std::string(event) + " of job \"" + id + "\", which is over (its jobs.csv row is written)");
  return it->second;
}

// SET_JOB_METADATA, CHANGE_JOB_STATE, TO_JOB_MSG (Batsim v4.2.1 server.cpp
// server_on_set_job_metadata, server_on_change_job_state, server_on_to_job_msg).
void BatsimServer::apply_job_event(BatsimDecision& d, std::vector<std::uint32_t>& rejects) {
  using Kind = BatsimDecision::Kind;
  const char* event = d.kind == Kind::kMetadata ? "SET_JOB_METADATA" : d.kind == Kind::kToJobMsg ? "TO_JOB_MSG" : "CHANGE_JOB_STATE";
  const std::uint32_t job = known_job(d.job_id, event);
  if (d.kind == Kind::kMetadata) {
    (*metadata_)[job] = std::move(d.text);
    return;
  }
  if (d.kind == Kind::kToJobMsg) return;  // a delay job never reads its message buffer
  if (state_[job] == JobState::kWaiting && d.text == "REJECTED") {
    state_[job] = JobState::kOver;
    rejects.push_back(job);
    return;
  }
  if (state_[job] == JobState::kWaiting)
    throw protocol_error("CHANGE_JOB_STATE of waiting job \"" + d.job_id + "\" to " + d.text +
                         ": kubesim takes REJECTED (Batsim's RUNNING would run it on no machine; use EXECUTE_JOB)");
  throw protocol_error("CHANGE_JOB_STATE of job \"" + d.job_id + "\" to " + d.text + ": kubesim changes only a submitted " +
                       "job's state, to REJECTED (end a running job with KILL_JOB)");
}

SimTime BatsimServer::requested_call() const {
  SimTime at = calls_.empty() ? SimTime::never() : *calls_.begin();
  if (!later_.empty()) at = std::min(at, later_.begin()->first);
  if (!held_.empty() && killing_ == 0) at = std::min(at, ready_);  // a kill's ends call anyway
  return at;
}

void BatsimServer::take_kills(std::vector<std::uint32_t>& kills) {
  kills.insert(kills.end(), kills_.begin(), kills_.end());
  kills_.clear();
}

// KILL_JOB of one job at `date` (Batsim v4.2.1 server.cpp server_on_kill_jobs: a running or
// completed job; a job asked twice is killed once).
void BatsimServer::kill(const std::string& id, std::uint32_t group) {
  const auto it = ids_.find(id);
  if (it == ids_.end() || state_[it->second] == JobState::kUnknown || state_[it->second] == JobState::kWaiting)
    throw protocol_error("KILL_JOB of job \"" + id + "\", which is neither running nor completed");
  const std::uint32_t job = it->second;
  if (kill_requested_[job]) return;  // a second kill of a job is dropped
  kill_requested_[job] = true;
  KillGroup& g = kill_groups_[group];
  if (g.jobs.empty()) touched_groups_.push_back(group);
  g.jobs.push_back(job);
  if (state_[job] != JobState::kRunning) return;
  g.killed.push_back(job);
  if (g.running == 0) ++killing_;
  state_[job] = JobState::kKilling;
  kill_group_of_[job] = group;
  ++g.running;
  kills_.push_back(job);
}

// JOB_KILLED of the kill groups whose jobs were all over already (Batsim's killer process
// reports at once).
void BatsimServer::report_finished_kills(SimTime date) {
  for (const std::uint32_t g : touched_groups_)
    if (kill_groups_[g].running == 0 && !kill_groups_[g].reported) {
      kill_groups_[g].reported = true;
      held_.push_back({Held::Kind::kKilled, g, date});
    }
  touched_groups_.clear();
}

void BatsimServer::apply(BatsimDecision& d, SimTime date, std::vector<MachineSchedule::Start>& starts,
                         std::vector<std::uint32_t>& rejects) {
  if (d.kind == BatsimDecision::Kind::kKill) return kill(d.job_id, d.group);
  if (d.kind != BatsimDecision::Kind::kExecute && d.kind != BatsimDecision::Kind::kReject) return apply_job_event(d, rejects);
  const std::uint32_t job = job_index(d.job_id, d.kind == BatsimDecision::Kind::kExecute ? "EXECUTE_JOB" : "REJECT_JOB");
  if (d.kind == BatsimDecision::Kind::kReject) {
    state_[job] = JobState::kOver;
    rejects.push_back(job);
    return;
  }
  if (d.alloc.size() != jobs_[job].res)
    throw protocol_error("EXECUTE_JOB of \"" + d.job_id + "\" on " + std::to_string(d.alloc.size()) + " machine(s) (" +
                         d.alloc.to_string() + "); the job asks for " + std::to_string(jobs_[job].res));
  for (const std::uint32_t m : d.alloc.ids()) {
    if (machine_job_[m] >= 0)
      throw protocol_error("EXECUTE_JOB of \"" + d.job_id + "\" on machine " + std::to_string(m) + ", where \"" +
                           jobs_[static_cast<std::size_t>(machine_job_[m])].id + "\" runs (no compute sharing)");
    machine_job_[m] = job;
  }
  state_[job] = JobState::kRunning;
  started_[job] = date;
  allocs_[job] = d.alloc;
  starts.push_back({job, std::move(d.alloc)});
}

void BatsimServer::exchange(const BatsimMessage& message, SimTime date, std::vector<MachineSchedule::Start>& starts,
                            std::vector<std::uint32_t>& rejects) {
  last_date_ = date;
  std::vector<BatsimDecision> decisions;
  try {
    decisions = parse_batsim_reply(endpoint_.exchange(message.text()), date, machines_, &ready_);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw what.rfind("Batsim protocol: ", 0) == 0 ? std::runtime_error(what) : protocol_error(what);
  }
  const auto group_base = static_cast<std::uint32_t>(kill_groups_.size());
  for (BatsimDecision& d : decisions) {
    if (d.kind == BatsimDecision::Kind::kCallMeLater) {
      calls_.insert(std::max(d.at, date));
      continue;
    }
    if (d.kind == BatsimDecision::Kind::kKill) {
      d.group += group_base;
      if (d.group >= kill_groups_.size()) kill_groups_.resize(d.group + 1);
    }
    if (d.at > date) {
      later_.emplace(d.at, std::move(d));
    } else {
      apply(d, date, starts, rejects);
    }
  }
}

// Sends what was held, as one message at `date`, while the scheduler is ready and something is
// held (a reply may make the scheduler busy again, or kill jobs). Kills under way hold the
// message: Batsim's killer process reports (JOB_COMPLETED, JOB_KILLED) before the server sees
// the scheduler ready again (as the peer shows: the killed job's machines are free for the
// decisions of the same date).
void BatsimServer::send_held(SimTime date, std::vector<MachineSchedule::Start>& starts,
                             std::vector<std::uint32_t>& rejects) {
  while (!held_.empty() && ready_ <= date && killing_ == 0) {
    BatsimMessage m(date);
    const std::vector<Held> held = std::move(held_);
    held_.clear();
    for (const Held& h : held) {
      m.stamp(h.at);
      switch (h.kind) {
        case Held::Kind::kCompleted: m.job_completed(jobs_[h.index], allocs_[h.index]); break;
        case Held::Kind::kSubmitted: m.job_submitted(jobs_[h.index]); break;
        case Held::Kind::kCall: m.requested_call(); break;
        case Held::Kind::kNotify: m.notify("no_more_static_job_to_submit"); break;
        case Held::Kind::kEnds: m.simulation_ends(); break;
        case Held::Kind::kKilled: {
          // The jobs it really killed complete first (COMPLETED_KILLED), then JOB_KILLED names
          // them all (Batsim server.cpp server_on_killing_done; batsched frees the machines on
          // the JOB_COMPLETED).
          for (const std::uint32_t job : kill_groups_[h.index].killed) m.job_completed(jobs_[job], allocs_[job]);
          std::vector<BatsimMessage::Progress> progress;
          for (const std::uint32_t job : kill_groups_[h.index].jobs) {
            const Duration run = jobs_[job].run_time;
            const double done = run > Duration() ? static_cast<double>((h.at - started_[job]).micros()) / static_cast<double>(run.micros()) : 1.0;
            progress.push_back({&jobs_[job], std::clamp(done, 0.0, 1.0)});
          }
          m.job_killed(progress);
          break;
        }
      }
    }
    exchange(m, date, starts, rejects);
    if (held.back().kind == Held::Kind::kEnds) return;
    report_finished_kills(date);  // the reply's kills of jobs already over
    if (!notified_ && released_ == jobs_.size()) {
      // Batsim's submitter says goodbye after its last job: its own message at that date.
      notified_ = true;
      held_.push_back({Held::Kind::kNotify, 0, date});
    }
  }
}

void BatsimServer::make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                                  const std::vector<std::pair<std::uint32_t, MachineSchedule::Job>>& released,
                                  bool requested_call, std::vector<MachineSchedule::Start>& starts,
                                  std::vector<std::uint32_t>& rejects) {
  for (const std::uint32_t job : ended) {
    for (const std::uint32_t machine : allocs_[job].ids()) machine_job_[machine] = -1;
    if (state_[job] == JobState::kKilling) {
      jobs_[job].final_state = "COMPLETED_KILLED";
      jobs_[job].return_code = -1;  // never set: the job did not end by itself
      KillGroup& g = kill_groups_[kill_group_of_[job]];
      if (--g.running == 0 && !g.reported) {
        --killing_;
        g.reported = true;
        held_.push_back({Held::Kind::kKilled, kill_group_of_[job], date});
      }
    } else {
      held_.push_back({Held::Kind::kCompleted, job, date});
    }
    state_[job] = JobState::kOver;
  }
  for (const auto& [job, info] : released) {
    BatsimJobInfo& j = jobs_[job];
    j.subtime = info.submitted;
    j.walltime = info.walltime;
    state_[job] = JobState::kWaiting;
    held_.push_back({Held::Kind::kSubmitted, job, date});
    ++released_;
  }
  if (!notified_ && released_ == jobs_.size() && ready_ > date) {
    notified_ = true;  // held with the last job: one message, as Batsim buffers both
    held_.push_back({Held::Kind::kNotify, 0, date});
  }
  if (requested_call && !calls_.empty() && *calls_.begin() <= date) {
    while (!calls_.empty() && *calls_.begin() <= date) calls_.erase(calls_.begin());
    held_.push_back({Held::Kind::kCall, 0, date});
  }
  // Decisions dated now, in reply order.
  while (!later_.empty() && later_.begin()->first <= date) {
    BatsimDecision d = std::move(later_.begin()->second);
    later_.erase(later_.begin());
    apply(d, date, starts, rejects);
  }
  report_finished_kills(date);
  send_held(date, starts, rejects);
}

void BatsimServer::finish() {
  if (!begun_) return;
  // What a busy scheduler has not heard yet goes with SIMULATION_ENDS, once it is ready.
  const SimTime date = std::max(last_date_, ready_);
  held_.push_back({Held::Kind::kEnds, 0, date});
  std::vector<MachineSchedule::Start> starts;
  std::vector<std::uint32_t> rejects;
  ready_ = date;
  killing_ = 0;  // a kill cut off by the end of the run holds nothing any more
  send_held(date, starts, rejects);
  if (!starts.empty() || !rejects.empty() || !kills_.empty()) throw protocol_error("decisions in reply to SIMULATION_ENDS");
}

}  // namespace kubesim
