#include <gtest/gtest.h>
#include <zmq.h>

#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "batsim_server/batsim_messages.hpp"
#include "batsim_server/batsim_server.hpp"

namespace kubesim {
namespace {

SimTime at(double s) { return SimTime::from_seconds(s); }

TEST(BatsimMessages, MessagesAreDatedAndWrittenAsBatsimWritesThem) {
  BatsimMessage m(at(16));
  BatsimJobInfo job{"w0!1", "d34", at(16), Duration::from_seconds(66.9), 8};
  m.job_submitted(job);
  EXPECT_EQ(m.text(),
            R"({"now":16.000000,"events":[{"timestamp":16.000000,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1",)"
            R"("job":{"id":"w0!1","subtime":16.000000,"walltime":66.900000,"res":8,"profile":"d34"}}}]})");
  BatsimMessage c(at(37.777));
  MachineSet alloc(4);
  alloc.insert(0);
  alloc.insert(1);
  alloc.insert(3);
  c.job_completed(job, alloc);
  EXPECT_NE(c.text().find(R"("job_state":"COMPLETED_SUCCESSFULLY","return_code":0,"alloc":"0-1 3")"), std::string::npos);
  BatsimMessage e(at(1));
  EXPECT_TRUE(e.empty());
  e.simulation_ends();
  EXPECT_EQ(e.text(), R"({"now":1.000000,"events":[{"timestamp":1.000000,"type":"SIMULATION_ENDS","data":{}}]})");
}

TEST(BatsimMessages, JobWithoutWalltimeLeavesTheFieldOut) {
  BatsimMessage m(at(0));
  m.job_submitted(BatsimJobInfo{"w0!7", "p", at(0), Duration(), 2});
  EXPECT_EQ(m.text().find("walltime"), std::string::npos);
}

TEST(BatsimMessages, RepliesBecomeDecisionsInOrder) {
  const auto d = parse_batsim_reply(
      R"({"now":16.0,"events":[{"timestamp":16.0,"type":"REJECT_JOB","data":{"job_id":"w0!1"}},)"
      R"({"timestamp":16.0,"type":"EXECUTE_JOB","data":{"job_id":"w0!2","alloc":"0-2 5"}},)"
      R"({"timestamp":16.0,"type":"NOTIFY","data":{"type":"registration_finished"}},)"
      R"({"timestamp":16.0,"type":"CALL_ME_LATER","data":{"timestamp":20.5}}]})",
      at(16), 8);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].kind, BatsimDecision::Kind::kReject);
  EXPECT_EQ(d[0].job_id, "w0!1");
  EXPECT_EQ(d[1].kind, BatsimDecision::Kind::kExecute);
  EXPECT_EQ(d[1].alloc.to_string(), "0-2 5");
  EXPECT_EQ(d[2].kind, BatsimDecision::Kind::kCallMeLater);
  EXPECT_EQ(d[2].at, at(20.5));
}

TEST(BatsimMessages, KillsAndLaterDecisionsKeepTheirDatesAndTheReplysNow) {
  SimTime ready;
  const auto d = parse_batsim_reply(
      R"({"now":26.0,"events":[{"timestamp":16.0,"type":"EXECUTE_JOB","data":{"job_id":"w0!2","alloc":"0"}},)"
      R"({"timestamp":26.0,"type":"KILL_JOB","data":{"job_ids":["w0!2","w0!1"]}}]})",
      at(16), 4, &ready);
  EXPECT_EQ(ready, at(26));
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[1].kind, BatsimDecision::Kind::kKill);
  EXPECT_EQ(d[1].job_id, "w0!2");
  EXPECT_EQ(d[2].job_id, "w0!1");
  EXPECT_EQ(d[1].at, at(26));
  EXPECT_EQ(d[1].group, d[2].group);
  BatsimJobInfo job;
  job.id = "w0!2";
  job.profile = "d20";
  BatsimMessage m(at(26));
  m.stamp(at(21.5));
  m.job_killed({{&job, 0.5}});
  EXPECT_EQ(m.text(), R"({"now":26.000000,"events":[{"timestamp":21.500000,"type":"JOB_KILLED","data":)"
                      R"({"job_ids":["w0!2"],"job_progress":{"w0!2":{"profile":"d20","progress":0.5}}}}]})");
}

