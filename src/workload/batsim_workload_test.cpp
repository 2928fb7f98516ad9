#include "workload/batsim_workload.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/input_error.hpp"
#include "testing/param_name.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

using testing::BadInput;

const std::string kData = kubesim::testing::data_dir();

const WorkloadJob& job_by_id(const Workload& w, const std::string& id) {
  auto it = std::find_if(w.jobs.begin(), w.jobs.end(), [&](const WorkloadJob& j) { return j.id == id; });
  EXPECT_NE(it, w.jobs.end()) << id;
  return *it;
}

TEST(BatsimWorkload, KitJsonNumericCpu) {
  ResourceNames names;
  const std::string path = kData + "/batkube/KIT_10h_80.json";
  Workload w = read_batsim_workload(path, names);
  EXPECT_EQ(w.source, path);
  EXPECT_EQ(w.name, "w0");
  ASSERT_EQ(w.jobs.size(), 39u);
  EXPECT_EQ(w.skipped.total(), 0u);
  std::set<std::string> profiles;
  int cpu_3516 = 0;
  for (const WorkloadJob& j : w.jobs) {
    profiles.insert(j.profile);
    const PodTemplate& t = w.templates[j.pod_template];
    EXPECT_EQ(t.scheduler_name, "default-scheduler");  // "default" in the file
    EXPECT_TRUE(t.labels.empty());
    ASSERT_EQ(t.containers.size(), 1u);
    EXPECT_EQ(t.containers[0].name, "main");
    EXPECT_EQ(t.containers[0].limits, t.containers[0].requests);
    EXPECT_EQ(t.containers[0].requested_mask, 1u << kCpu);
    EXPECT_EQ(t.requests, t.containers[0].requests);  // finalize() ran
    EXPECT_EQ(j.requested_resources, 1);
    EXPECT_EQ(j.walltime, Duration());
    if (t.requests[kCpu] == 3516) ++cpu_3516;  // 3.516 -> "%f" -> "3.516000" -> 3516m
  }
  EXPECT_EQ(cpu_3516, 24);
  EXPECT_EQ(w.templates.size(), profiles.size());  // one template per (profile, request)
  const WorkloadJob& first = w.jobs.front();
  EXPECT_EQ(first.id, "982");
  EXPECT_EQ(first.profile, "delay61596");
  EXPECT_EQ(first.run_time, Duration::seconds(3600));
  EXPECT_EQ(w.templates[first.pod_template].requests[kCpu], 5900);
  EXPECT_EQ(job_by_id(w, "1000").submit, SimTime::at(Duration::seconds(19266)));
  EXPECT_EQ(job_by_id(w, "1000").run_time, Duration::seconds(188));
  EXPECT_EQ(w.templates[job_by_id(w, "1016").pod_template].requests[kCpu], 188);
}

TEST(BatsimWorkload, SpacedAndBurstFiles) {
  ResourceNames names;
  Workload spaced = read_batsim_workload(kData + "/batkube/spaced_200_delay170.json", names);
  ASSERT_EQ(spaced.jobs.size(), 200u);
  EXPECT_EQ(spaced.templates.size(), 1u);
  for (std::size_t i = 0; i < spaced.jobs.size(); ++i) {
    EXPECT_EQ(spaced.jobs[i].id, std::to_string(i + 1));
    EXPECT_EQ(spaced.jobs[i].submit, SimTime::at(Duration::seconds(10 * static_cast<std::int64_t>(i))));
    EXPECT_EQ(spaced.jobs[i].run_time, Duration::seconds(170));
    EXPECT_EQ(spaced.jobs[i].walltime, Duration::seconds(1000));
  }
  EXPECT_EQ(spaced.templates[0].requests[kCpu], 1000);

  Workload burst = read_batsim_workload(kData + "/batkube/200_delay170.json", names);
  ASSERT_EQ(burst.jobs.size(), 200u);
  EXPECT_EQ(burst.jobs[0].id, "1");  // stable sort keeps file order at equal subtime
  EXPECT_EQ(burst.jobs[199].id, "200");

  Workload varied = read_batsim_workload(kData + "/batkube/spaced_150_delay200_varied_cpu.json", names);
  ASSERT_EQ(varied.jobs.size(), 150u);
  EXPECT_EQ(varied.templates.size(), 4u);
  for (const WorkloadJob& j : varied.jobs) {
    const std::int64_t expected = (j.profile.back() - '0') * 1000;  // delay1..delay4 ask for 1..4 cpus
    EXPECT_EQ(varied.templates[j.pod_template].requests[kCpu], expected) << j.id;
  }
}

