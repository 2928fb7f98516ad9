// The BSP study's pieces: the spline, the readers' errors, the planner and the recorded table.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bsp/bicubic_spline.hpp"
#include "bsp/gang_study.hpp"
#include "bsp/planner.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/split.hpp"
#include "core/test_paths.hpp"
#include "testing/input_error.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim::bsp {
namespace {

std::string gang_dir() { return testing::data_dir() + "/gang"; }

// A not-a-knot bicubic spline reproduces any polynomial of degree <= 3 in each variable.
TEST(BicubicSpline, ReproducesBicubicPolynomialsAndClampsOutside) {
  const std::vector<double> x = {0, 1, 2.5, 3, 4.5, 6, 7};
  const std::vector<double> y = {-2, -1, 0, 0.5, 2, 3};
  auto p = [](double a, double b) { return 1 + 2 * a - a * a * a / 7 + b * b * b / 3 - a * b + a * a * b * b / 5; };
  std::vector<double> z;
  for (double a : x)
    for (double b : y) z.push_back(p(a, b));
  const BicubicSpline spline(x, y, z);
  const struct {
    double a, b, expected;
  } cases[] = {
      {0, -2, p(0, -2)},      {2.5, 0.5, p(2.5, 0.5)}, {1.7, -1.3, p(1.7, -1.3)}, {6.9, 2.9, p(6.9, 2.9)},
      {-5, 1, p(0, 1)},       {9, 1, p(7, 1)},         {3, -9, p(3, -2)},         {10, 10, p(7, 3)},
  };
  for (const auto& c : cases) EXPECT_NEAR(spline(c.a, c.b), c.expected, 1e-11) << c.a << "," << c.b;
}

TEST(BicubicSpline, RejectsTooFewOrUnsortedPoints) {
  EXPECT_THROW(BicubicSpline({0, 1, 2}, {0, 1, 2, 3}, std::vector<double>(12)), std::invalid_argument);
  EXPECT_THROW(BicubicSpline({0, 2, 1, 3}, {0, 1, 2, 3}, std::vector<double>(16)), std::invalid_argument);
}

TEST(PerformanceModel, InterpolatesTheProfilingGrid) {
  const auto model = PerformanceModel::read_csv(gang_dir() + "/workload_profiling.csv");
  ASSERT_EQ(model.task_count(), 8u);
  EXPECT_EQ(model.task_name(0), "affinity");
  EXPECT_EQ(model.task_name(7), "zero");
  EXPECT_EQ(model.sizes().size(), 14u);
  EXPECT_EQ(model.shares().size(), 16u);
  // docs/derivations/bsp-gang-study.md section 2: affinity at (10, 1000) 87.27662718296051 s (the file's row).
  EXPECT_NEAR(model.duration(0, 10, 1000), 87.27662718296051, 1e-9);
  EXPECT_EQ(model.duration(0, 50, 9000), model.duration(0, 49, 8500));  // clamped to the box
}

std::string grid_csv(bool hole, bool duplicate) {
  std::string csv = "Task Name, Workload Size, CPU Shares, Duration\n";
  for (int shares : {1000, 1500, 2000, 2500})
    for (int size : {10, 13, 16, 19}) {
      if (hole && shares == 2000 && size == 16) continue;
      csv += "t, " + std::to_string(size) + ", " + std::to_string(shares) + ", " + std::to_string(size * 1000.0 / shares) + "\n";
    }
  if (duplicate) csv += "t, 13, 1500, 9\n";
  return csv;
}

TEST(PerformanceModel, BadInputNamesFileAndLine) {
  const testing::ScratchDir dir;
  const struct {
    const char* name;
    std::string csv;
    std::string expected;
  } cases[] = {
      {"hole", grid_csv(true, false), ":2: the profiling grid has a hole: task t has no row for workload size 16 and cpu shares 2000"},
      {"duplicate", grid_csv(false, true), ":18: task t has a second row for workload size 13 and cpu shares 1500 (first on line 7)"},
      {"number", "Task Name, Workload Size, CPU Shares, Duration\nt, ten, 1000, 5\n", ":2: workload size 'ten' is not a number"},
      {"fields", "Task Name, Workload Size, CPU Shares, Duration\nt, 10, 1000\n", ":2: expected 4 fields"},
      {"small", "Task Name, Workload Size, CPU Shares, Duration\nt, 10, 1000, 5\n", "at least 4 workload sizes"},
  };
  for (const auto& c : cases) {
    const std::string path = dir.write(std::string(c.name) + ".csv", c.csv);
    try {
      PerformanceModel::read_csv(path);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << c.name << ": " << e.what();
    }
  }
  EXPECT_NO_THROW(PerformanceModel::read_csv(dir.write("full.csv", grid_csv(false, false))));
}

TEST(WorkloadTrace, ScalesEachColumnToTheRangeAndChecksLength) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("trace.csv", "# t, t+1\n1, 100\n3, 300\n2, 100\n");
  const auto trace = WorkloadTrace::read_csv_files({path}, 10, 50);
  ASSERT_EQ(trace.rows(), 3);
  ASSERT_EQ(trace.columns(), 2);
  const double expected[3][2] = {{10, 10}, {50, 50}, {30, 10}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c) EXPECT_DOUBLE_EQ(trace.size(0, r, c), expected[r][c]);
  try {
    trace.require(4, 2, "a run of 4 steps");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":4: the trace is shorter than the run: it has 3 rows but a run of 4 steps needs 4");
  }
  const std::string ragged = dir.write("ragged.csv", "# t, t+1\n1, 100\n3\n");
  EXPECT_THROW(WorkloadTrace::read_csv_files({ragged}, 10, 50), InputError);
}

