#include "sched/batch/batsim_protocol.hpp"

#include <algorithm>

namespace kubesim {

BatsimProtocol::BatsimProtocol(Duration server_latency, Duration node_latency, std::uint32_t jobs)
    : server_latency_(server_latency), node_latency_(node_latency), jobs_(jobs) {
  // At time 0 the submitter says hello and the REQ-REP actor of SIMULATION_BEGINS answers
  // SCHED_READY; the hello is received first (a job submitted at 0 reaches batsched at 3
  // transfers: hello, ready, then its batch).
  submitter_put_at_ = SimTime::zero();
  post(Put{SimTime::zero(), server_latency_, Kind::kHello, Sender::kSubmitter, {}, {}});
  post(Put{SimTime::zero(), server_latency_, Kind::kReady, Sender::kReqRep, {}, {}});
}

void BatsimProtocol::post(Put p) {
  const SimTime at = p.posted;
  mailbox_.push_back(std::move(p));
  if (!receiving_ && !delivering_) start_receiving(at);
}

void BatsimProtocol::start_receiving(SimTime now) {
  if (mailbox_.empty()) {
    receiving_ = false;
    current_done_ = SimTime::never();
    return;
  }
  current_ = std::move(mailbox_.front());
  mailbox_.pop_front();
  receiving_ = true;
  current_done_ = std::max(now, current_.posted) + current_.latency;
}

void BatsimProtocol::submitted(std::uint32_t job, SimTime now) {
  unsent_.emplace_back(job, now);
  ++submitted_;
  if (!submitter_busy_ && submitter_wake_.is_never()) submitter_wake_ = now + submitter_offset_;
}

void BatsimProtocol::completed(std::uint32_t job, SimTime now) {
  post(Put{now, node_latency_, Kind::kCompleted, Sender::kExecutor, {job}, {}});
}

void BatsimProtocol::submitter_wake(SimTime now) {
  // job_submitter.cpp: the jobs due at the submitter's clock go in one JOB_SUBMITTED message;
  // with none, it sleeps until the next subtime (no transfer to add).
  submitter_wake_ = SimTime::never();
  std::vector<std::uint32_t> batch;
  while (!unsent_.empty() && unsent_.front().second <= now) {
    batch.push_back(unsent_.front().first);
    unsent_.pop_front();
  }
  if (batch.empty()) {
    submitter_offset_ = Duration();
    if (!unsent_.empty()) submitter_wake_ = unsent_.front().second;
    return;
  }
  submitter_busy_ = true;
  submitter_put_at_ = now;
  post(Put{now, server_latency_, Kind::kSubmitted, Sender::kSubmitter, std::move(batch), {}});
}

void BatsimProtocol::reqrep_next(SimTime now) {
  if (!reply_.empty()) {
    const Decision d = reply_.front();
    reply_.pop_front();
    post(Put{now, server_latency_, Kind::kDecision, Sender::kReqRep, {}, d});
  } else {
    post(Put{now, server_latency_, Kind::kReady, Sender::kReqRep, {}, {}});
  }
}

void BatsimProtocol::deliver(SimTime now, const Call& call, const Apply& apply) {
  receiving_ = false;
  delivering_ = true;  // the server posts its next receive after handling this message
  Put msg = std::move(current_);
  switch (msg.kind) {
    case Kind::kHello:
      submitter_busy_ = false;
      submitter_wake(now);  // its clock is now the hello's completion
      break;
    case Kind::kSubmitted:
      released_.insert(released_.end(), msg.jobs.begin(), msg.jobs.end());
      submitter_busy_ = false;
      // It slept (next subtime - its clock before the send): it wakes one transfer after it.
      submitter_offset_ = now - submitter_put_at_;
      if (!unsent_.empty()) {
        submitter_wake_ = unsent_.front().second + submitter_offset_;
      } else if (jobs_ > 0 && submitted_ == jobs_) {
        // job_submitter.cpp: SUBMITTER_BYE right after the last JOB_SUBMITTED.
        post(Put{now, server_latency_, Kind::kBye, Sender::kSubmitter, {}, {}});
      }
      break;
    case Kind::kBye:
      break;
    case Kind::kCompleted:
      ended_.push_back(msg.jobs.front());
      break;
    case Kind::kDecision:
      apply(msg.decision, now);
      reqrep_next(now);
      break;
    case Kind::kReady:
      sched_ready_ = true;
      break;
  }
  // server.cpp: call the scheduler when it is ready, the mailbox is empty and events wait.
  if (sched_ready_ && mailbox_.empty() && (!ended_.empty() || !released_.empty())) {
    std::vector<Decision> decisions;
    call(now, ended_, released_, decisions);
    ended_.clear();
    released_.clear();
    sched_ready_ = false;
    reply_.assign(decisions.begin(), decisions.end());
    reqrep_next(now);
  }
  delivering_ = false;
  start_receiving(now);
}

void BatsimProtocol::run(SimTime now, const Call& call, const Apply& apply) {
  for (;;) {
    const SimTime server = receiving_ ? current_done_ : SimTime::never();
    if (!(submitter_wake_ <= now) && !(server <= now)) return;
    if (submitter_wake_ <= server) {
      submitter_wake(submitter_wake_);
    } else {
      deliver(server, call, apply);
    }
  }
}

SimTime BatsimProtocol::next_time() const {
  return std::min(receiving_ ? current_done_ : SimTime::never(), submitter_wake_);
}

}  // namespace kubesim
