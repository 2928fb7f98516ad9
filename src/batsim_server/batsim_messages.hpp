// The JSON of Batsim's v4 protocol (oar-team/batsim v4.2.1 docs/protocol.rst, src/protocol.cpp),
// simulator side: the messages kubesim sends (`{"now": t, "events": [...]}` with
// SIMULATION_BEGINS, JOB_SUBMITTED, JOB_COMPLETED, JOB_KILLED, REQUESTED_CALL, NOTIFY,
// SIMULATION_ENDS) and the scheduler's replies it reads: EXECUTE_JOB, REJECT_JOB, KILL_JOB,
// CALL_ME_LATER, SET_JOB_METADATA, CHANGE_JOB_STATE, TO_JOB_MSG, ANSWER and NOTIFY (each checked
// as Batsim v4.2.1 protocol.cpp JsonProtocolReader::handle_* checks it), and SET_RESOURCE_STATE,
// QUERY and REGISTER_JOB/REGISTER_PROFILE, which are refused with Batsim's own words for a
// simulation without energy (-E) and without dynamic jobs (--enable-dynamic-jobs), the
// configuration SIMULATION_BEGINS announces.
// Times are written as Batsim writes them (std::to_string: six decimals, e.g. 16.000000), which
// the scheduler parses to the double nearest the microsecond, as from Batsim. No ZeroMQ here
// (batsim_server.hpp): the codec is tested on its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "sched/batch/machine_schedule.hpp"

namespace kubesim {

// What SIMULATION_BEGINS describes: the compute resources (machine i = the i-th node) and
// the workload ("w0") with its delay profiles.
struct BatsimPlatformInfo {
  std::vector<std::string> machine_names;
  std::string workload_path;
  std::vector<std::pair<std::string, Duration>> profiles;  // name -> delay, in first-use order
};

// One job as JOB_SUBMITTED carries it (Batsim's raw job with id "w0!<id>").
struct BatsimJobInfo {
  std::string id;           // "w0!<id>"
  std::string profile;
  SimTime subtime;
  Duration walltime;        // zero: none (the field is left out, as batsched reads -1)
  std::uint32_t res = 1;    // machines
  Duration run_time;        // its delay profile's delay (JOB_KILLED's progress)
  std::string final_state = "COMPLETED_SUCCESSFULLY";  // JOB_COMPLETED's job_state
  std::int32_t return_code = 0;
};

// Builds one message: events appended in order, all dated `now`.
class BatsimMessage {
 public:
  explicit BatsimMessage(SimTime now);
  void simulation_begins(const BatsimPlatformInfo& info);
  void job_submitted(const BatsimJobInfo& job);
  void job_completed(const BatsimJobInfo& job, const MachineSet& alloc);
  // JOB_KILLED of one KILL_JOB (Batsim v4.2.1 protocol.cpp append_job_killed): every id it
  // named, and each one's progress (a delay profile's: the fraction of its delay done).
  struct Progress {
    const BatsimJobInfo* job;
    double progress;  // in [0, 1]
  };
  void job_killed(const std::vector<Progress>& jobs);
  // Dates the events appended from now on (Batsim stamps each event with when it happened; the
  // message's "now" is when it is sent). Default: the message's date.
  void stamp(SimTime at);
  void requested_call();
  void notify(const std::string& type);  // e.g. no_more_static_job_to_submit
  void simulation_ends();
  bool empty() const { return events_ == 0; }
  std::string text() const { return out_ + "]}"; }

 private:
  void event(const char* type, const std::string& data);
  std::string now_;
  std::string stamp_;
  std::string out_;
  std::uint32_t events_ = 0;
};

// One decision of a reply, in reply order.
struct BatsimDecision {
  // kMetadata: SET_JOB_METADATA; kChangeState: CHANGE_JOB_STATE; kToJobMsg: TO_JOB_MSG.
  enum class Kind : std::uint8_t { kExecute, kReject, kKill, kCallMeLater, kMetadata, kChangeState, kToJobMsg };
  Kind kind;
  std::string job_id;   // all but kCallMeLater (one decision per id, `group` tells its KILL_JOB)
  MachineSet alloc;     // kExecute: the machines (an interval set "0-3 7")
  SimTime at;           // the event's timestamp (kCallMeLater: when to call)
  std::uint32_t group;  // kKill: the index of its KILL_JOB event in the reply
  std::string text = {};  // kMetadata: the metadata; kChangeState: the state; kToJobMsg: the message
};

// Parses a reply to a message dated `now` on `machines` machines; `reply_now` (if given) gets
// the reply's "now": when the scheduler is ready for the next message. Decisions may be dated
// later than `now` (Batsim applies each at its timestamp). Throws std::runtime_error with what
// was wrong (not JSON, an event Batsim would refuse in this configuration such as REGISTER_JOB,
// an allocation outside the machines, a decision dated before `now` or after the reply's "now").
std::vector<BatsimDecision> parse_batsim_reply(const std::string& text, SimTime now, std::uint32_t machines,
                                               SimTime* reply_now = nullptr);

// Batsim's interval set text ("0-3 7 9-10", IntervalSet::from_string_hyphen with " ") on
// `machines` machines; throws std::runtime_error on bad text or an id out of range.
MachineSet parse_machine_intervals(const std::string& text, std::uint32_t machines);

// Seconds as Batsim prints them (std::to_string of the double: six decimals).
std::string batsim_seconds(std::int64_t micros);

}  // namespace kubesim