TEST(BatsimMessages, BadRepliesAreRefusedWithTheReason) {
  auto error = [](const std::string& reply) {
    try {
      parse_batsim_reply(reply, at(10), 4);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("not json").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error(R"({"now":10,"events":[{"timestamp":10,"type":"REGISTER_JOB","data":{"job_id":"w0!9"}}]})")
                .find("dynamic job registration received but the option is disabled"),
            std::string::npos);
  EXPECT_NE(error(R"({"now":10,"events":[{"timestamp":10,"type":"SUSPEND_JOB","data":{}}]})").find("unknown event type SUSPEND_JOB"),
            std::string::npos);
  EXPECT_NE(error(R"({"now":10,"events":[{"timestamp":10,"type":"KILL_JOB","data":{"job_ids":[]}}]})")
                .find("non-empty array"),
            std::string::npos);
  EXPECT_NE(error(R"({"now":10,"events":[{"timestamp":10,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"2-4"}}]})")
                .find("names machine 4 of 4"),
            std::string::npos);
  EXPECT_NE(error(R"({"now":11,"events":[{"timestamp":12,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0"}}]})")
                .find("outside the message's 10.000000 .. the reply's now 11.000000"),
            std::string::npos);
  EXPECT_NE(error(R"({"now":9,"events":[]})").find("before the message"), std::string::npos);
  EXPECT_NE(error(R"({"now":10,"events":[{"timestamp":10,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"3-1"}}]})")
                .find("decreasing"),
            std::string::npos);
}

// Batsim v4.2.1 protocol.cpp handle_set_job_metadata / handle_change_job_state / handle_to_job_msg.
TEST(BatsimMessages, JobEventsBecomeDecisionsWithTheirText) {
  const auto d = parse_batsim_reply(
      R"({"now":12,"events":[{"timestamp":10,"type":"SET_JOB_METADATA","data":{"job_id":"w0!1","metadata":"a, b"}},)"
      R"({"timestamp":11,"type":"CHANGE_JOB_STATE","data":{"job_id":"w0!2","job_state":"REJECTED"}},)"
      R"({"timestamp":12,"type":"TO_JOB_MSG","data":{"job_id":"w0!3","msg":"hi"}},)"
      R"({"timestamp":12,"type":"ANSWER","data":{"estimate_waiting_time":{"job_id":"w0!3","estimated_waiting_time":5}}},)"
      R"({"timestamp":12,"type":"NOTIFY","data":{"type":"continue_registration"}}]})",
      at(10), 4);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].kind, BatsimDecision::Kind::kMetadata);
  EXPECT_EQ(d[0].text, "a, b");
  EXPECT_EQ(d[1].kind, BatsimDecision::Kind::kChangeState);
  EXPECT_EQ(d[1].text, "REJECTED");
  EXPECT_EQ(d[1].at, at(11));
  EXPECT_EQ(d[2].kind, BatsimDecision::Kind::kToJobMsg);
  EXPECT_EQ(d[2].job_id, "w0!3");
}

// Without an energy model kubesim is Batsim without -E: the events are checked, then refused with
// Batsim's words (server.cpp server_on_pstate_modification, server_on_sched_tell_me_energy).
TEST(BatsimMessages, EnergyEventsAndBadJobEventsAreRefusedAsBatsimRefusesThem) {
  auto error = [](const std::string& event) {
    try {
      parse_batsim_reply(R"({"now":10,"events":[{"timestamp":10,)" + event + "}]}", at(10), 4);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error(R"("type":"SET_RESOURCE_STATE","data":{"resources":"1-2","state":"13"})")
                .find("pstate modification request, which is forbidden as Batsim has not been launched with energy"),
            std::string::npos);
  EXPECT_NE(error(R"("type":"SET_RESOURCE_STATE","data":{"resources":"1-2","state":"off"})").find("holding an integer"),
            std::string::npos);
  EXPECT_NE(error(R"("type":"SET_RESOURCE_STATE","data":{"resources":"7","state":"1"})").find("names machine 7 of 4"),
            std::string::npos);
  EXPECT_NE(error(R"("type":"QUERY","data":{"requests":{"consumed_energy":{}}})").find("energy simulation is not enabled"),
            std::string::npos);
  EXPECT_NE(error(R"("type":"QUERY","data":{"requests":{"air_temperature":{}}})").find("unknown QUERY \"air_temperature\""),
            std::string::npos);
  EXPECT_NE(error(R"("type":"SET_JOB_METADATA","data":{"job_id":"w0!1","metadata":"say \"hi\""})")
                .find("should not contain double quotes"),
            std::string::npos);
  EXPECT_NE(error(R"("type":"CHANGE_JOB_STATE","data":{"job_id":"w0!1","job_state":"DONE"})").find("must be one of"),
            std::string::npos);
  EXPECT_NE(error(R"("type":"ANSWER","data":{"estimate_energy":{}})").find("unknown ANSWER type"), std::string::npos);
  EXPECT_NE(error(R"("type":"NOTIFY","data":{"type":"bye"})").find("unknown NOTIFY type \"bye\""), std::string::npos);
}