TEST(Planner, StaticBaselineIsTheStudysConfiguration) {
  const StudyData data = load_study_data(gang_dir());
  Planner planner(data.model, data.forecasts, data.settings);
  // docs/derivations/bsp-gang-study.md section 6: affinity 1900, atomic 3300, bsearch 4600, cap 2600, chmod 2500,
  // memcpy 3000, vecmath 3300, zero 2800.
  EXPECT_EQ(planner.static_configuration(), (Shares{1900, 3300, 4600, 2600, 2500, 3000, 3300, 2800}));
  const Shares plan = planner.plan(0, 3, 0);
  int total = 0;
  for (int s : plan) total += s;
  EXPECT_EQ(total, 24000);
}

TEST(Controllers, StaticWindowReconfiguresEveryWSteps) {
  const StudyData data = load_study_data(gang_dir());
  StudySettings settings = data.settings;
  settings.simulation_length = 40;
  Planner planner(data.model, data.forecasts, settings);
  Planner executed(data.model, data.actual, settings);
  for (int w : {1, 3, 7}) {
    StaticWindowController controller(w);
    const auto result = run_controller(controller, planner, executed);
    EXPECT_EQ(result.checkpoints, (40 + w - 1) / w - 1) << w;
    EXPECT_DOUBLE_EQ(result.total_duration, result.duration_without_penalty + 15.0 * result.checkpoints);
  }
}

// The study's recorded results (data/gang/forecast_400_results.csv): plan on forecasts,
// execute on actual, 400 steps, penalty 15; every figure to 1e-9 relative.
TEST(GangStudy, ReproducesForecast400Results) {
  const StudyData data = load_study_data(gang_dir());
  const auto results = run_study_table(data.model, data.forecasts, data.actual, data.settings);
  std::ifstream in(gang_dir() + "/forecast_400_results.csv");
  std::string line;
  std::getline(in, line);  // header
  std::size_t row = 0;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    const auto fields = split(line, ',');
    ASSERT_EQ(fields.size(), 4u) << line;
    ASSERT_LT(row, results.size());
    const auto& r = results[row++];
    EXPECT_EQ(r.name, std::string(trim(fields[0])));
    auto near = [](double got, double expected) { return std::fabs(got - expected) <= 1e-9 * std::fabs(expected); };
    EXPECT_TRUE(near(r.duration_without_penalty, *parse_double(fields[1]))) << r.name << " " << r.duration_without_penalty;
    EXPECT_EQ(r.checkpoints, *parse_int(fields[2])) << r.name;
    EXPECT_TRUE(near(r.total_duration, *parse_double(fields[3]))) << r.name << " " << r.total_duration;
  }
  EXPECT_EQ(row, results.size());
  EXPECT_EQ(row, 11u);
}

TEST(GangStudy, ShortTraceIsAnInputError) {
  const StudyData data = load_study_data(gang_dir());
  StudySettings settings = data.settings;
  settings.simulation_length = 2000;  // the traces have 1 000 rows
  try {
    run_study_table(data.model, data.forecasts, data.actual, settings);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nyc_taxi_1_forecasts.csv:1001: the trace is shorter than the run: it has 1000 rows"),
              std::string::npos)
        << e.what();
  }
}

// Share levels beyond the bound were std::bad_alloc (exit 1): the planners' memo holds one
// value per task, trace column and level.
TEST(StudySettings, ShareLevelsBeyondTheLimitAreAnInputError) {
  testing::ScratchDir dir;
  const std::string path =
      dir.write("config.ini", "[gang-scheduling]\nshare_increment=1\ntotal_shares=1000000000\n");
  testing::expect_input_error([&] { (void)read_study_settings(path); }, path, 0, "the limit is 10000");
  EXPECT_NO_THROW(read_study_settings(dir.write("ok.ini", "[gang-scheduling]\nshare_increment=1\ntotal_shares=10000\n")));
}

}  // namespace
}  // namespace kubesim::bsp
