#include "core/test_paths.hpp"
#include "study/compare.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "scenario/scenario.hpp"
#include "study/compare_report.hpp"

namespace kubesim {
namespace {

const std::string kMostAllocated = kubesim::testing::source_dir() + "/examples/scheduler-config/most-allocated.yaml";

TEST(ParseContenders, NamesAndConfigFiles) {
  const auto c = parse_contenders("default-scheduler,default-scheduler=" + kMostAllocated);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].label, "default-scheduler");
  ASSERT_EQ(c[0].setups.size(), 1u);
  EXPECT_EQ(c[0].setups[0].setup, "default-scheduler");
  EXPECT_EQ(c[0].setups[0].config_file, "");
  EXPECT_EQ(c[1].label, "default-scheduler+most-allocated");
  EXPECT_EQ(c[1].setups[0].setup, "default-scheduler");
  EXPECT_EQ(c[1].setups[0].config_file, kMostAllocated);
}

TEST(ParseContenders, SeveralSetupsSideBySide) {
  const auto c = parse_contenders("default-scheduler=" + kMostAllocated + "+fluxion,fcfs");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].label, "default-scheduler+most-allocated+fluxion");
  ASSERT_EQ(c[0].setups.size(), 2u);
  EXPECT_EQ(c[0].setups[0].config_file, kMostAllocated);
  EXPECT_EQ(c[0].setups[1].setup, "fluxion");
  EXPECT_EQ(c[0].setups[1].config_file, "");
  EXPECT_EQ(c[1].label, "fcfs");
}

TEST(ParseContenders, BadLists) {
  EXPECT_THROW(parse_contenders(""), InputError);
  EXPECT_THROW(parse_contenders("default-scheduler,"), InputError);
  EXPECT_THROW(parse_contenders("no-such-scheduler"), InputError);
  EXPECT_THROW(parse_contenders("default-scheduler,default-scheduler"), InputError);
  EXPECT_THROW(parse_contenders("default-scheduler="), InputError);
  EXPECT_THROW(parse_contenders("default-scheduler=/no/such/file.yaml"), InputError);
  EXPECT_THROW(parse_contenders("fluxion+"), InputError);
  EXPECT_THROW(parse_contenders("fluxion+fluxion"), InputError);
}

TEST(CompareStats, SeedStatAndQuantiles) {
  const SeedStat s = seed_stat({3, 1, 2});
  EXPECT_DOUBLE_EQ(s.mean, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 3);
  // R type 7: h = q (n - 1); {1, 2, 3, 4}: p25 at h = 0.75 -> 1.75, median 2.5, p90 at 2.7 -> 3.7.
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.9), 3.7);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1), 4);
  EXPECT_DOUBLE_EQ(quantile_sorted({}, 0.5), 0);
}