TEST(BatsimWorkload, ResWithoutCpuAndExtensions) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("workload.json", R"({
  "nb_res": 4,
  "jobs": [
    {"id": 7, "subtime": 5.5, "res": 3, "profile": "plain", "walltime": -1, "extra_data": "x"},
    {"id": "a", "subtime": 1.0000004, "res": 2, "profile": "plain", "walltime": 12.25},
    {"id": "b", "subtime": 1, "res": 2, "profile": "plain"},
    {"id": "c", "subtime": 0, "res": 9, "profile": "rich"}
  ],
  "profiles": {
    "plain": {"type": "delay", "delay": 2.5, "ret": 3},
    "rich": {"type": "delay", "delay": 0, "cpu": "250m", "memory": "1Gi", "scheduler": "my-scheduler"},
    "numbers": {"type": "delay", "delay": 1, "cpu": 2, "memory": 1048576},
    "unused_other_type": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}
  }
})");
  ResourceNames names;
  Workload w = read_batsim_workload(path, names);
  ASSERT_EQ(w.jobs.size(), 4u);
  EXPECT_EQ(w.jobs[0].id, "c");
  EXPECT_EQ(w.jobs[1].id, "a");  // 1.0000004 s rounds to 1.000000 s: ties keep file order
  EXPECT_EQ(w.jobs[1].submit, SimTime::at(Duration::seconds(1)));
  EXPECT_EQ(w.jobs[2].id, "b");
  EXPECT_EQ(w.jobs[3].id, "7");
  EXPECT_EQ(w.jobs[3].submit, SimTime::at(Duration::millis(5500)));
  EXPECT_EQ(w.jobs[3].walltime, Duration());
  EXPECT_EQ(w.jobs[3].exit_code, 3);
  EXPECT_EQ(w.jobs[3].run_time, Duration::millis(2500));
  EXPECT_EQ(w.jobs[3].requested_resources, 3);
  // Batsim's semantics: res machines, one pod of one core on each.
  EXPECT_EQ(w.jobs[3].machines, 3u);
  EXPECT_EQ(w.templates[w.jobs[3].pod_template].requests[kCpu], 1000);
  EXPECT_EQ(w.jobs[1].walltime, Duration::micros(12'250'000));
  EXPECT_EQ(w.templates[w.jobs[1].pod_template].requests[kCpu], 1000);
  EXPECT_EQ(w.jobs[1].machines, 2u);
  EXPECT_EQ(w.jobs[1].pod_template, w.jobs[2].pod_template);  // same profile, same request
  EXPECT_EQ(w.templates.size(), 2u);  // "plain" jobs share one (one core per machine)
  const PodTemplate& rich = w.templates[w.jobs[0].pod_template];
  EXPECT_EQ(rich.scheduler_name, "my-scheduler");
  EXPECT_EQ(rich.requests[kCpu], 250);  // res 9 is ignored when the profile has cpu
  EXPECT_EQ(rich.requests[kMemory], 1LL << 30);
  EXPECT_EQ(rich.containers[0].requested_mask, (1u << kCpu) | (1u << kMemory));
  EXPECT_EQ(rich.containers[0].limits, rich.containers[0].requests);
  EXPECT_EQ(w.jobs[0].requested_resources, 9);
  EXPECT_EQ(w.jobs[0].run_time, Duration());
}

class BatsimWorkloadErrors : public testing::InputErrorTest {};

TEST_P(BatsimWorkloadErrors, NamesFileLineAndProblem) {
  check("workload.json", [](const std::string& path) {
    ResourceNames names;
    read_batsim_workload(path, names);
  });
}

// Job objects start on line 3 + index; profile members on the lines given in each case.
#define JOBS_HEAD "{\n\"jobs\": [\n"
#define PROFILES "],\n\"profiles\": {\n\"p\": {\"type\": \"delay\", \"delay\": 1}\n}}\n"

