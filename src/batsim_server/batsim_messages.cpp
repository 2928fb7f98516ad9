#include "batsim_server/batsim_messages.hpp"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kubesim {
namespace {

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// A reply's time in seconds as the simulator's microsecond (the nearest).
SimTime reply_time(const nlohmann::json& v, const char* what) {
  if (!v.is_number()) throw std::runtime_error(std::string(what) + " should be a number");
  const double s = v.get<double>();
  if (!std::isfinite(s) || s < 0 || s > 9.2e12)
    throw std::runtime_error(std::string(what) + " should be a time in seconds (got " + v.dump() + ")");
  return SimTime::zero() + Duration::micros(std::llround(s * 1e6));
}

const nlohmann::json& member(const nlohmann::json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end()) throw std::runtime_error(where + " has no \"" + key + "\"");
  return *it;
}

std::string string_member(const nlohmann::json& o, const char* key, const std::string& where) {
  const nlohmann::json& v = member(o, key, where);
  if (!v.is_string()) throw std::runtime_error(where + ": \"" + key + "\" should be a string");
  return v.get<std::string>();
}

}  // namespace

std::string batsim_seconds(std::int64_t micros) {
  // std::to_string(double) is "%f"; the microsecond's double prints as the microsecond.
  char buf[48];
  std::snprintf(buf, sizeof buf, "%f", static_cast<double>(micros) / 1e6);
  return buf;
}

BatsimMessage::BatsimMessage(SimTime now) : now_(batsim_seconds(now.micros())), stamp_(now_) {
  out_ = "{\"now\":" + now_ + ",\"events\":[";
}

void BatsimMessage::event(const char* type, const std::string& data) {
  if (events_++ != 0) out_ += ',';
  out_ += "{\"timestamp\":" + stamp_ + ",\"type\":\"" + type + "\",\"data\":" + data + "}";
}

// Batsim v4.2.1 protocol.cpp JsonProtocolWriter::append_simulation_begins: resources, the
// configuration flags (all off: no Redis, no dynamic jobs), the workloads and their profiles.
void BatsimMessage::simulation_begins(const BatsimPlatformInfo& info) {
  const std::size_t n = info.machine_names.size();
  std::string d = "{\"nb_resources\":" + std::to_string(n) + ",\"nb_compute_resources\":" + std::to_string(n) +
                  ",\"nb_storage_resources\":0,\"allow_compute_sharing\":false,\"allow_storage_sharing\":true,"
                  "\"config\":{\"redis-enabled\":false,\"redis-hostname\":\"127.0.0.1\",\"redis-port\":6379,"
                  "\"redis-prefix\":\"default\",\"profiles-forwarded-on-submission\":false,\"dynamic-jobs-enabled\":false,"
                  "\"dynamic-jobs-acknowledged\":false,\"profile-reuse-enabled\":false,\"sched-config\":\"\","
                  "\"forward-unknown-events\":false},\"compute_resources\":[";
  for (std::size_t i = 0; i < n; ++i)
    d += std::string(i ? "," : "") + "{\"id\":" + std::to_string(i) + ",\"name\":" + quoted(info.machine_names[i]) +
         ",\"state\":\"idle\",\"properties\":{},\"zone_properties\":{}}";
  d += "],\"storage_resources\":[],\"workloads\":{\"w0\":" + quoted(info.workload_path) + "},\"profiles\":{\"w0\":{";
  for (std::size_t i = 0; i < info.profiles.size(); ++i)
    d += std::string(i ? "," : "") + quoted(info.profiles[i].first) + ":{\"type\":\"delay\",\"delay\":" +
         batsim_seconds(info.profiles[i].second.micros()) + "}";
  d += "}}}";
  event("SIMULATION_BEGINS", d);
}

void BatsimMessage::job_submitted(const BatsimJobInfo& job) {
  std::string j = "{\"id\":" + quoted(job.id) + ",\"subtime\":" + batsim_seconds(job.subtime.micros());
  if (job.walltime > Duration()) j += ",\"walltime\":" + batsim_seconds(job.walltime.micros());
  j += ",\"res\":" + std::to_string(job.res) + ",\"profile\":" + quoted(job.profile) + "}";
  event("JOB_SUBMITTED", "{\"job_id\":" + quoted(job.id) + ",\"job\":" + j + "}");
}

void BatsimMessage::job_completed(const BatsimJobInfo& job, const MachineSet& alloc) {
  event("JOB_COMPLETED", "{\"job_id\":" + quoted(job.id) + ",\"job_state\":\"" + job.final_state +
                             "\",\"return_code\":" + std::to_string(job.return_code) + ",\"alloc\":\"" +
                             alloc.to_string() + "\"}");
}

void BatsimMessage::stamp(SimTime at) { stamp_ = batsim_seconds(at.micros()); }

void BatsimMessage::job_killed(const std::vector<Progress>& jobs) {
  std::string ids, progress;
  for (const Progress& p : jobs) {
    const std::string id = quoted(p.job->id);
    ids += (ids.empty() ? "" : ",") + id;
    progress += (progress.empty() ? "" : ",") + id + ":{\"profile\":" + quoted(p.job->profile) +
                ",\"progress\":" + nlohmann::json(p.progress).dump() + "}";
  }
  event("JOB_KILLED", "{\"job_ids\":[" + ids + "],\"job_progress\":{" + progress + "}}");
}

