#include "sweep/sweep.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/split.hpp"
#include "core/test_paths.hpp"
#include "sweep/batch.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_report.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/text_files.hpp"

namespace kubesim {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test (ctest runs tests in parallel processes).
class SweepTest : public ::testing::Test {
 protected:
  std::string plan(const std::string& text) { return scratch_.write("plan.yaml", text); }
  std::string e3() const { return testing::source_dir() + "/examples/multitenant/e3.yaml"; }
  // The error a plan gives, "" when it reads.
  std::string error_of(const std::string& text) {
    try {
      read_sweep_plan(plan(text));
    } catch (const InputError& e) {
      return std::to_string(e.line()) + ": " + e.problem();
    }
    return "";
  }

  testing::ScratchDir scratch_;
  const fs::path dir_ = scratch_.path();
};

TEST_F(SweepTest, ExpandsAxesInPlanOrderWithStableIds) {
  const std::string text = "name: t\nscenarios: [" + e3() +
                           "]\nschedulers: [default-scheduler, fcfs]\nmodels: [ideal]\n"
                           "overrides:\n  tenants.tenant3.streams.0.interval: [5, 10, 20]\nseeds: 2\n";
  const SweepPlan a = read_sweep_plan(plan(text));
  ASSERT_EQ(a.cells.size(), 2u * 3u * 2u);
  EXPECT_EQ(a.axis_names(), (std::vector<std::string>{"scenario", "scheduler", "model", "tenants.tenant3.streams.0.interval", "seed"}));
  // Seeds innermost, then the override, then the scheduler.
  EXPECT_EQ(a.axis_values(a.cells[0]), (std::vector<std::string>{e3(), "default-scheduler", "ideal", "5", "1"}));
  EXPECT_EQ(a.axis_values(a.cells[1]), (std::vector<std::string>{e3(), "default-scheduler", "ideal", "5", "2"}));
  EXPECT_EQ(a.axis_values(a.cells[2]), (std::vector<std::string>{e3(), "default-scheduler", "ideal", "10", "1"}));
  EXPECT_EQ(a.axis_values(a.cells[6]), (std::vector<std::string>{e3(), "fcfs", "ideal", "5", "1"}));
  const SweepPlan b = read_sweep_plan(plan(text));
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].id, b.cells[i].id);
    EXPECT_EQ(a.cells[i].id.size(), 12u);
  }
  // A cell keeps its id when the plan grows (its outputs are reused).
  const SweepPlan c = read_sweep_plan(plan("name: t\nscenarios: [" + e3() +
                                           "]\nschedulers: [default-scheduler, fcfs, easy-backfill]\nmodels: [ideal]\n"
                                           "overrides:\n  tenants.tenant3.streams.0.interval: [5, 10, 20]\nseeds: 3\n"));
  EXPECT_EQ(c.cells[0].id, a.cells[0].id);
  EXPECT_EQ(c.cells[1].id, a.cells[1].id);
}

TEST_F(SweepTest, BadPlansNameTheLine) {
  const std::string head = "name: t\nscenarios: [" + e3() + "]\n";
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {head + "seeds: 2\nschedulerz: [fcfs]\n", "4: unknown key \"schedulerz\" in the sweep plan"},
      {head + "schedulers: []\n", "3: expected schedulers to list at least one value (an empty axis has no cells)"},
      {head + "overrides:\n  tenants.tenant9.bursts.0: [1]\n", "4: override path \"tenants.tenant9.bursts.0\" does not exist"},
      {head + "overrides:\n  tenants.tenant1.bursts.7: [1]\n", "4: override path \"tenants.tenant1.bursts.7\" does not exist"},
      {head + "overrides:\n  clusterr.nodes: [1]\n", "4: override path \"clusterr.nodes\" does not exist"},
      {head + "overrides:\n  model.podStartp: [\"fixed:1\"]\n", "4: override model.podStartp = fixed:1: unknown model parameter"},
      {head + "overrides:\n  cluster.nodes: []\n", "4: expected override cluster.nodes to list at least one value"},
      {head + "schedulers: [nosuch]\n", "3: "},
      {head + "seeds: [1, 1]\n", "3: seeds lists \"1\" twice"},
      {head + "models: [nosuch.yaml]\n", "3: expected a models entry"},
      {head + "collect: [everything]\n", "3: expected a collect entry to be one of"},
      {"name: t\nscenarios: [nosuch.yaml]\n", "2: expected a scenarios entry \"nosuch.yaml\" to be a file"},
  };
  for (const Case& c : cases) {
    const std::string got = error_of(c.text);
    EXPECT_EQ(got.rfind(c.expected, 0), 0u) << c.text << "\ngot: " << got;
  }
}

