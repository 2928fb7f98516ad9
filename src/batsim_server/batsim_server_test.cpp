#include <gtest/gtest.h>

#include <stdexcept>

#include "batsim_server/batsim_messages.hpp"

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
                .find("does not model REGISTER_JOB"),
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

}  // namespace
}  // namespace kubesim