void BatsimMessage::requested_call() { event("REQUESTED_CALL", "{}"); }

void BatsimMessage::notify(const std::string& type) { event("NOTIFY", "{\"type\":" + quoted(type) + "}"); }

void BatsimMessage::simulation_ends() { event("SIMULATION_ENDS", "{}"); }

MachineSet parse_machine_intervals(const std::string& text, std::uint32_t machines) {
  MachineSet set(machines);
  std::size_t i = 0;
  auto number = [&]() -> std::uint32_t {
    const std::size_t start = i;
    std::uint64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && v < (1u << 31)) v = v * 10 + static_cast<std::uint64_t>(text[i++] - '0');
    if (i == start) throw std::runtime_error("allocation \"" + text + "\" is not an interval set such as \"0-3 7\"");
    if (v >= machines)
      throw std::runtime_error("allocation \"" + text + "\" names machine " + std::to_string(v) + " of " +
                               std::to_string(machines));
    return static_cast<std::uint32_t>(v);
  };
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const std::uint32_t first = number();
    std::uint32_t last = first;
    if (i < text.size() && text[i] == '-') {
      ++i;
      last = number();
    }
    if (last < first) throw std::runtime_error("allocation \"" + text + "\" has a decreasing interval");
    for (std::uint32_t m = first; m <= last; ++m) set.insert(m);
  }
  if (set.size() == 0) throw std::runtime_error("allocation \"" + text + "\" is empty");
  return set;
}