// A cluster + workload entry reads an SWF trace with run's --swf-* options (plan keys); the
// options differing from run's defaults name the entry, so the default entry keeps its id.
TEST_F(SweepTest, SwfEntriesTakeRunsSwfOptions) {
  const std::string platform = testing::source_dir() + "/data/batkube/platform_graphene_16nodes.xml";
  const std::string swf = testing::source_dir() + "/examples/batsim/parallel.swf";
  const SweepPlan p = read_sweep_plan(plan("name: t\nscenarios:\n  - {platform: " + platform + ", swf: " + swf +
                                           ", swfProcessors: cores, swfCpuPerProcessor: 500m, swfMemory: none}\n"
                                           "  - {platform: " + platform + ", swf: " + swf + "}\n"));
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[0].label, "parallel on platform_graphene_16nodes (swfCpuPerProcessor=500m, swfMemory=none, swfProcessors=cores)");
  EXPECT_EQ(p.inputs[0].files.swf_options.processors, SwfOptions::Processors::kCores);
  EXPECT_EQ(p.inputs[0].files.swf_options.cpu_per_processor, "500m");
  EXPECT_EQ(p.inputs[1].label, "parallel on platform_graphene_16nodes");
  EXPECT_EQ(p.inputs[1].files.swf_options.processors, SwfOptions::Processors::kMachines);
  const auto error_of = [&](const std::string& entry) {
    try {
      read_sweep_plan(plan("name: t\nscenarios:\n  - {platform: " + platform + ", " + entry + "}\n"));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("swf: " + swf + ", swfMemory: lots").find(":3: expected swfMemory to be one of none, requested, used"),
            std::string::npos);
  EXPECT_NE(error_of("workload: " + testing::source_dir() + "/data/batkube/200_delay170.json, swfProcessors: cores")
                .find(":3: expected swfProcessors only with an swf trace"),
            std::string::npos);
  EXPECT_NE(error_of("swf: " + swf + ", swfCpuPerProcessor: 0").find(":3: expected swfCpuPerProcessor to be positive"),
            std::string::npos);
}

TEST_F(SweepTest, OverridePathsByIndexAndNamespace) {
  const YAML::Node doc = YAML::LoadFile(e3());
  std::string why;
  EXPECT_EQ(find_yaml_path(doc, {"tenants", "tenant3", "streams", "0", "interval"}, &why).Scalar(), "5");
  EXPECT_EQ(find_yaml_path(doc, {"tenants", "2", "streams", "0", "interval"}, &why).Scalar(), "5");
  EXPECT_EQ(find_yaml_path(doc, {"cluster", "nodes"}, &why).Scalar(), "3");
  EXPECT_FALSE(find_yaml_path(doc, {"cluster", "nodes", "x"}, &why));
  EXPECT_EQ(why, "cluster.nodes is a scalar, not a map or a list");
}

TEST_F(SweepTest, RunsResumesAndMergesTheSameWhateverTheThreads) {
  const std::string path = plan("name: t\nscenarios: [" + e3() +
                                "]\nschedulers: [default-scheduler, fcfs]\nmodels: [ideal]\n"
                                "overrides:\n  tenants.tenant3.streams.0.interval: [5, 20]\n  model.podStartup: [\"fixed:1\", \"fixed:3\"]\n"
                                "seeds: 2\ncollect: [summary, jobs]\ncellsPerTask: 3\n");
  const SweepPlan p = read_sweep_plan(path);
  ASSERT_EQ(p.cells.size(), 16u);
  SweepRunOptions one{(dir_ / "one").string(), 1, std::nullopt, "test", {}, {}};
  write_sweep_manifest(p, one.out);
  const SweepRunStats s1 = run_sweep_cells(p, one);
  EXPECT_EQ(s1.ran, 16u);
  merge_sweep(one.out);
  // Chunks on two threads, as array tasks would run them, then the merge.
  SweepRunOptions chunks{(dir_ / "chunks").string(), 2, std::nullopt, "test", {}, {}};
  write_sweep_manifest(p, chunks.out);
  EXPECT_THROW(merge_sweep(chunks.out), InputError);  // nothing finished yet
  ASSERT_EQ(p.chunks(), 6u);
  for (std::size_t i = p.chunks(); i-- > 0;) {
    chunks.chunk = i;
    EXPECT_EQ(run_sweep_cells(p, chunks).ran, i == 5 ? 1u : 3u);
  }
  merge_sweep(chunks.out);
  const std::string results = testing::read_file(dir_ / "one" / "results.csv");
  EXPECT_EQ(results, testing::read_file(dir_ / "chunks" / "results.csv"));
  EXPECT_EQ(testing::read_file(dir_ / "one" / "sweep.html"), testing::read_file(dir_ / "chunks" / "sweep.html"));
  // 16 cells x 3 tenants, a header; the overrides changed the runs.
  EXPECT_EQ(std::count(results.begin(), results.end(), '\n'), 49);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "one" / "cells" / p.cells[0].id / "jobs.csv"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "one" / "cells" / p.cells[0].id / "summary.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "one" / "cells" / p.cells[0].id / "pods.csv"));
  EXPECT_NE(testing::read_file(dir_ / "one" / "cells" / p.cells[0].id / "summary.csv"),
            testing::read_file(dir_ / "one" / "cells" / p.cells[2].id / "summary.csv"));
  EXPECT_NE(testing::read_file(dir_ / "one" / "cells" / p.cells[0].id / "summary.csv"),
            testing::read_file(dir_ / "one" / "cells" / p.cells[4].id / "summary.csv"));
  // Resume: finished cells are skipped, a removed one runs again, the merge is unchanged.
  fs::remove_all(dir_ / "one" / "cells" / p.cells[5].id);
  const SweepRunStats s2 = run_sweep_cells(p, one);
  EXPECT_EQ(s2.skipped, 15u);
  EXPECT_EQ(s2.ran, 1u);
  merge_sweep(one.out);
  EXPECT_EQ(testing::read_file(dir_ / "one" / "results.csv"), results);
  const std::string html = testing::read_file(dir_ / "one" / "sweep.html");
  EXPECT_NE(html.find("data-axis=\"scheduler\""), std::string::npos);
  EXPECT_NE(html.find("data-axis=\"model.podStartup\""), std::string::npos);
  EXPECT_NE(html.find("<section id=\"best\">"), std::string::npos);
  // The one scenario is named once, not in a column of every row (the table fits the page).
  EXPECT_NE(html.find("; in every row scenario = "), std::string::npos);
  const std::string best = html.substr(html.find("<section id=\"best\">"));
  EXPECT_EQ(best.substr(0, best.find("</section>")).find("<th>scenario</th>"), std::string::npos);
  // No temporary folder is left.
  for (const auto& e : fs::directory_iterator(dir_ / "one" / "cells")) EXPECT_NE(e.path().filename().string()[0], '.');
}

