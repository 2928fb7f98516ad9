#include "workload/swf.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

// An 18-field line with the fields that matter here; the rest are -1.
std::string swf_line(int id, double submit, double run, int alloc, int req = -1, double req_time = -1,
                     double used_mem = -1, double req_mem = -1) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%d %g -1 %g %d -1 %g %d %g %g 1 1 1 -1 -1 -1 -1 -1\n", id, submit, run, alloc,
                used_mem, req, req_time, req_mem);
  return buf;
}

SwfOptions cores() {
  SwfOptions o;
  o.processors = SwfOptions::Processors::kCores;
  return o;
}

const std::string* header_value(const SwfTrace& t, const std::string& key) {
  for (const auto& [k, v] : t.header)
    if (k == key) return &v;
  return nullptr;
}

TEST(Swf, NasaTrace) {
  const std::string path = kData + "/swf/NASA-iPSC-1993-3.1-cln.swf";
  SwfTrace t = read_swf(path);
  EXPECT_EQ(t.source, path);
  ASSERT_EQ(t.records.size(), 18'239u);
  ASSERT_NE(header_value(t, "Version"), nullptr);
  EXPECT_EQ(*header_value(t, "Version"), "2.2");
  EXPECT_EQ(*header_value(t, "MaxProcs"), "128");
  EXPECT_EQ(*header_value(t, "UnixStartTime"), "749458803");
  EXPECT_EQ(*header_value(t, "Information"),
            "http://www.nas.nasa.gov/ http://www.cs.huji.ac.il/labs/parallel/workload/");
  EXPECT_EQ(*header_value(t, "Note"),
            "There is no information on wait times - the given submit times are actually start times");
  EXPECT_EQ(*header_value(t, "EndTime"), "Fri Dec 31 23:03:45 PST 1993");
  EXPECT_EQ(std::count_if(t.header.begin(), t.header.end(), [](const auto& kv) { return kv.first == "Queue"; }), 2);

  const SwfRecord& first = t.records.front();
  EXPECT_EQ(first.job_number, 1);
  EXPECT_EQ(first.submit_time, 0);
  EXPECT_EQ(first.run_time, 1451);
  EXPECT_EQ(first.allocated_processors, 128);
  EXPECT_EQ(first.user_id, 1);
  EXPECT_EQ(first.line, 33);
  EXPECT_EQ(t.records.back().job_number, 42264);

  ResourceNames names;
  Workload w = swf_to_workload(t, cores(), names);
  EXPECT_EQ(w.jobs.size() + w.skipped.total(), 18'239u);
  ASSERT_EQ(w.skipped.by_reason.size(), 1u);
  EXPECT_EQ(w.skipped.by_reason[0].first, "run time <= 0 or unknown");
  EXPECT_EQ(w.skipped.by_reason[0].second, 173u);
  EXPECT_EQ(w.templates.size(), 8u);  // 1, 2, 4, ..., 128 processors
  std::int64_t largest = 0;
  for (const PodTemplate& pt : w.templates) largest = std::max(largest, pt.requests[kCpu]);
  EXPECT_EQ(largest, 128'000);
  EXPECT_TRUE(
      std::is_sorted(w.jobs.begin(), w.jobs.end(), [](const auto& a, const auto& b) { return a.submit < b.submit; }));
  const WorkloadJob& j = w.jobs.front();
  EXPECT_EQ(j.id, "1");
  EXPECT_EQ(j.profile, "swf1451");
  EXPECT_EQ(j.submit, SimTime::zero());
  EXPECT_EQ(j.run_time, Duration::seconds(1451));
  EXPECT_EQ(j.walltime, Duration());
  EXPECT_EQ(j.requested_resources, 128);
  const PodTemplate& pt = w.templates[j.pod_template];
  ASSERT_EQ(pt.containers.size(), 1u);
  EXPECT_EQ(pt.containers[0].name, "main");
  EXPECT_EQ(pt.containers[0].requests[kCpu], 128'000);
  EXPECT_EQ(pt.containers[0].limits, pt.containers[0].requests);
  EXPECT_EQ(pt.containers[0].requested_mask, 1u << kCpu);
  EXPECT_EQ(pt.scheduler_name, "default-scheduler");

  // The default mapping: a processor is a machine, as Batsim's res (its converters write
  // res = P): job 1 is 128 pods of one cpu, one per node; one template for every job.
  Workload m = swf_to_workload(t, SwfOptions{}, names);
  ASSERT_EQ(m.jobs.size(), w.jobs.size());
  ASSERT_EQ(m.templates.size(), 1u);
  EXPECT_EQ(m.templates[0].requests[kCpu], 1000);
  EXPECT_EQ(m.jobs.front().machines, 128u);
  EXPECT_EQ(m.jobs.front().requested_resources, 128);
  EXPECT_EQ(m.jobs.front().pods_asked(), 128u);
  for (std::size_t i = 0; i < m.jobs.size(); ++i) EXPECT_EQ(m.jobs[i].machines, w.jobs[i].requested_resources);
}

TEST(Swf, KitTrace) {
  SwfTrace t = read_swf(kData + "/swf/KIT-10-80.swf");
  ASSERT_EQ(t.records.size(), 39u);
  EXPECT_EQ(*header_value(t, "TimeZoneString"), "Europe/Berlin");
  ResourceNames names;
  Workload w = swf_to_workload(t, cores(), names);
  ASSERT_EQ(w.jobs.size(), 39u);
  EXPECT_EQ(w.skipped.total(), 0u);
  EXPECT_EQ(w.jobs[0].id, "982");
  EXPECT_EQ(w.jobs[0].submit, SimTime::zero());
  EXPECT_EQ(w.jobs[0].walltime, Duration::seconds(172800));
  EXPECT_EQ(w.templates[w.jobs[0].pod_template].requests[kCpu], 1'024'000);
  EXPECT_EQ(w.jobs[1].id, "983");
  EXPECT_EQ(w.jobs[1].submit, SimTime::at(Duration::seconds(725)));
  EXPECT_EQ(w.jobs[1].run_time, Duration::seconds(51693));
}

TEST(Swf, MappingOptionsAndSkips) {
  const testing::ScratchDir dir;
  std::string text = "; Version: 2.2\n;Computer: Test\n;   continued\n\n";
  text += swf_line(1, 100, 10, 2, -1, 30, 1000, 2048);  // used
  text += swf_line(2, 90, 5, -1, 4, -1, 10, 20);        // field 5 unknown -> field 8
  text += swf_line(3, 95, 0, 2);                        // run time 0
  text += swf_line(4, 95, 7, -1, -1);                   // no processors
  text += swf_line(5, -5, 7, 1);                        // negative submit
  text += swf_line(6, 120, 8.5, 2, -1, -1, -1, 2048);   // used memory unknown
  text += swf_line(7, 130, 10, 2, -1, 30, 1000, 2048);  // same request as job 1
  const std::string path = dir.write("trace.swf", text);
  SwfTrace t = read_swf(path);
  ASSERT_EQ(t.records.size(), 7u);
  EXPECT_EQ(t.header,
            (std::vector<std::pair<std::string, std::string>>{{"Version", "2.2"}, {"Computer", "Test continued"}}));

  ResourceNames names;
  SwfOptions plain = cores();
  plain.cpu_per_processor = "500m";
  Workload w = swf_to_workload(t, plain, names);
  ASSERT_EQ(w.jobs.size(), 4u);
  EXPECT_EQ(w.jobs[0].id, "2");  // sorted by submit; shift by the smallest used submit (90)
  EXPECT_EQ(w.jobs[0].submit, SimTime::zero());
  EXPECT_EQ(w.jobs[0].requested_resources, 4);
  EXPECT_EQ(w.templates[w.jobs[0].pod_template].requests[kCpu], 2000);
  EXPECT_EQ(w.jobs[1].id, "1");
  EXPECT_EQ(w.jobs[1].submit, SimTime::at(Duration::seconds(10)));
  EXPECT_EQ(w.jobs[1].walltime, Duration::seconds(30));
  EXPECT_EQ(w.jobs[2].id, "6");
  EXPECT_EQ(w.jobs[2].profile, "swf8.5");
  EXPECT_EQ(w.jobs[2].run_time, Duration::millis(8500));
  EXPECT_EQ(w.jobs[3].id, "7");
  EXPECT_EQ(w.templates.size(), 2u);  // {2 cpu} and {1 cpu}
  EXPECT_EQ(w.jobs[1].pod_template, w.jobs[2].pod_template);
  EXPECT_EQ(w.skipped.by_reason,
            (std::vector<std::pair<std::string, std::uint64_t>>{{"run time <= 0 or unknown", 1},
                                                                {"no processors (fields 5 and 8 unknown or <= 0)", 1},
                                                                {"negative submit time", 1}}));

  SwfOptions used = cores();
  used.memory = SwfOptions::Memory::kUsed;
  Workload wu = swf_to_workload(t, used, names);
  ASSERT_EQ(wu.jobs.size(), 3u);
  EXPECT_EQ(wu.skipped.by_reason.back(), (std::pair<std::string, std::uint64_t>{"memory unknown", 1}));
  const PodTemplate& tu = wu.templates[wu.jobs[0].pod_template];  // job 2: 4 procs x 10 KB
  EXPECT_EQ(tu.containers[0].requests[kMemory], 4 * 10 * 1024);
  EXPECT_EQ(tu.containers[0].requested_mask, (1u << kCpu) | (1u << kMemory));
  EXPECT_EQ(tu.containers[0].limits, tu.containers[0].requests);

  SwfOptions requested = cores();
  requested.memory = SwfOptions::Memory::kRequested;
  Workload wr = swf_to_workload(t, requested, names);
  ASSERT_EQ(wr.jobs.size(), 4u);
  EXPECT_EQ(wr.templates[wr.jobs[0].pod_template].requests[kMemory], 4 * 20 * 1024);
  EXPECT_EQ(wr.templates[wr.jobs[1].pod_template].requests[kMemory], 2 * 2048 * 1024);

  SwfOptions bad;
  bad.cpu_per_processor = "one";
  EXPECT_THROW(swf_to_workload(t, bad, names), InputError);
  bad.cpu_per_processor = "0";
  EXPECT_THROW(swf_to_workload(t, bad, names), InputError);

  // Processors as machines (the default): P pods of cpu_per_processor and one processor's
  // memory each; the same jobs, skips and order as the cores mapping.
  SwfOptions machines;
  machines.cpu_per_processor = "500m";
  machines.memory = SwfOptions::Memory::kRequested;
  Workload wm = swf_to_workload(t, machines, names);
  ASSERT_EQ(wm.jobs.size(), 4u);
  EXPECT_EQ(wm.jobs[0].id, "2");
  EXPECT_EQ(wm.jobs[0].machines, 4u);
  EXPECT_EQ(wm.jobs[0].requested_resources, 4);
  EXPECT_EQ(wm.jobs[1].machines, 2u);
  EXPECT_EQ(wm.jobs[1].walltime, Duration::seconds(30));
  const PodTemplate& tm = wm.templates[wm.jobs[0].pod_template];
  EXPECT_EQ(tm.containers[0].requests[kCpu], 500);
  EXPECT_EQ(tm.containers[0].requests[kMemory], 20 * 1024);
  EXPECT_EQ(wm.templates[wm.jobs[1].pod_template].requests[kMemory], 2048 * 1024);
  for (const WorkloadJob& j : wr.jobs) EXPECT_EQ(j.machines, 0u);  // cores: one pod
}

class SwfErrors : public testing::InputErrorTest {};

TEST_P(SwfErrors, NamesFileLineAndProblem) {
  check("trace.swf", [](const std::string& path) { read_swf(path); });
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SwfErrors,
    ::testing::Values(
        BadInput{"TooFewFields", "; Version: 2.2\n\n1 0 -1 10 1 -1 -1 -1\n", 3, "expected 18 numeric fields, got 8"},
        BadInput{"TooManyFields", "1 0 -1 10 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 7\n", 1,
                 "expected 18 numeric fields, got 19"},
        BadInput{
            "NotANumber",
            "1 0 -1 10 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n1 0 -1 abc 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n",
            2, "field 4 (run time) is not a number: \"abc\""},
        BadInput{"NotFinite", "1 0 -1 10 1 -1 -1 -1 inf -1 -1 -1 -1 -1 -1 -1 -1 -1\n", 1,
                 "field 9 (requested time) is not a number: \"inf\""},
        BadInput{"NotAnInteger", "1 0 -1 10 1.5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n", 1,
                 "field 5 (allocated processors) is not an integer: \"1.5\""}),
    testing::NameField{});

TEST(Swf, DuplicateJobNumbersAreSkipped) {
  const testing::ScratchDir dir;
  // A checkpointed job: two partial records (status 2 and 3 in real logs) share number 5.
  const std::string path =
      dir.write("trace.swf", swf_line(5, 0, 10, 1) + swf_line(5, 20, 10, 1) + swf_line(6, 30, 10, 1));
  ResourceNames names;
  Workload w = swf_to_workload(read_swf(path), SwfOptions{}, names);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[0].id, "5");
  EXPECT_EQ(w.jobs[1].id, "6");
  EXPECT_EQ(w.skipped.by_reason, (std::vector<std::pair<std::string, std::uint64_t>>{{"duplicate job number", 1}}));
}

TEST(Swf, OutOfRangeTimeIsAnError) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("trace.swf", swf_line(1, 0, 2e12, 1));
  SwfTrace t = read_swf(path);
  ResourceNames names;
  try {
    swf_to_workload(t, SwfOptions{}, names);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find("field 4 (run time) is out of range"), std::string::npos) << e.what();
  }
}

TEST(Swf, MissingFile) { EXPECT_THROW(read_swf("/nonexistent/trace.swf"), InputError); }

}  // namespace
}  // namespace kubesim