TEST(CompareStats, SampleInterval) {
  Workload w;
  EXPECT_EQ(comparison_sample_interval(w), Duration::seconds(1));
  WorkloadJob j;
  j.submit = SimTime::at(Duration::seconds(3999));  // 3999 / 2000 = 2.0 s (rounded up)
  w.jobs.push_back(j);
  EXPECT_EQ(comparison_sample_interval(w), Duration::seconds(2));
  w.jobs.back().submit = SimTime::at(Duration::seconds(10'000));  // exactly 5 s
  EXPECT_EQ(comparison_sample_interval(w), Duration::seconds(5));
}

// Two schedulers, two seeds, one tenant; summaries written by hand.
Comparison hand_comparison() {
  Comparison cmp;
  cmp.title = "t";
  cmp.source = "hand";
  cmp.model = "ideal";
  cmp.contenders = {{"A", {{"default-scheduler", "", Duration()}}}, {"B", {{"default-scheduler", "", Duration()}}}};
  cmp.seeds = 2;
  cmp.tenants = {"t1"};
  const auto run = [](std::size_t c, std::uint64_t seed, double makespan, double util, std::vector<double> queue) {
    RunRecord r;
    r.contender = c;
    r.seed = seed;
    TenantSummary t;
    t.tenant = "t1";
    t.jobs = 4;
    t.completed = 4;
    t.total_cores_milli = 8000;
    for (double q : queue) t.total_queue_s += q;
    t.average_queue_s = t.total_queue_s / static_cast<double>(queue.size());
    t.makespan_s = makespan;
    t.queue_times_s = queue;
    r.summary.tenants = {t};
    r.summary.makespan_s = makespan;
    r.summary.utilisation = util;
    return r;
  };
  cmp.runs = {run(0, 1, 100, 0.5, {0, 0, 10, 10}), run(0, 2, 110, 0.6, {0, 0, 10, 30}),
              run(1, 1, 200, 0.55, {0, 20, 20, 40}), run(1, 2, 210, 0.58, {0, 20, 20, 40})};
  return cmp;
}

TEST(CompareReport, WhatDiffered) {
  const auto lines = what_differed(hand_comparison());
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "Makespan (all tenants): lowest with A (mean 105 s, 100 s\u2013110 s over 2 seeds), highest with B (mean "
            "205 s, 200 s\u2013210 s over 2 seeds); difference 100 s (95.2%); beyond the seed-to-seed spread (the "
            "ranges over seeds do not overlap).");
  // Utilisation: A 50-60 % (mean 55), B 55-58 % (mean 56.5): B is higher but the ranges overlap.
  EXPECT_EQ(lines[1],
            "Utilisation: highest with B (mean 56.5%, 55%\u201358% over 2 seeds), lowest with A (mean 55%, "
            "50%\u201360% over 2 seeds); difference 1.5%; within the seed-to-seed spread (the ranges over seeds "
            "overlap).");
  // Mean queue time: A 5 s and 10 s (mean 7.5), B 20 s both seeds.
  EXPECT_EQ(lines[2],
            "Mean queue time (all tenants): lowest with A (mean 7.5 s, 5 s\u201310 s over 2 seeds), highest with B "
            "(mean 20 s, 20 s\u201320 s over 2 seeds); difference 12.5 s (166.7%); beyond the seed-to-seed spread "
            "(the ranges over seeds do not overlap).");
  // Completed Jobs and failed pods are equal: no statement.
  for (const auto& l : lines) EXPECT_EQ(l.find("Completed Jobs"), std::string::npos) << l;
}

TEST(CompareReport, SummaryAndQueueTimesCsv) {
  const Comparison cmp = hand_comparison();
  const std::string csv = compare_summary_csv(cmp);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("scheduler,tenant,seeds,jobs_mean,jobs_min,jobs_max,completed_mean,", 0), 0u);
  EXPECT_NE(header.find(",makespan_s_mean,makespan_s_min,makespan_s_max,utilisation_mean,utilisation_min,utilisation_max"),
            std::string::npos);
  // A/t1: jobs 4, completed 4, failed 0, cores 8, total queue 20 and 40, average 5 and 10, run 0,
  // queue+run 0, makespan 100 and 110, no utilisation.
  EXPECT_NE(csv.find("\nA,t1,2,4,4,4,4,4,4,0,0,0,8,8,8,30,20,40,7.5,5,10,0,0,0,0,0,0,105,100,110,,,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nA,(cluster),2,4,4,4,4,4,4,0,0,0,8,8,8,30,20,40,7.5,5,10,0,0,0,0,0,0,105,100,110,0.55,0.5,0.6\n"),
            std::string::npos)
      << csv;
  // Pooled queue times: A {0,0,10,10,0,0,10,30} -> sorted 0,0,0,0,10,10,10,30; B {0,20,20,40} twice.
  EXPECT_EQ(queue_times_csv(cmp),
            "scheduler,jobs,mean_s,min_s,p25_s,p50_s,p75_s,p90_s,p99_s,max_s\n"
            "A,8,7.5,0,0,5,10,16,28.6,30\n"
            "B,8,20,0,15,20,25,40,40,40\n");
}

TEST(CompareReport, OneSchedulerNothingToCompare) {
  Comparison cmp = hand_comparison();
  cmp.contenders.pop_back();
  cmp.runs.resize(2);
  EXPECT_EQ(what_differed(cmp), std::vector<std::string>{"Only one scheduler: nothing to compare."});
}

CompareSpec small_spec(unsigned threads) {
  Scenario sc = read_scenario(kubesim::testing::source_dir() + "/examples/compare/small.yaml");
  CompareSpec spec;
  spec.title = sc.name;
  spec.source = "small";
  spec.inputs = std::move(sc.inputs);
  spec.scheduler_config = sc.scheduler_config;
  spec.options.model = ModelConfig::realistic();
  spec.report = ReportSettings{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
  spec.contenders = parse_contenders("default-scheduler,default-scheduler=" + kMostAllocated);
  spec.seeds = 3;
  spec.threads = threads;
  spec.version = "test";
  return spec;
}

TEST(RunComparison, OutputsDoNotDependOnThreads) {
  const Comparison one = run_comparison(small_spec(1));
  const Comparison four = run_comparison(small_spec(4));
  EXPECT_EQ(one.threads_used, 1u);
  EXPECT_EQ(four.threads_used, 4u);
  const auto a = build_comparison_files(one);
  const auto b = build_comparison_files(four);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_TRUE(a[i].content == b[i].content) << a[i].name;
  }
  // Runs in contender-major, seed-minor order; per-run outputs under <label>/seed-<k>/.
  ASSERT_EQ(one.runs.size(), 6u);
  EXPECT_EQ(one.run(1, 2).contender, 1u);
  EXPECT_EQ(one.run(1, 2).seed, 2u);
  EXPECT_EQ(a.front().name, "default-scheduler/seed-1/jobs.csv");
  EXPECT_EQ(a.back().name, "compare.html");
  EXPECT_EQ(one.tenants, (std::vector<std::string>{"batch", "interactive"}));
}

TEST(RunComparison, BadConfigurationStopsBeforeRunning) {
  CompareSpec spec = small_spec(2);
  spec.contenders.push_back(
      {"bad", {{"default-scheduler", kubesim::testing::source_dir() + "/tests/bad/scheduler-unknown-plugin.yaml", Duration()}}});
  EXPECT_THROW(run_comparison(std::move(spec)), InputError);
}

}  // namespace
}  // namespace kubesim