namespace {

// Batsim v4.2.1 protocol.cpp handle_change_job_state's allowed_states.
bool known_job_state(const std::string& s) {
  for (const char* k : {"NOT_SUBMITTED", "RUNNING", "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED",
                        "COMPLETED_KILLED", "REJECTED"})
    if (s == k) return true;
  return false;
}

// SET_RESOURCE_STATE and QUERY are checked as Batsim checks them (protocol.cpp
// handle_set_resource_state, handle_query: accepted_requests = {"consumed_energy"}), then refused
// as its server refuses them when energy is not simulated (server.cpp
// server_on_pstate_modification, server_on_sched_tell_me_energy): kubesim has no energy model,
// so it is Batsim without -E, and RESOURCE_STATE_CHANGED or ANSWER consumed_energy never follow.
[[noreturn]] void refuse_energy_event(const std::string& type, const nlohmann::json& data, const std::string& where,
                                      std::uint32_t machines) {
  if (type == "SET_RESOURCE_STATE") {
    parse_machine_intervals(string_member(data, "resources", where), machines);
    const std::string state = string_member(data, "state", where);
    if (state.empty() || state.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error(where + " (SET_RESOURCE_STATE): \"state\" should be a string holding an integer (got \"" +
                               state + "\")");
    throw std::runtime_error(where + ": receiving a pstate modification request, which is forbidden as Batsim has not "
                             "been launched with energy support, and kubesim has no energy model");
  }
  const nlohmann::json& requests = member(data, "requests", where);
  if (!requests.is_object() || requests.empty())
    throw std::runtime_error(where + " (QUERY): \"requests\" should be a non-empty object");
  for (const auto& [key, value] : requests.items())
    if (key != "consumed_energy" || !value.is_object() || !value.empty())
      throw std::runtime_error(where + ": unknown QUERY \"" + key + "\" (Batsim answers only {\"consumed_energy\": {}})");
  throw std::runtime_error(where + ": received a request about the energy consumption of the machines but energy "
                           "simulation is not enabled (kubesim has no energy model)");
}

// ANSWER (protocol.cpp handle_answer): only estimate_waiting_time, which Batsim logs and drops.
void check_answer(const nlohmann::json& data, const std::string& where) {
  if (!data.is_object() || data.empty()) throw std::runtime_error(where + " (ANSWER): \"data\" should be a non-empty object");
  for (const auto& [key, value] : data.items()) {
    if (key != "estimate_waiting_time") throw std::runtime_error(where + ": unknown ANSWER type \"" + key + "\"");
    string_member(value, "job_id", where);
    if (!member(value, "estimated_waiting_time", where).is_number())
      throw std::runtime_error(where + ": \"estimated_waiting_time\" should be a number");
  }
}

// One decision event (not NOTIFY, ANSWER), appended to `out`.
void parse_decision(const std::string& type, const nlohmann::json& data, SimTime at, const std::string& where,
                    std::size_t k, std::uint32_t machines, std::vector<BatsimDecision>& out) {
  using Kind = BatsimDecision::Kind;
  if (type == "EXECUTE_JOB") {
    out.push_back({Kind::kExecute, string_member(data, "job_id", where),
                   parse_machine_intervals(string_member(data, "alloc", where), machines), at, 0});
  } else if (type == "REJECT_JOB") {
    out.push_back({Kind::kReject, string_member(data, "job_id", where), MachineSet(), at, 0});
  } else if (type == "KILL_JOB") {
    const nlohmann::json& ids = member(data, "job_ids", where);
    if (!ids.is_array() || ids.empty()) throw std::runtime_error(where + ": \"job_ids\" should be a non-empty array");
    for (const nlohmann::json& id : ids) {
      if (!id.is_string()) throw std::runtime_error(where + ": \"job_ids\" should hold strings");
      out.push_back({Kind::kKill, id.get<std::string>(), MachineSet(), at, static_cast<std::uint32_t>(k)});
    }
  } else if (type == "CALL_ME_LATER") {
    const SimTime when = reply_time(member(data, "timestamp", where), "CALL_ME_LATER's \"timestamp\"");
    out.push_back({Kind::kCallMeLater, std::string(), MachineSet(), when, 0});
  } else if (type == "SET_JOB_METADATA") {
    // protocol.cpp handle_set_job_metadata: no double quote, as jobs.csv writes it in quotes.
    std::string metadata = string_member(data, "metadata", where);
    if (metadata.find('"') != std::string::npos)
      throw std::runtime_error(where + " (SET_JOB_METADATA): \"metadata\" should not contain double quotes");
    out.push_back({Kind::kMetadata, string_member(data, "job_id", where), MachineSet(), at, 0, std::move(metadata)});
  } else if (type == "CHANGE_JOB_STATE") {
    std::string state = string_member(data, "job_state", where);
    if (!known_job_state(state))
      throw std::runtime_error(where + " (CHANGE_JOB_STATE): \"job_state\" must be one of NOT_SUBMITTED, RUNNING, "
                               "COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED, COMPLETED_KILLED, REJECTED");
    out.push_back({Kind::kChangeState, string_member(data, "job_id", where), MachineSet(), at, 0, std::move(state)});
  } else if (type == "TO_JOB_MSG") {
    out.push_back({Kind::kToJobMsg, string_member(data, "job_id", where), MachineSet(), at, 0, string_member(data, "msg", where)});
  } else if (type == "SET_RESOURCE_STATE" || type == "QUERY") {
    refuse_energy_event(type, data, where, machines);
  } else if (type == "REGISTER_JOB" || type == "REGISTER_PROFILE") {
    // protocol.cpp handle_register_job/profile: SIMULATION_BEGINS says dynamic-jobs-enabled false.
    throw std::runtime_error(where + " (" + type + "): dynamic job registration received but the option is disabled "
                             "(kubesim's workload is static: it does not model dynamic jobs)");
  } else {
    throw std::runtime_error(where + ": unknown event type " + type);
  }
}

// NOTIFY from the scheduler (protocol.cpp handle_notify): only the two registration types, which
// change nothing without dynamic jobs.
void check_notify(const nlohmann::json& data, const std::string& where) {
  const std::string type = string_member(data, "type", where);
  if (type != "registration_finished" && type != "continue_registration")
    throw std::runtime_error(where + ": unknown NOTIFY type \"" + type + "\"");
}

}  // namespace

// Batsim v4.2.1 protocol.cpp JsonProtocolReader::parse_and_apply_message: an object with "now"
// and "events", each event with "timestamp", "type" and "data".
std::vector<BatsimDecision> parse_batsim_reply(const std::string& text, SimTime now, std::uint32_t machines,
                                               SimTime* reply_now) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw std::runtime_error("the reply is not a JSON object: " + text.substr(0, 200));
  const SimTime ready = reply_time(member(doc, "now", "the reply"), "the reply's \"now\"");
  if (ready < now) throw std::runtime_error("the reply's \"now\" is before the message's (" + batsim_seconds(now.micros()) + ")");
  if (reply_now) *reply_now = ready;
  const nlohmann::json& events = member(doc, "events", "the reply");
  if (!events.is_array()) throw std::runtime_error("the reply's \"events\" should be an array");
  std::vector<BatsimDecision> out;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const nlohmann::json& e = events[k];
    const std::string where = "the reply's event " + std::to_string(k);
    if (!e.is_object()) throw std::runtime_error(where + " should be an object");
    const std::string type = string_member(e, "type", where);
    const SimTime at = reply_time(member(e, "timestamp", where), "a \"timestamp\"");
    const nlohmann::json& data = member(e, "data", where);
    if (type == "NOTIFY") {
      check_notify(data, where);
      continue;
    }
    if (type == "ANSWER") {
      check_answer(data, where);  // Batsim only logs it
      continue;
    }
    // Batsim's protocol reader sends each event to its server at the event's timestamp, then
    // tells it the scheduler is ready at the reply's "now" (v4.2.1 protocol.cpp
    // JsonProtocolReader::dispatch_event, send_message_at_time): a decision is applied at its
    // date, which lies between the message's date and the reply's "now".
    if (at < now || at > ready)
      throw std::runtime_error(where + " (" + type + ") is dated " + batsim_seconds(at.micros()) + ", outside the message's " +
                               batsim_seconds(now.micros()) + " .. the reply's now " + batsim_seconds(ready.micros()));
    parse_decision(type, data, at, where, k, machines, out);
  }
  return out;
}

}  // namespace kubesim
