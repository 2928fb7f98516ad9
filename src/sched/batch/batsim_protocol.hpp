// When batsched hears of jobs and when its decisions take effect in Batsim 4.2.1: the
// message passing between Batsim's actors, whose SimGrid transfers take the latency of the
// route between their hosts. Read in oar-team/batsim v4.2.1:
//   src/ipp.cpp          send_message: a blocking put of 1 byte to the "server" mailbox; the
//                        server receives one message at a time (server.cpp server_process), so
//                        a message posted while another is being received waits for it;
//   src/server.cpp       the scheduler is called when it is ready (its previous reply's
//                        SCHED_READY arrived), the server's mailbox is empty and events are
//                        pending (generate_and_send_message); one call carries every event
//                        received since the previous one;
//   src/network.cpp, protocol.cpp  the "Scheduler REQ-REP" actor (on the master host) sends
//                        each decision of a reply to the server as its own message, then
//                        SCHED_READY; a job starts when the server receives its EXECUTE_JOB
//                        (jobs_execution.cpp execute_job_process: starting_time = now);
//   src/job_submitter.cpp the workload submitter (master host) says hello, then sends the
//                        jobs due at its clock in one JOB_SUBMITTED message and sleeps
//                        (next subtime - its clock before the send), so each batch is sent
//                        one transfer time after its subtime;
//                        After the last batch it sends SUBMITTER_BYE at once, so the
//                        server's mailbox is not empty when that batch arrives;
//   jobs_execution.cpp   the job's executor, on its first machine, sends JOB_COMPLETED when
//                        the job ends (or is killed at its walltime).
// Two latencies: `server_latency` for a message from an actor on the master host to the
// server (the route master -> master), `node_latency` for a compute host -> master (they
// are the sums of the link latencies on those routes: 0.6 ms and 1.6 ms on Batsim's
// platform_cluster128.xml, measured with the peer: a job submitted at 0 starts at 0.0024, a
// job submitted at 1 at 1.0024, a job started after a completion at completion + 2.2 ms).
// Not modelled: bandwidth (messages are 1 byte), the order SimGrid gives actors posting at
// the very same instant (here: the order they were posted in), CALL_ME_LATER, energy.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "core/time.hpp"

namespace kubesim {

class BatsimProtocol {
 public:
  struct Decision {
    std::uint32_t job;
    bool execute;  // false: REJECT_JOB
  };
  // batsched's make_decisions at `date` with the events of the call; fills the decisions in
  // the order of the reply.
  using Call = std::function<void(SimTime date, const std::vector<std::uint32_t>& ended,
                                  const std::vector<std::uint32_t>& released, std::vector<Decision>& decisions)>;
  // The server received a decision at `now` (an EXECUTE_JOB starts the job now).
  using Apply = std::function<void(const Decision& d, SimTime now)>;

  // `jobs`: how many jobs the workload submits (the submitter says goodbye after the last;
  // zero: unknown, it never does).
  BatsimProtocol(Duration server_latency, Duration node_latency, std::uint32_t jobs = 0);

  // The job's subtime is `now` (jobs in submission order).
  void submitted(std::uint32_t job, SimTime now);
  // The job's executor ended now (completed or killed at its walltime).
  void completed(std::uint32_t job, SimTime now);
  // Runs every step due at or before `now`.
  void run(SimTime now, const Call& call, const Apply& apply);
  // The time of the next step (never: none).
  SimTime next_time() const;

 private:
  enum class Kind : std::uint8_t { kHello, kSubmitted, kBye, kCompleted, kDecision, kReady };
  enum class Sender : std::uint8_t { kSubmitter, kReqRep, kExecutor };
  struct Put {
    SimTime posted;
    Duration latency;
    Kind kind;
    Sender sender;
    std::vector<std::uint32_t> jobs;  // kSubmitted: the batch; kCompleted: the job
    Decision decision{};
  };
  void post(Put p);
  void start_receiving(SimTime now);
  void deliver(SimTime now, const Call& call, const Apply& apply);
  void submitter_wake(SimTime now);
  void reqrep_next(SimTime now);

  Duration server_latency_, node_latency_;
  std::uint32_t jobs_ = 0;
  std::uint32_t submitted_ = 0;
  std::deque<Put> mailbox_;          // posted, not yet received (FIFO)
  bool receiving_ = false;
  bool delivering_ = false;
  Put current_;
  SimTime current_done_ = SimTime::never();
  bool sched_ready_ = false;
  std::vector<std::uint32_t> ended_, released_;  // events for the next call
  // Submitter.
  std::deque<std::pair<std::uint32_t, SimTime>> unsent_;  // known jobs not sent yet
  SimTime submitter_wake_ = SimTime::never();
  bool submitter_busy_ = true;       // a put in flight (hello first)
  SimTime submitter_put_at_;
  Duration submitter_offset_;        // the last put's duration: the next wake is subtime + it
  // REQ-REP actor of the current call.
  std::deque<Decision> reply_;
};

}  // namespace kubesim
