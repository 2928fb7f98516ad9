#include "workload/swf_to_batsim.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/param_name.hpp"
#include "testing/scratch_dir.hpp"
#include "workload/batsim_workload.hpp"

namespace kubesim {
namespace {

const std::string kData = kubesim::testing::data_dir();

std::uint64_t fnv1a64(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The expected outputs below were produced by the Python script itself
// (batsim tools/swf_to_batsim_workload_delay.py, without its "date" key) on the same input.
const char* kSmallSwf =
    "; Version: 2.2\n"
    "1 0 -1 10 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "2 -3 -1 2.5 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "3 7.25 -1 0 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "4 8 -1 5 0 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "5 9 -1 0.00001 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "6 12.5 -1 100 8 -1 -1 8 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "7 100000000000000000 -1 0.1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";

struct ConvertCase {
  const char* name;
  SwfConvertOptions options;
  const char* expected;
};

// Failure output and test listings show the case name, not the bytes of the struct.
void PrintTo(const ConvertCase& c, std::ostream* os) { *os << c.name; }

class SwfToBatsimSmall : public ::testing::TestWithParam<ConvertCase> {};

TEST_P(SwfToBatsimSmall, MatchesPythonByteForByte) {
  const testing::ScratchDir dir;
  const ConvertCase& c = GetParam();
  SwfTrace t = read_swf(dir.write("trace.swf", kSmallSwf));
  SkippedJobs skipped;
  EXPECT_EQ(swf_to_batsim_json(t, c.options, &skipped), c.expected);
}

SwfConvertOptions with(auto fn) {
  SwfConvertOptions o;
  fn(o);
  return o;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SwfToBatsimSmall,
    ::testing::Values(
        ConvertCase{
            "Defaults",
            with([](SwfConvertOptions& o) { o.command_line = "swf_to_batsim_workload_delay.py in.swf out.json"; }),
            R"({"command": "swf_to_batsim_workload_delay.py in.swf out.json", "description": "this workload had been automatically generated", "jobs": [{"id": 0, "profile": "11", "res": 4, "subtime": 0, "walltime": 100.0}, {"id": 1, "profile": "3", "res": 2, "subtime": 0, "walltime": 5.0}, {"id": 2, "profile": "1", "res": 1, "subtime": 9.0, "walltime": 2e-05}, {"id": 3, "profile": "101", "res": 8, "subtime": 12.5, "walltime": 200.0}, {"id": 4, "profile": "1", "res": 1, "subtime": 1e+17, "walltime": 0.2}], "nb_res": 8, "profiles": {"1": {"delay": 1, "type": "delay"}, "101": {"delay": 101, "type": "delay"}, "11": {"delay": 11, "type": "delay"}, "3": {"delay": 3, "type": "delay"}}, "version": 0})"},
        ConvertCase{
            "Indent2AndEscapes", with([](SwfConvertOptions& o) {
              o.indent = 2;
              o.command_line = "\xC3\xA9\xE2\x98\x83\xF0\x9F\x98\x80\"\\\n\t\x01\x7f";
            }),
            "{\n  \"command\": \"\\u00e9\\u2603\\ud83d\\ude00\\\"\\\\\\n\\t\\u0001\\u007f\",\n  \"description\": "
            "\"this "
            "workload had been automatically generated\",\n  \"jobs\": [\n    {\n      \"id\": 0,\n      \"profile\": "
            "\"11\",\n      \"res\": 4,\n      \"subtime\": 0,\n      \"walltime\": 100.0\n    },\n    {\n      "
            "\"id\": "
            "1,\n      \"profile\": \"3\",\n      \"res\": 2,\n      \"subtime\": 0,\n      \"walltime\": 5.0\n    "
            "},\n   "
            " {\n      \"id\": 2,\n      \"profile\": \"1\",\n      \"res\": 1,\n      \"subtime\": 9.0,\n      "
            "\"walltime\": 2e-05\n    },\n    {\n      \"id\": 3,\n      \"profile\": \"101\",\n      \"res\": 8,\n    "
            "  "
            "\"subtime\": 12.5,\n      \"walltime\": 200.0\n    },\n    {\n      \"id\": 4,\n      \"profile\": "
            "\"1\",\n "
            "     \"res\": 1,\n      \"subtime\": 1e+17,\n      \"walltime\": 0.2\n    }\n  ],\n  \"nb_res\": 8,\n  "
            "\"profiles\": {\n    \"1\": {\n      \"delay\": 1,\n      \"type\": \"delay\"\n    },\n    \"101\": {\n   "
            "   "
            "\"delay\": 101,\n      \"type\": \"delay\"\n    },\n    \"11\": {\n      \"delay\": 11,\n      \"type\": "
            "\"delay\"\n    },\n    \"3\": {\n      \"delay\": 3,\n      \"type\": \"delay\"\n    }\n  },\n  "
            "\"version\": 0\n}"},
        ConvertCase{
            "GivenWalltimeOnlyGrainPlatformIndent0", with([](SwfConvertOptions& o) {
              o.given_walltime_only = true;
              o.job_grain = 10;
              o.platform_size = 64;
              o.indent = 0;
            }),
            "{\n\"command\": \"\",\n\"description\": \"this workload had been automatically generated\",\n\"jobs\": "
            "[\n{\n\"id\": 0,\n\"profile\": \"20\",\n\"res\": 4,\n\"subtime\": 0,\n\"walltime\": 100.0\n}\n],\n"
            "\"nb_res\": 64,\n\"profiles\": {\n\"20\": {\n\"delay\": 20,\n\"type\": \"delay\"\n}\n},\n\"version\": "
            "0\n}"},
        ConvertCase{
            "SizeAndWalltimeFactors", with([](SwfConvertOptions& o) {
              o.job_size_factor = 0.5;
              o.job_walltime_factor = 1.5;
            }),
            R"({"command": "", "description": "this workload had been automatically generated", "jobs": [{"id": 0, "profile": "11", "res": 2, "subtime": 0, "walltime": 100.0}, {"id": 1, "profile": "3", "res": 1, "subtime": 0, "walltime": 3.75}, {"id": 2, "profile": "101", "res": 4, "subtime": 12.5, "walltime": 150.0}], "nb_res": 4, "profiles": {"101": {"delay": 101, "type": "delay"}, "11": {"delay": 11, "type": "delay"}, "3": {"delay": 3, "type": "delay"}}, "version": 0})"}),
    testing::NameField{});

TEST(SwfToBatsim, SkipReasons) {
  const testing::ScratchDir dir;
  SwfTrace t = read_swf(dir.write("trace.swf", kSmallSwf));
  SkippedJobs skipped;
  swf_to_batsim_json(t, SwfConvertOptions{}, &skipped);
  EXPECT_EQ(skipped.by_reason, (std::vector<std::pair<std::string, std::uint64_t>>{
                                   {"run time <= 0", 1}, {"no processors (field 5 times job size factor <= 0)", 1}}));
  SwfConvertOptions gwo;
  gwo.given_walltime_only = true;
  SkippedJobs skipped_gwo;
  swf_to_batsim_json(t, gwo, &skipped_gwo);
  EXPECT_EQ(skipped_gwo.total(), 6u);
  EXPECT_EQ(skipped_gwo.by_reason, (std::vector<std::pair<std::string, std::uint64_t>>{
                                       {"walltime <= run time", 4},
                                       {"run time <= 0", 1},
                                       {"no processors (field 5 times job size factor <= 0)", 1}}));
  swf_to_batsim_json(t, SwfConvertOptions{}, nullptr);  // skipped is optional
}

TEST(SwfToBatsim, NasaAndKitMatchPython) {
  // Length and FNV-1a of the script's output with command "x" (NASA: 18,066 jobs; note its
  // first "subtime" is the int 0, because max(0, 0.0) is the int 0, while KIT's is 0.0).
  struct Expect {
    const char* file;
    int indent;
    std::size_t size;
    std::uint64_t hash;
    const char* prefix;
  };
  const Expect cases[] = {
      {"NASA-iPSC-1993-3.1-cln.swf", -1, 1610976, 0x9869d1bdea8bb3eeULL,
       R"({"command": "x", "description": "this workload had been automatically generated", "jobs": [{"id": 0, "profile": "1452", "res": 128, "subtime": 0, "walltime": 2902.0}, {"id": 1, "profile": "3727", "res": 128, "subtime": 1460.0, "walltime": 7452.0}, )"},
      {"NASA-iPSC-1993-3.1-cln.swf", 4, 3131714, 0xba6a634eb636563cULL, "{\n    \"command\": \"x\",\n"},
      {"KIT-10-80.swf", -1, 4858, 0x757927f0491d10d1ULL,
       R"({"command": "x", "description": "this workload had been automatically generated", "jobs": [{"id": 0, "profile": "61597", "res": 1024, "subtime": 0.0, "walltime": 172800.0}, )"},
      {"KIT-10-80.swf", 4, 9450, 0xb520205ea6092e9bULL, "{\n    \"command\": \"x\",\n"},
  };
  for (const Expect& e : cases) {
    SwfTrace t = read_swf(kData + "/swf/" + e.file);
    SwfConvertOptions o;
    o.indent = e.indent;
    o.command_line = "x";
    SkippedJobs skipped;
    const std::string out = swf_to_batsim_json(t, o, &skipped);
    EXPECT_EQ(out.rfind(e.prefix, 0), 0u) << e.file << "\n" << out.substr(0, 300);
    EXPECT_EQ(out.size(), e.size) << e.file << " indent " << e.indent;
    EXPECT_EQ(fnv1a64(out), e.hash) << e.file << " indent " << e.indent;
    EXPECT_EQ(swf_to_batsim_json(t, o, nullptr), out);  // deterministic: no date, no unordered state
  }
}

TEST(SwfToBatsim, Errors) {
  const testing::ScratchDir dir;
  SwfTrace empty =
      read_swf(dir.write("empty.swf", "; only comments\n1 0 -1 0 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"));
  EXPECT_THROW(swf_to_batsim_json(empty, SwfConvertOptions{}, nullptr), InputError);
  SwfTrace t = read_swf(dir.write("trace.swf", kSmallSwf));
  SwfConvertOptions bad_size;
  bad_size.platform_size = 0;
  EXPECT_THROW(swf_to_batsim_json(t, bad_size, nullptr), InputError);
  SwfConvertOptions bad_grain;
  bad_grain.job_grain = 0;
  EXPECT_THROW(swf_to_batsim_json(t, bad_grain, nullptr), InputError);
}

TEST(SwfToBatsim, PythonFloatRepr) {
  const std::pair<double, const char*> cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {2902.0, "2902.0"},
      {12.5, "12.5"},
      {0.1, "0.1"},
      {2e-05, "2e-05"},
      {0.0001, "0.0001"},
      {1e16, "1e+16"},
      {1e15, "1000000000000000.0"},
      {9999999999999998.0, "9999999999999998.0"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {-3.75, "-3.75"},
      {1.5e-10, "1.5e-10"},
      {1e300, "1e+300"},
      {5e-324, "5e-324"},
      {3.516, "3.516"},
      {123456.789, "123456.789"},
  };
  for (const auto& [v, s] : cases) EXPECT_EQ(python_float_repr(v), s) << v;
}

// A converted SWF run through the Batsim reader asks for the same pods as the SWF run
// directly (its default processors mapping, machines): P pods of one core per job (a
// converted job has no "cpu", so res = P machines), at the same submit times. Run times differ by the converter's rounding up
// (int(run // grain + 1) * grain: +1 s for KIT's integral run times at grain 1, and no grain
// avoids it), walltimes by its max(2 * run, field 9), and ids by its renumbering from 0.
TEST(SwfToBatsim, ConvertedKitEqualsDirectKit) {
  const testing::ScratchDir dir;
  SwfTrace t = read_swf(kData + "/swf/KIT-10-80.swf");
  ResourceNames names;
  Workload direct = swf_to_workload(t, SwfOptions{}, names);
  const std::string json_path = dir.write("workload.json", swf_to_batsim_json(t, SwfConvertOptions{}, nullptr));
  Workload converted = read_batsim_workload(json_path, names);
  ASSERT_EQ(direct.jobs.size(), 39u);
  ASSERT_EQ(converted.jobs.size(), direct.jobs.size());
  for (std::size_t i = 0; i < direct.jobs.size(); ++i) {
    const WorkloadJob& d = direct.jobs[i];
    const WorkloadJob& c = converted.jobs[i];
    EXPECT_EQ(c.id, std::to_string(i));
    EXPECT_EQ(c.submit, d.submit) << d.id;
    EXPECT_EQ(c.requested_resources, d.requested_resources) << d.id;
    EXPECT_EQ(c.machines, static_cast<std::uint32_t>(d.requested_resources)) << d.id;
    EXPECT_EQ(d.machines, c.machines) << d.id;
    EXPECT_EQ(converted.templates[c.pod_template].requests[kCpu], 1000) << d.id;
    EXPECT_EQ(direct.templates[d.pod_template].requests[kCpu], 1000) << d.id;
    EXPECT_EQ(c.run_time, d.run_time + Duration::seconds(1)) << d.id;
    EXPECT_GE(c.walltime, d.walltime) << d.id;
  }
}

}  // namespace
}  // namespace kubesim
