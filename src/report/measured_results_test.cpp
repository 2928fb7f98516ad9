// The real results shown beside kubesim's (report/measured_results.hpp): reading the study's
// real-results.csv, bad input, and the report section's verdicts.
#include "report/measured_results.hpp"

#include <gtest/gtest.h>


#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

const std::string kRealResults = testing::data_dir() + "/notebook/real-results.csv";

TEST(MeasuredResults, ReadsTheStudysE3Rows) {
  const MeasuredExperiment m = read_measured_results(kRealResults, "E3");
  ASSERT_EQ(m.rows.size(), 12u);  // four schedulers, three tenants
  const MeasuredTenantResult* yk = m.find("yunikorn", "tenant2");
  ASSERT_NE(yk, nullptr);
  EXPECT_DOUBLE_EQ(yk->queue_mean, 103.2);
  EXPECT_DOUBLE_EQ(yk->queue_sd, 4.1);
  EXPECT_DOUBLE_EQ(yk->makespan_mean, 400.2);
  EXPECT_EQ(yk->makespans, (std::vector<double>{402, 399, 403, 399, 398}));
  // kubesim's setup names: "" is kube-scheduler; scheduler-plugins was named with a suffix.
  EXPECT_EQ(m.find("", "tenant3"), m.find("default-scheduler", "tenant3"));
  ASSERT_NE(m.find("scheduler-plugins", "tenant1"), nullptr);
  EXPECT_EQ(m.find("scheduler-plugins", "tenant1")->scheduler, "scheduler-plugins-scheduler");
  EXPECT_EQ(m.find("fluxion", "tenant1"), nullptr);
  EXPECT_EQ(read_measured_results(kRealResults, "E1").rows.size(), 3u);
}

TEST(MeasuredResults, BadInputNamesFileAndLine) {
  const testing::ScratchDir dir;
  const std::string header =
      "experiment,scheduler,tenant,runs,avg_queue_time_mean_s,avg_queue_time_sd_s,makespan_mean_s,makespan_sd_s\n";
  struct Case {
    std::string text, expected;
  } cases[] = {
      {"experiment,scheduler,tenant\nE1,a,b\n", ":1: missing column \"runs\""},
      {header + "E1,a,t1,5,1.0,x,3,4\n", ":2: expected a number >= 0 in column avg_queue_time_sd_s, got \"x\""},
      {header + "E1,a,t1,5,1,2,3\n", ":2: expected 8 fields, got 7"},
      {header + "E1,a,t1,5,1,2,3,4\nE1,a,t1,5,1,2,3,4\n", ":3: E1 a t1 appears twice"},
      {header + "E3,a,t1,5,1,2,3,4\n", "no row of experiment \"E1\""},
      {"", ":1: empty file"},
  };
  for (const auto& c : cases) {
    const std::string path = dir.write("bad.csv", c.text);
    try {
      read_measured_results(path, "E1");
      ADD_FAILURE() << "no error for " << c.text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
}

TEST(MeasuredResults, SectionMarksFiguresOutsideTheSpread) {
  const MeasuredExperiment m = read_measured_results(kRealResults, "E3");
  // yunikorn tenant2: real 103.2 +- 4.1 s queue, 400.2 +- 2.2 s makespan.
  std::vector<SimulatedTenantFigures> f = {{"yunikorn", "yunikorn", "tenant2", 150.4, 150.3, 150.5, 401, 400, 402},
                                           {"fluxion", "fluxion", "tenant2", 1, 1, 1, 2, 2, 2}};
  const std::string html = measured_results_section_html(m, f, 5);
  EXPECT_NE(html.find("<section id=\"measured\">"), std::string::npos);
  EXPECT_NE(html.find("outside (+11.5 sd)"), std::string::npos) << html;  // (150.4 - 103.2) / 4.1
  EXPECT_NE(html.find(">inside<"), std::string::npos);                   // makespan 401 within 400.2 +- 2.2
  EXPECT_NE(html.find("not measured"), std::string::npos);               // no real fluxion run
  EXPECT_NE(html.find("1 of 2 figures outside"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace kubesim
