#include "batsim_server/batsim_server.hpp"

#include <zmq.h>

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
  s.allocs_.resize(s.jobs_.size());
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

void BatsimServer::exchange(const BatsimMessage& message, SimTime date, std::vector<MachineSchedule::Start>& starts,
                            std::vector<std::uint32_t>& rejects) {
  last_date_ = date;
  std::vector<BatsimDecision> decisions;
  try {
    decisions = parse_batsim_reply(endpoint_.exchange(message.text()), date, machines_);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw what.rfind("Batsim protocol: ", 0) == 0 ? std::runtime_error(what) : protocol_error(what);
  }
  for (BatsimDecision& d : decisions) {
    if (d.kind == BatsimDecision::Kind::kCallMeLater) {
      calls_.insert(std::max(d.at, date));
      continue;
    }
    const std::uint32_t job = job_index(d.job_id, d.kind == BatsimDecision::Kind::kExecute ? "EXECUTE_JOB" : "REJECT_JOB");
    if (d.kind == BatsimDecision::Kind::kReject) {
      state_[job] = JobState::kOver;
      rejects.push_back(job);
      continue;
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
    allocs_[job] = d.alloc;
    starts.push_back({job, std::move(d.alloc)});
  }
}

void BatsimServer::make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                                  const std::vector<std::pair<std::uint32_t, MachineSchedule::Job>>& released,
                                  bool requested_call, std::vector<MachineSchedule::Start>& starts,
                                  std::vector<std::uint32_t>& rejects) {
  BatsimMessage m(date);
  for (const std::uint32_t job : ended) {
    m.job_completed(jobs_[job], allocs_[job]);
    for (const std::uint32_t machine : allocs_[job].ids()) machine_job_[machine] = -1;
    state_[job] = JobState::kOver;
  }
  for (const auto& [job, info] : released) {
    BatsimJobInfo& j = jobs_[job];
    j.subtime = info.submitted;
    j.walltime = info.walltime;
    state_[job] = JobState::kWaiting;
    m.job_submitted(j);
    ++released_;
  }
  if (requested_call) {
    while (!calls_.empty() && *calls_.begin() <= date) calls_.erase(calls_.begin());
    m.requested_call();
  }
  if (!m.empty()) exchange(m, date, starts, rejects);
  if (!notified_ && released_ == jobs_.size()) {
    // Batsim's submitter says goodbye after its last job: its own message at that date.
    notified_ = true;
    BatsimMessage bye(date);
    bye.notify("no_more_static_job_to_submit");
    exchange(bye, date, starts, rejects);
  }
}

void BatsimServer::finish() {
  if (!begun_) return;
  BatsimMessage m(last_date_);
  m.simulation_ends();
  std::vector<MachineSchedule::Start> starts;
  std::vector<std::uint32_t> rejects;
  exchange(m, last_date_, starts, rejects);
  if (!starts.empty() || !rejects.empty()) throw protocol_error("decisions in reply to SIMULATION_ENDS");
}

}  // namespace kubesim
