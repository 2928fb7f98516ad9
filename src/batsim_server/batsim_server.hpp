// kubesim as the simulator side of Batsim's v4 protocol (oar-team/batsim v4.2.1
// docs/protocol.rst): a Batsim scheduler (batsched, pybatsim, ...) decides where and when the
// workload's rigid parallel jobs run on kubesim's cluster (`kubesim run --batsim-socket`).
//
// - Transport as Batsim's: a ZeroMQ REQ socket that connects to the scheduler's REP socket
//   (batsched binds `-s tcp://*:28000`; Batsim connects with `-s tcp://localhost:28000`), one
//   synchronous request/reply per message (Debian's libzmq, the C API).
// - Decision points: those of kubesim's model of batsched's main loop (BatchScheduler's machine
//   mode, sched/batch/machine_decider.hpp), one message per call: with `--model ideal` one per
//   instant at which jobs were released or ended (Batsim on a platform whose links have no
//   latency); with `--model batsim` the calls and their dates come from the model of Batsim's
//   message passing (sched/batch/batsim_protocol.hpp: the ~2 ms master -> node start delay and
//   the server's one-message-at-a-time mailbox). The first message is SIMULATION_BEGINS at 0;
//   NOTIFY no_more_static_job_to_submit follows the message that released the last job, as its
//   own message; SIMULATION_ENDS is sent by finish() when the run is over.
// - Machines: machine i is the i-th node (the platform's hosts in order, as Batsim numbers its
//   compute resources); EXECUTE_JOB's allocation binds the job's pod of rank k to the k-th
//   machine of the allocation. An allocation must have `res` machines, all idle (Batsim refuses
//   compute sharing by default).
// - Time (Batsim v4.2.1 protocol.cpp JsonProtocolReader: each event is dispatched at its
//   timestamp, then the scheduler is ready at the reply's "now"): a reply's decisions take
//   effect at their own dates, and until the reply's "now" what happens (jobs ending, released,
//   killed) is held and sent as one message at that date, each event with its own timestamp.
//   CALL_ME_LATER becomes a REQUESTED_CALL message at that date. Under --model batsim only
//   decisions dated at their message are modelled.
// - KILL_JOB: the job's running pods are deleted at the decision's date (they end at once,
//   COMPLETED_KILLED in jobs.csv); once the last running one ended, JOB_COMPLETED of each job
//   it killed and JOB_KILLED naming every job of the KILL_JOB, with each one's progress, go
//   with the next message, sent only then. A job already over is only named (Batsim
//   v4.2.1 server.cpp server_on_kill_jobs / server_on_killing_done); a job never started is
//   a protocol error, as in Batsim.
// - SET_JOB_METADATA sets the metadata column of the job's jobs.csv row (Workload::job_metadata),
//   of any job of the workload not yet written (server.cpp server_on_set_job_metadata: static
//   jobs are known from the start; a written job is deleted, so naming it is an error).
// - CHANGE_JOB_STATE (server.cpp server_on_change_job_state): SUBMITTED -> REJECTED is a
//   rejection, as REJECT_JOB. Batsim's other moves are refused with one line: SUBMITTED ->
//   RUNNING marks a job running on no machine, which has no pods to run in kubesim, and RUNNING
//   -> COMPLETED_* writes the row while its execution goes on (Batsim then fails when it ends).
// - TO_JOB_MSG goes to the job's message buffer, which only msg-profile jobs read: kubesim's
//   jobs are delay jobs, so it changes nothing, as in Batsim; FROM_JOB_MSG is never sent.
// - ANSWER is checked and dropped (Batsim logs it); NOTIFY registration_finished /
//   continue_registration are accepted.
// - Refused with Batsim's own words, as Batsim refuses them without -E and without
//   --enable-dynamic-jobs (what SIMULATION_BEGINS announces): SET_RESOURCE_STATE, QUERY
//   consumed_energy (kubesim has no energy model), REGISTER_JOB and REGISTER_PROFILE (its
//   workload is fixed before the run). Redis is not modelled.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "batsim_server/batsim_messages.hpp"
#include "engine/simulation.hpp"
#include "sched/batch/machine_decider.hpp"

namespace kubesim {

// The scheduler's end of the connection: a ZeroMQ REQ socket.
class BatsimEndpoint {
 public:
  // Connects (ZeroMQ connects lazily: no scheduler needs to listen yet). Throws InputError for
  // an endpoint ZeroMQ refuses.
  explicit BatsimEndpoint(std::string endpoint);
  ~BatsimEndpoint();
  BatsimEndpoint(const BatsimEndpoint&) = delete;
  BatsimEndpoint& operator=(const BatsimEndpoint&) = delete;
  // Sends one message and waits for its reply (one line on stderr once if no reply came
  // within 10 s of wall time; waiting never changes a result).
  std::string exchange(const std::string& message);
  std::uint64_t exchanges() const { return exchanges_; }