INSTANTIATE_TEST_SUITE_P(
    Cases, BatsimWorkloadErrors,
    ::testing::Values(
        BadInput{"Syntax", "{\n\"jobs\": [\n{\"id\": 1,,}\n]}\n", 3, "malformed JSON: syntax error"},
        BadInput{"Truncated", "{\n\"jobs\": [\n", 3, "malformed JSON"},
        BadInput{"SubtimeNegative",
                 JOBS_HEAD "{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"},\n"
                           "{\"id\": \"7\", \"subtime\": -1, \"res\": 1, \"profile\": \"p\"}\n" PROFILES,
                 4, "job \"7\": expected \"subtime\" to be a non-negative number"},
        BadInput{"SubtimeString",
                 JOBS_HEAD "{\"id\": 1, \"subtime\": \"0\", \"res\": 1, \"profile\": \"p\"}\n" PROFILES, 3,
                 "job \"1\": expected \"subtime\" to be a non-negative number"},
        BadInput{"SubtimeHuge", JOBS_HEAD "{\"id\": 1, \"subtime\": 1e13, \"res\": 1, \"profile\": \"p\"}\n" PROFILES,
                 3, "expected \"subtime\""},
        BadInput{"ResZero", JOBS_HEAD "\n{\"id\": 1, \"subtime\": 0, \"res\": 0, \"profile\": \"p\"}\n" PROFILES, 4,
                 "job \"1\": expected \"res\" to be an integer >= 1"},
        BadInput{"ResFloat", JOBS_HEAD "{\"id\": 1, \"subtime\": 0, \"res\": 1.5, \"profile\": \"p\"}\n" PROFILES, 3,
                 "expected \"res\" to be an integer"},
        BadInput{"BadId",
                 JOBS_HEAD "{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"},\n"
                           "{\"id\": 1.5, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"}\n" PROFILES,
                 4, "job at index 1: expected \"id\" to be a string or an integer"},
        BadInput{"DuplicateId",
                 JOBS_HEAD "{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"},\n"
                           "{\"id\": \"1\", \"subtime\": 0, \"res\": 1, \"profile\": \"p\"}\n" PROFILES,
                 4, "job \"1\": duplicate id (first defined at line 3)"},
        BadInput{"MissingProfile", JOBS_HEAD "{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"q\"}\n" PROFILES,
                 3, "job \"1\": profile \"q\" does not exist"},
        BadInput{"WalltimeZero",
                 JOBS_HEAD "{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\", \"walltime\": 0}\n" PROFILES, 3,
                 "expected \"walltime\" to be -1 (none) or a positive number"},
        BadInput{"NotDelay",
                 "{\"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"x\"}],\n"
                 "\"profiles\": {\n\"p\": {\"type\": \"delay\", \"delay\": 1},\n\"x\": {\"type\": "
                 "\"parallel_homogeneous\",\n"
                 " \"cpu\": 1e9, \"com\": 0}}}\n",
                 4, "profile \"x\" has type parallel_homogeneous; only delay profiles can run as pods"},
        BadInput{"NegativeDelay",
                 "{\"jobs\": [],\n\"profiles\": {\n\"p\": {\"type\": \"delay\", \"delay\": 1},\n\n\"d\":\n"
                 " {\"type\": \"delay\", \"delay\": -2}}}\n",
                 5, "profile \"d\": expected \"delay\" to be a non-negative number of seconds"},
        BadInput{"BadCpu",
                 "{\"jobs\": [],\n\"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 1, \"cpu\": \"1 core\"}}}\n",
                 2, "invalid quantity \"1 core\" for profile \"p\" cpu"},
        BadInput{"CpuWrongType",
                 "{\"jobs\": [],\n\"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 1, \"cpu\": [1]}}}\n", 2,
                 "profile \"p\": expected \"cpu\" to be a quantity string or a number"},
        BadInput{"BadMemory",
                 "{\"jobs\": [],\n\"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 1, \"memory\": \"4GB\"}}}\n",
                 2, "invalid quantity \"4GB\" for profile \"p\" memory"},
        BadInput{"BadRet",
                 "{\"jobs\": [],\n\"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 1, \"ret\": \"0\"}}}\n", 2,
                 "expected \"ret\" to be a 32-bit integer"},
        BadInput{"MissingType", "{\"jobs\": [],\n\"profiles\": {\"p\": {\"delay\": 1}}}\n", 2,
                 "profile \"p\": expected \"type\" to be a string"},
        BadInput{"EscapedProfileName",
                 "{\"jobs\": [],\n\"profiles\": {\"a\\\"}\": {\"type\": \"delay\", \"delay\": 1},\n"
                 "\"b\\u00e9\": {\"type\": \"delay\"}}}\n",
                 3, "profile \"b\xC3\xA9\": expected \"delay\""},
        BadInput{"MissingJobs", "{\"profiles\": {}}\n", 1, "expected a \"jobs\" array"},
        BadInput{"NotAnObject", "[1, 2]\n", 1, "expected a JSON object"}),
    testing::NameField{});

TEST(BatsimWorkload, MissingFile) {
  ResourceNames names;
  EXPECT_THROW(read_batsim_workload("/nonexistent/w.json", names), InputError);
}

}  // namespace
}  // namespace kubesim