TEST_F(SweepTest, BadOverrideValueFailsBeforeAnyCellRuns) {
  const std::string path = plan("name: t\nscenarios: [" + e3() + "]\nseeds: 2\noverrides:\n  cluster.nodes: [2, many]\n");
  const SweepPlan p = read_sweep_plan(path);
  SweepRunOptions o{(dir_ / "out").string(), 2, std::nullopt, "test", {}, {}};
  try {
    run_sweep_cells(p, o);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(std::string(e.what()).find("with cluster.nodes = many"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // checked before anything is written
}

// Issue 32: a plan whose axes multiply beyond the limit is refused before a cell is made; a
// killed sweep's temporary cell folder is removed, a live process's is kept.
TEST_F(SweepTest, CellLimitAndStaleTemporaryFolders) {
  const std::string big = plan("name: t\nscenarios: [" + e3() + "]\nseeds: 100000\noverrides:\n  cluster.nodes: [1, 2]\n");
  try {
    read_sweep_plan(big);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 100000 cells"), std::string::npos) << e.what();
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const fs::path cells = dir_ / "stale" / "cells";
  fs::create_directories(cells / (".tmp-abc-" + std::string(host) + "-2147483646"));  // no such process
  fs::create_directories(cells / (".tmp-abd-" + std::string(host) + "-" + std::to_string(::getpid())));
  fs::create_directories(cells / ".tmp-abe-otherhost-1");
  remove_stale_cell_folders((dir_ / "stale").string());
  EXPECT_FALSE(fs::exists(cells / (".tmp-abc-" + std::string(host) + "-2147483646")));
  EXPECT_TRUE(fs::exists(cells / (".tmp-abd-" + std::string(host) + "-" + std::to_string(::getpid()))));
  EXPECT_TRUE(fs::exists(cells / ".tmp-abe-otherhost-1"));
}

TEST_F(SweepTest, StudentQuantilesAndCsvLines) {
  EXPECT_DOUBLE_EQ(student_t975(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t975(4), 2.776);
  EXPECT_DOUBLE_EQ(student_t975(1000), 1.96);
  EXPECT_EQ(split_csv_record("a,\"b,c\",\"d\"\"e\","), (std::vector<std::string>{"a", "b,c", "d\"e", ""}));
}

TEST_F(SweepTest, BatchScriptsRunChunks) {
  const SweepPlan p = read_sweep_plan(plan("name: My Sweep\nscenarios: [" + e3() + "]\nseeds: 10\ncellsPerTask: 4\n"
                                           "kubernetes: {image: reg/kubesim:1, parallelism: 2, claimName: data}\n"));
  EXPECT_EQ(sweep_job_name(p), "kubesim-sweep-my-sweep");
  const std::string sh = slurm_array_script(p, "/opt/kubesim", "/d/plan.yaml", "/d/out", {"short", "00:10:00"});
  EXPECT_NE(sh.find("#SBATCH --array=0-2\n"), std::string::npos);
  EXPECT_NE(sh.find("#SBATCH --partition=short\n"), std::string::npos);
  EXPECT_NE(sh.find("#SBATCH --time=00:10:00\n"), std::string::npos);
  EXPECT_NE(sh.find("exec '/opt/kubesim' sweep '/d/plan.yaml' --out '/d/out' --cells \"$SLURM_ARRAY_TASK_ID\" --cells-per-task 4"),
            std::string::npos);
  const YAML::Node job = YAML::Load(k8s_indexed_job(p, "plan.yaml", "out", "/here"));
  EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(job["spec"]["completions"].as<int>(), 3);
  EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 2);
  const YAML::Node pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["containers"][0]["args"][5].as<std::string>(), "$(JOB_COMPLETION_INDEX)");
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(), "data");
}

}  // namespace
}  // namespace kubesim