 private:
  std::string endpoint_;
  void* context_ = nullptr;
  void* socket_ = nullptr;
  std::uint64_t exchanges_ = 0;
  bool told_waiting_ = false;
};

class BatsimServer {
 public:
  explicit BatsimServer(std::string endpoint);
  // The run's scheduling: every pod goes to one BatchScheduler ("batsim-protocol") whose
  // machine jobs this server's scheduler decides. Throws InputError if a job is not a rigid
  // parallel job (a Batsim job of `res` machines).
  static void install(const std::shared_ptr<BatsimServer>& server, SimulationInputs& inputs);
  // SIMULATION_ENDS, at the date of the last message (nothing if the run never started).
  void finish();
  std::uint64_t messages() const { return endpoint_.exchanges(); }

  // MachineDecider's calls (batsim_server.cpp's RemoteDecider forwards them).
  void begin(std::uint32_t machines);
  void make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                      const std::vector<std::pair<std::uint32_t, MachineSchedule::Job>>& released, bool requested_call,
                      std::vector<MachineSchedule::Start>& starts, std::vector<std::uint32_t>& rejects);
  SimTime requested_call() const;
  void take_kills(std::vector<std::uint32_t>& kills);

 private:
  enum class JobState : std::uint8_t { kUnknown, kWaiting, kRunning, kKilling, kOver };
  // What happened while the scheduler was busy, in order, sent at its next ready date.
  struct Held {
    enum class Kind : std::uint8_t { kCompleted, kSubmitted, kKilled, kCall, kNotify, kEnds } kind;
    std::uint32_t index;  // kCompleted, kSubmitted: the job; kKilled: the kill group
    SimTime at;
  };
  // One KILL_JOB: its jobs (by index) and how many of them still run.
  struct KillGroup {
    std::vector<std::uint32_t> jobs;
    std::vector<std::uint32_t> killed;  // those it found running
    std::uint32_t running = 0;
    bool reported = false;
  };
  void exchange(const BatsimMessage& message, SimTime date, std::vector<MachineSchedule::Start>& starts,
                std::vector<std::uint32_t>& rejects);
  void apply(BatsimDecision& d, SimTime date, std::vector<MachineSchedule::Start>& starts, std::vector<std::uint32_t>& rejects);
  void kill(const std::string& id, std::uint32_t group);
  void report_finished_kills(SimTime date);
  void send_held(SimTime date, std::vector<MachineSchedule::Start>& starts, std::vector<std::uint32_t>& rejects);
  std::uint32_t job_index(const std::string& id, const char* event) const;
  std::uint32_t known_job(const std::string& id, const char* event) const;
  void apply_job_event(BatsimDecision& d, std::vector<std::uint32_t>& rejects);

  BatsimEndpoint endpoint_;
  BatsimPlatformInfo platform_;
  std::vector<BatsimJobInfo> jobs_;                     // by workload job index
  std::unordered_map<std::string, std::uint32_t> ids_;  // "w0!<id>" -> index (lookup only)
  std::vector<JobState> state_;
  std::vector<MachineSet> allocs_;
  std::vector<std::int64_t> machine_job_;  // by machine: the running job, -1 idle
  std::multiset<SimTime> calls_;           // CALL_ME_LATER dates not yet called
  std::multimap<SimTime, BatsimDecision> later_;  // decisions dated after their message, in reply order
  std::vector<Held> held_;
  std::vector<KillGroup> kill_groups_;
  std::vector<std::uint32_t> kill_group_of_;  // by job: its kill group while kKilling
  std::vector<std::uint32_t> touched_groups_; // kill groups that got jobs since the last report
  std::vector<SimTime> started_;              // by job: when EXECUTE_JOB took effect
  std::vector<bool> kill_requested_;          // by job: named by a KILL_JOB already
  std::vector<std::uint32_t> kills_;          // to kill now (take_kills)
  std::shared_ptr<std::vector<std::string>> metadata_;  // by job: SET_JOB_METADATA (the workload's)
  SimTime ready_ = SimTime::zero();           // the last reply's "now"
  std::uint32_t killing_ = 0;                 // kill groups with jobs still running
  std::uint32_t machines_ = 0;
  std::size_t released_ = 0;
  bool begun_ = false;
  bool notified_ = false;
  SimTime last_date_ = SimTime::zero();
};

}  // namespace kubesim