// A Batsim scheduler that answers each message with the next scripted reply, recording them.
class ScriptedScheduler {
 public:
  ScriptedScheduler(std::string endpoint, std::vector<std::string> replies) : replies_(std::move(replies)) {
    context_ = zmq_ctx_new();
    socket_ = zmq_socket(context_, ZMQ_REP);
    const int linger = 0;
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof linger);
    zmq_bind(socket_, endpoint.c_str());
    thread_ = std::thread([this] {
      for (const std::string& reply : replies_) {
        char buf[1 << 14];
        const int n = zmq_recv(socket_, buf, sizeof buf, 0);
        if (n < 0) return;
        received_.emplace_back(buf, static_cast<std::size_t>(std::min<int>(n, static_cast<int>(sizeof buf))));
        zmq_send(socket_, reply.data(), reply.size(), 0);
      }
    });
  }
  ~ScriptedScheduler() {
    thread_.join();
    zmq_close(socket_);
    zmq_ctx_term(context_);
  }
  const std::vector<std::string>& received() const { return received_; }

 private:
  std::vector<std::string> replies_;
  std::vector<std::string> received_;
  void* context_;
  void* socket_;
  std::thread thread_;
};

// Two one-machine jobs on two machines, released at 0; `reply` answers their JOB_SUBMITTED.
struct JobEventRun {
  SimulationInputs inputs;
  std::shared_ptr<BatsimServer> server;
  std::vector<MachineSchedule::Start> starts;
  std::vector<std::uint32_t> rejects;

  void run(const std::string& endpoint) {
    for (const char* name : {"m0", "m1"}) {
      Node n;
      n.name = name;
      inputs.nodes.push_back(n);
    }
    for (const char* id : {"0", "1"}) {
      WorkloadJob j;
      j.id = id;
      j.profile = "d10";
      j.run_time = Duration::from_seconds(10);
      j.machines = 1;
      inputs.workload.jobs.push_back(j);
    }
    server = std::make_shared<BatsimServer>(endpoint);
    BatsimServer::install(server, inputs);
    server->begin(2);
    std::vector<std::pair<std::uint32_t, MachineSchedule::Job>> released;
    for (std::uint32_t k = 0; k < 2; ++k) released.push_back({k, MachineSchedule::Job{std::to_string(k), 1, Duration(), at(0)}});
    server->make_decisions(at(0), {}, released, false, starts, rejects);
  }
};

std::string reply_at0(const std::string& events) { return R"({"now":0,"events":[)" + events + "]}"; }

// Batsim v4.2.1 server.cpp server_on_set_job_metadata / server_on_change_job_state /
// server_on_to_job_msg: metadata lands in the workload's jobs.csv column, REJECTED rejects a
// submitted job, a message to a delay job changes nothing.
TEST(BatsimServer, JobEventsSetMetadataRejectAndAreRefusedAsBatsimDoes) {
  const std::string ipc = "ipc:///tmp/kubesim-batsim-server-test-" + std::to_string(::getpid());
  {
    ScriptedScheduler sched(ipc, {reply_at0(""), reply_at0(
        R"({"timestamp":0,"type":"SET_JOB_METADATA","data":{"job_id":"w0!0","metadata":"queue=a, prio 2"}},)"
        R"({"timestamp":0,"type":"TO_JOB_MSG","data":{"job_id":"w0!0","msg":"hello"}},)"
        R"({"timestamp":0,"type":"CHANGE_JOB_STATE","data":{"job_id":"w0!1","job_state":"REJECTED"}},)"
        R"({"timestamp":0,"type":"EXECUTE_JOB","data":{"job_id":"w0!0","alloc":"1"}})"),
                                  reply_at0("")});  // NOTIFY no_more_static_job_to_submit
    JobEventRun r;
    r.run(ipc);
    ASSERT_EQ(r.rejects, std::vector<std::uint32_t>{1});
    ASSERT_EQ(r.starts.size(), 1u);
    EXPECT_EQ(r.starts[0].machines.to_string(), "1");
    ASSERT_TRUE(r.inputs.workload.job_metadata);
    EXPECT_EQ((*r.inputs.workload.job_metadata)[0], "queue=a, prio 2");
    EXPECT_EQ((*r.inputs.workload.job_metadata)[1], "");
    ASSERT_EQ(sched.received().size(), 3u);
    EXPECT_NE(sched.received()[1].find(R"("type":"JOB_SUBMITTED")"), std::string::npos);
    EXPECT_NE(sched.received()[2].find("no_more_static_job_to_submit"), std::string::npos);
  }
  auto refused = [&](const std::string& events) {
    ScriptedScheduler sched(ipc, {reply_at0(""), reply_at0(events)});
    JobEventRun r;
    try {
      r.run(ipc);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused(R"({"timestamp":0,"type":"CHANGE_JOB_STATE","data":{"job_id":"w0!1","job_state":"RUNNING"}})")
                .find("kubesim takes REJECTED"),
            std::string::npos);
  EXPECT_NE(refused(R"({"timestamp":0,"type":"SET_JOB_METADATA","data":{"job_id":"w0!9","metadata":"x"}})")
                .find("which does not exist"),
            std::string::npos);
  EXPECT_NE(refused(R"({"timestamp":0,"type":"REJECT_JOB","data":{"job_id":"w0!1"}},)"
                    R"({"timestamp":0,"type":"TO_JOB_MSG","data":{"job_id":"w0!1","msg":"late"}})")
                .find("which is over"),
            std::string::npos);
}

}  // namespace
}  // namespace kubesim
