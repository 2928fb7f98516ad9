#include "scenario/scenario.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/input_error.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

const std::string kDir = kubesim::testing::source_dir() + "/examples/multitenant/";

std::map<std::string, std::size_t> jobs_per_namespace(const Scenario& s) {
  std::map<std::string, std::size_t> out;
  for (const auto& j : s.inputs.workload.jobs) ++out[s.inputs.workload.namespaces[j.ns.value()]];
  return out;
}

void expect_sorted(const Workload& w) {
  for (std::size_t i = 1; i < w.jobs.size(); ++i) ASSERT_LE(w.jobs[i - 1].submit, w.jobs[i].submit) << i;
}

TEST(Scenario, E3) {
  const Scenario s = read_scenario(kDir + "e3.yaml");
  EXPECT_EQ(s.name, "e3");
  EXPECT_FALSE(s.description.empty());
  EXPECT_FALSE(s.each_tenant_alone);
  EXPECT_EQ(s.tenants, (std::vector<std::string>{"tenant1", "tenant2", "tenant3"}));
  EXPECT_EQ(s.inputs.workload.namespaces, (std::vector<std::string>{"default", "tenant1", "tenant2", "tenant3"}));
  EXPECT_EQ(jobs_per_namespace(s), (std::map<std::string, std::size_t>{{"tenant1", 192}, {"tenant2", 64}, {"tenant3", 121}}));
  EXPECT_EQ(s.capacity_milli, 384'000);
  EXPECT_EQ(s.sample_interval, Duration::seconds(1));
  EXPECT_TRUE(s.model.empty());
  EXPECT_FALSE(s.duration.has_value());
  EXPECT_TRUE(s.inputs.quotas.empty());
  EXPECT_TRUE(s.inputs.priority_classes.empty());
  EXPECT_TRUE(s.inputs.actions.empty());
  ASSERT_EQ(s.inputs.nodes.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Node& n = s.inputs.nodes[static_cast<std::size_t>(i)];
    EXPECT_EQ(n.name, "node-" + std::to_string(i));
    EXPECT_EQ(n.allocatable[kCpu], 128'000);
    EXPECT_EQ(n.allocatable[kMemory], 512LL << 30);
    EXPECT_EQ(n.allowed_pods, 110);
  }
  EXPECT_EQ(s.inputs.scheduler.source, "built-in default");
  const Workload& w = s.inputs.workload;
  expect_sorted(w);

  // The study's job: one container, requests = limits, backoffLimit 6, sleep as run time.
  std::map<std::string, const WorkloadJob*> by_name;
  for (const auto& j : w.jobs) {
    EXPECT_TRUE(j.as_job);
    EXPECT_EQ(j.parallelism, 1);
    EXPECT_EQ(j.completions, 1);
    EXPECT_EQ(j.backoff_limit, 6);
    EXPECT_EQ(j.failure.probability, 0);
    EXPECT_TRUE(by_name.emplace(j.name, &j).second) << j.name;
  }
  const WorkloadJob& b = *by_name.at("tenant1-b1-95");
  EXPECT_EQ(b.submit, SimTime::at(Duration::seconds(90)));
  EXPECT_EQ(b.run_time, Duration::seconds(180));
  EXPECT_EQ(b.id, "tenant1/tenant1-b1-95");
  const PodTemplate& t = w.templates[b.pod_template];
  ASSERT_EQ(t.containers.size(), 1u);
  EXPECT_EQ(t.containers[0].requests[kCpu], 4000);
  EXPECT_EQ(t.containers[0].requests[kMemory], 8'000'000'000);
  EXPECT_EQ(t.containers[0].limits, t.containers[0].requests);
  EXPECT_EQ(t.requests[kCpu], 4000);
  EXPECT_TRUE(t.priority_class_name.empty());
  EXPECT_EQ(t.termination_grace_period_seconds, 30);
  // tenant3's stream: 25 jobs every 5 s from 60 s; its burst at 150 s.
  for (int n = 0; n < 25; ++n) {
    const std::string name = "tenant3-s0-" + std::string(n < 10 ? "0" : "") + std::to_string(n);
    EXPECT_EQ(by_name.at(name)->submit, SimTime::at(Duration::seconds(60 + 5 * n))) << name;
    EXPECT_EQ(by_name.at(name)->run_time, Duration::seconds(60));
  }
  EXPECT_EQ(by_name.at("tenant3-b0-00")->submit, SimTime::at(Duration::seconds(150)));
  EXPECT_EQ(w.templates[by_name.at("tenant3-b0-00")->pod_template].requests[kMemory], 4'000'000'000);
  EXPECT_EQ(by_name.at("tenant2-b0-31")->submit, SimTime::at(Duration::seconds(30)));
  // At 150 s tenant3's burst comes before its stream job, as in the notebook.
  std::size_t burst = 0, stream = 0;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    if (w.jobs[i].name == "tenant3-b0-00") burst = i;
    if (w.jobs[i].name == "tenant3-s0-18") stream = i;
  }
  EXPECT_LT(burst, stream);
}

TEST(Scenario, E2HasTheStudysQuotas) {
  const Scenario s = read_scenario(kDir + "e2.yaml");
  EXPECT_EQ(jobs_per_namespace(s), (std::map<std::string, std::size_t>{{"tenant1", 192}, {"tenant2", 64}, {"tenant3", 121}}));
  ASSERT_EQ(s.inputs.quotas.size(), 3u);
  const std::int64_t cpu[] = {128'000, 64'000, 32'000};
  for (std::size_t i = 0; i < 3; ++i) {
    const ResourceQuota& q = s.inputs.quotas[i];
    EXPECT_EQ(s.inputs.workload.namespaces[q.ns.value()], "tenant" + std::to_string(i + 1));
    ASSERT_EQ(q.items.size(), 4u);
    EXPECT_EQ(q.items[2].name, "requests.cpu");
    EXPECT_EQ(q.items[2].hard, cpu[i]);
  }
}

TEST(Scenario, E2BackfillAndE4) {
  for (const char* file : {"e2-backfill.yaml", "e4.yaml"}) {
    SCOPED_TRACE(file);
    const Scenario s = read_scenario(kDir + file);
    EXPECT_EQ(s.tenants, (std::vector<std::string>{"tenant1", "tenant2", "tenant3", "backfill"}));
    EXPECT_EQ(jobs_per_namespace(s), (std::map<std::string, std::size_t>{
                                         {"backfill", 48}, {"tenant1", 192}, {"tenant2", 64}, {"tenant3", 121}}));
    EXPECT_EQ(s.inputs.quotas.size(), std::string(file) == "e4.yaml" ? 0u : 3u);
    ASSERT_EQ(s.inputs.priority_classes.size(), 1u);
    EXPECT_EQ(s.inputs.priority_classes[0].name, "backfill");
    EXPECT_EQ(s.inputs.priority_classes[0].value, -9999);
    const Workload& w = s.inputs.workload;
    expect_sorted(w);
    SimTime first_t3 = SimTime::never();
    for (const auto& j : w.jobs) {
      const std::string& ns = w.namespaces[j.ns.value()];
      const PodTemplate& t = w.templates[j.pod_template];
      EXPECT_EQ(t.priority_class_name, ns == "backfill" ? "backfill" : "");
      if (ns == "backfill") {
        EXPECT_EQ(j.submit, SimTime::zero());
        EXPECT_EQ(j.run_time, Duration::seconds(360));
        EXPECT_EQ(t.requests[kCpu], 8000);
        EXPECT_EQ(t.requests[kMemory], 16'000'000'000);
      }
      if (ns == "tenant3" && j.submit < first_t3) first_t3 = j.submit;
    }
    EXPECT_EQ(first_t3, SimTime::at(Duration::seconds(90)));
  }
}

TEST(Scenario, E1RunsEachTenantAlone) {
  const Scenario s = read_scenario(kDir + "e1.yaml");
  EXPECT_TRUE(s.each_tenant_alone);
  const std::size_t expected[] = {192, 64, 121};
  for (std::size_t i = 0; i < s.tenants.size(); ++i) {
    SimulationInputs in = tenant_inputs(s, s.tenants[i]);
    EXPECT_EQ(in.workload.jobs.size(), expected[i]);
    EXPECT_EQ(in.workload.namespaces, s.inputs.workload.namespaces);
    EXPECT_EQ(in.workload.templates.size(), s.inputs.workload.templates.size());
    EXPECT_EQ(in.nodes.size(), 3u);
    EXPECT_FALSE(in.scheduler.profiles.empty());
    for (const auto& j : in.workload.jobs) EXPECT_EQ(in.workload.namespaces[j.ns.value()], s.tenants[i]);
  }
}

TEST(Scenario, FailuresExample) {
  const Scenario s = read_scenario(kDir + "failures.yaml");
  ASSERT_EQ(s.inputs.actions.size(), 4u);
  EXPECT_EQ(s.inputs.actions[0].kind, ClusterAction::Kind::kFail);
  EXPECT_EQ(s.inputs.actions[0].node, "node-0");
  EXPECT_EQ(s.inputs.actions[0].at, SimTime::at(Duration::seconds(100)));
  EXPECT_GT(s.inputs.actions[0].line, 0u);
  EXPECT_EQ(s.inputs.actions[1].kind, ClusterAction::Kind::kDrain);
  EXPECT_EQ(s.inputs.actions[3].kind, ClusterAction::Kind::kUncordon);
  EXPECT_EQ(s.capacity_milli, 24'000);
  ASSERT_EQ(s.inputs.pod_disruption_budgets.size(), 1u);
  EXPECT_EQ(s.inputs.workload.namespaces, (std::vector<std::string>{"default", "team-a"}));
  const Workload& w = s.inputs.workload;
  ASSERT_EQ(w.jobs.size(), 31u);
  expect_sorted(w);
  const WorkloadJob* wide = nullptr;
  for (const auto& j : w.jobs)
    if (j.name == "wide") wide = &j;
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(wide->submit, SimTime::at(Duration::seconds(50)));
  EXPECT_EQ(wide->parallelism, 3);
  EXPECT_EQ(wide->completions, 6);
  EXPECT_EQ(wide->run_time, Duration::seconds(300));
  EXPECT_EQ(wide->id, "team-a/wide");
}

// The current engine runs every workload job to completion on the study's cluster.
TEST(Scenario, E3Simulates) {
  Scenario s = read_scenario(kDir + "e3.yaml");
  SimulationOptions options;
  options.model = ModelConfig::ideal();
  Simulation sim(std::move(s.inputs), options);
  sim.run();
  EXPECT_EQ(sim.pending_pods(), 0u);
  EXPECT_GE(sim.finished_pods(), 377u);
}

TEST(Scenario, ClusterFormsAndSettings) {
  const testing::ScratchDir dir;
  dir.write("cluster.yaml", "nodeGroups:\n  - {name: big, count: 2, allocatable: {cpu: 64, memory: 256Gi}}\n");
  dir.write("model.yaml", "watchDelay: fixed:0.001\n");
  dir.write(
      "job.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: other, annotations: {kubesim.io/duration: '5'}}\n"
      "spec:\n  restartPolicy: Never\n  containers: [{name: c, image: i}]\n");
  const Scenario a =
      read_scenario(dir.write("a.yaml",
                              "cluster: {file: cluster.yaml}\nmodel: model.yaml\nsampleInterval: 0.5\n"
                              "duration: 100\ncapacityCores: 100\njobs:\n  - {at: 7, file: job.yaml}\n"));
  EXPECT_EQ(a.name, "a");
  ASSERT_EQ(a.inputs.nodes.size(), 2u);
  EXPECT_EQ(a.inputs.nodes[1].name, "big-1");
  EXPECT_EQ(a.capacity_milli, 100'000);
  EXPECT_EQ(a.model, dir.path() + "/model.yaml");
  EXPECT_EQ(a.sample_interval, Duration::millis(500));
  EXPECT_EQ(a.duration, Duration::seconds(100));
  EXPECT_EQ(a.inputs.workload.namespaces, (std::vector<std::string>{"default", "other"}));
  ASSERT_EQ(a.inputs.workload.jobs.size(), 1u);
  EXPECT_FALSE(a.inputs.workload.jobs[0].as_job);
  EXPECT_EQ(a.inputs.workload.jobs[0].submit, SimTime::at(Duration::seconds(7)));

  const Scenario b =
      read_scenario(dir.write("b.yaml",
                              "cluster:\n  nodeGroups:\n    - {name: n, count: 4, allocatable: {cpu: 2}}\n"
                              "model: ideal\n"));
  EXPECT_EQ(b.inputs.nodes.size(), 4u);
  EXPECT_EQ(b.capacity_milli, 8'000);
  EXPECT_EQ(b.model, "ideal");

  const Scenario c = read_scenario(dir.write("c.yaml", "name: defaults\n"));
  EXPECT_EQ(c.inputs.nodes.size(), 3u);
  EXPECT_EQ(c.capacity_milli, 384'000);
  EXPECT_TRUE(c.inputs.workload.jobs.empty());

  const Scenario d = read_scenario(dir.write("d.yaml", "cluster: {nodes: 5, cpu: 500m, memory: 1Gi, pods: 8}\n"));
  ASSERT_EQ(d.inputs.nodes.size(), 5u);
  EXPECT_EQ(d.inputs.nodes[4].allocatable[kCpu], 500);
  EXPECT_EQ(d.inputs.nodes[4].allowed_pods, 8);
}

TEST(Scenario, TemplateOverrides) {
  const testing::ScratchDir dir;
  const Scenario s = read_scenario(dir.write("s.yaml", R"(manifests:
  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
tenants:
  - namespace: t
    priorityClassName: high
    template:
      image: busybox:1.36
      backoffLimit: 2
      terminationGracePeriodSeconds: 0
      schedulerName: yunikorn
      failure: {probability: 0.5, exitCode: 7, after: 3}
    bursts: [["1.5", 500m, 1Gi, 3, 10]]
)"));
  const Workload& w = s.inputs.workload;
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[2].name, "t-b0-2");
  EXPECT_EQ(w.jobs[0].submit, SimTime::at(Duration::millis(1500)));
  EXPECT_EQ(w.jobs[0].backoff_limit, 2);
  EXPECT_DOUBLE_EQ(w.jobs[0].failure.probability, 0.5);
  EXPECT_EQ(w.jobs[0].failure.exit_code, 7);
  EXPECT_EQ(w.jobs[0].failure.after, Duration::seconds(3));
  const PodTemplate& t = w.templates[w.jobs[0].pod_template];
  EXPECT_EQ(t.scheduler_name, "yunikorn");
  EXPECT_EQ(t.priority_class_name, "high");
  EXPECT_EQ(t.termination_grace_period_seconds, 0);
  EXPECT_EQ(t.requests[kCpu], 500);
  EXPECT_EQ(t.requests[kMemory], 1LL << 30);
}

struct BadCase {
  const char* text;
  int line;
  const char* what;
};

TEST(Scenario, Errors) {
  const testing::ScratchDir dir;
  dir.write("deploy.yaml", "# a comment\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n");
  dir.write("quota-other.yaml", "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: elsewhere}\n");
  const BadCase cases[] = {
      {"name: x\nclsuter: {}\n", 2, "unknown key \"clsuter\""},
      {"tenants:\n  - namespace: t\n    bursts:\n      - [0, 4, 8G, 96]\n", 4, "[start s, cpu, memory, jobs, sleep s]"},
      {"tenants:\n  - namespace: t\n    bursts:\n      - [0, 4 cores, 8G, 96, 1]\n", 4, "4 cores"},
      {"tenants:\n  - namespace: t\n    bursts:\n      - [0, 4, 8G, many, 1]\n", 4, "jobs to be an integer"},
      {"tenants:\n  - namespace: t\n    streams:\n      - {start: 0, cpu: 1, memory: 1G, jobs: 2, sleep: 1}\n", 4,
       "to have interval"},
      {"tenants:\n  - namespace: t\n    priorityClassName: missing\n", 3, "PriorityClass \"missing\""},
      {"tenants:\n  - namespace: Tenant_1\n", 2, "RFC 1123"},
      {"tenants:\n  - namespace: t\n  - namespace: t\n", 3, "duplicate tenant"},
      {"tenants:\n  - namespace: t\n    quota: nope.yaml\n", 3, "nope.yaml"},
      {"failures:\n  - {at: 10, node: node-7, action: fail}\n", 2, "node-7"},
      {"failures:\n  - {at: 10, node: node-0, action: explode}\n", 2, "explode"},
      {"cluster: {nodes: 2, file: x.yaml}\n", 1, "one form"},
      {"cluster: {nodes: 0}\n", 1, "cluster.nodes"},
      {"sampleInterval: 0\n", 1, "positive"},
      {"eachTenantAlone: maybe\n", 1, "true or false"},
      {"model: fast\n", 1, "fast"},
      {"tenants: [{namespace: t, bursts: [[0, 1, 1G, 1, 1]]}]\njobs:\n  - manifest:\n      apiVersion: batch/v1\n"
       "      kind: Job\n      metadata: {name: t-b0-0, namespace: t, annotations: {kubesim.io/duration: '1'}}\n"
       "      spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}}\n",
       4, "duplicate Job \"t/t-b0-0\""},
      {"jobs:\n  - at: 5\n    manifest:\n      apiVersion: v1\n      kind: Pod\n      metadata: {name: p}\n"
       "      spec: {restartPolicy: Never, containers: [{name: c, image: i, command: [sleep]}]}\n",
       7, "sleep N"},
      {"jobs:\n  - manifest: {apiVersion: v1, kind: Namespace, metadata: {name: n}}\n", 2, "expected kind Job or Pod"},
      {"manifests:\n  - {apiVersion: v1, kind: Pod}\n", 2, "metadata"},
      {"name: [x\n", 2, "malformed YAML"},
      {"- a\n- b\n", 1, "to be a map"},
  };
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const std::string path = dir.write("bad" + std::to_string(i) + ".yaml", cases[i].text);
    testing::expect_input_error([&] { read_scenario(path); }, path, cases[i].line, cases[i].what);
  }
  // Errors inside included manifests name that file and line.
  const std::string inc = dir.write("inc.yaml", "manifests:\n  - file: deploy.yaml\n");
  testing::expect_input_error([&] { read_scenario(inc); }, dir.file("deploy.yaml"), 3, "Deployment");
  const std::string inc2 = dir.write("inc2.yaml", "tenants:\n  - {namespace: t, quota: [quota-other.yaml]}\n");
  testing::expect_input_error([&] { read_scenario(inc2); }, dir.file("quota-other.yaml"), 3,
                              "expected namespace \"t\"");
  EXPECT_THROW(read_scenario(dir.path() + "/does-not-exist.yaml"), InputError);
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

TEST(Scenario, SchedulersListWithConfigFilesAndCacheDelays) {
  const testing::ScratchDir dir;
  dir.write("flux.yaml", "matchPolicy: hinode\n");  // read (and checked) with the scenario
  const Scenario s = read_scenario(dir.write("s.yaml",
                                             "schedulers:\n"
                                             "  - setup: default-scheduler\n"
                                             "  - {setup: fluxion, config: flux.yaml, cacheDelay: 2.5}\n"));
  ASSERT_EQ(s.schedulers.size(), 2u);
  EXPECT_EQ(s.schedulers[0].setup, "default-scheduler");
  EXPECT_EQ(s.schedulers[0].config_file, "");
  EXPECT_EQ(s.schedulers[0].cache_delay, Duration());
  EXPECT_EQ(s.schedulers[1].setup, "fluxion");
  EXPECT_EQ(s.schedulers[1].config_file, dir.path() + "/flux.yaml");  // relative to the scenario
  EXPECT_EQ(s.schedulers[1].cache_delay, Duration::millis(2500));
  // The shipped example parses and lists its two schedulers.
  const Scenario shipped =
      read_scenario(kubesim::testing::source_dir() + "/examples/multi-scheduler/shared-cluster.yaml");
  EXPECT_EQ(setups_label(shipped.schedulers), "default-scheduler+fluxion");
}

TEST(Scenario, NamedFilesAreCheckedBeforeAnyJobIsGenerated) {
  const testing::ScratchDir dir;
  dir.write("flux.yaml", "policy: hinode\n");
  const std::string s = dir.write("s.yaml",
                                  "tenants:\n"
                                  "  - namespace: t1\n"
                                  "    streams: [{start: 0, cpu: 1, memory: 1Gi, jobs: 2000000, sleep: 60, interval: 1}]\n"
                                  "schedulers: [{setup: fluxion, config: flux.yaml}]\n");
  int checked = 0;
  try {
    read_scenario(s, [&](const Scenario&) { ++checked; });
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir.path() + "/flux.yaml");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.problem().find("unknown key \"policy\""), std::string::npos) << e.problem();
  }
  EXPECT_EQ(checked, 0);  // refused before the caller's check, and before the stream's jobs
  const std::string small = dir.write("t.yaml", "failures: [{at: 1, node: node-0, action: fail}]\n");
  (void)read_scenario(small, [&](const Scenario& sc) {
    ++checked;
    EXPECT_EQ(sc.inputs.actions.size(), 1u);  // the failures are read by then
    EXPECT_TRUE(sc.inputs.workload.jobs.empty());
  });
  EXPECT_EQ(checked, 1);
}

TEST(Scenario, SchedulersListErrorsNameTheLine) {
  const testing::ScratchDir dir;
  const auto error_of = [&](const std::string& text) {
    try {
      read_scenario(dir.write("s.yaml", text));
    } catch (const InputError& e) {
      return std::to_string(e.line()) + ": " + e.problem();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("schedulers:\n  - setup: fluxion\n  - setup: fluxion\n"),
            "3: expected each setup once in schedulers, got \"fluxion\" twice");
  EXPECT_EQ(error_of("schedulers:\n  - {setup: fluxion, config: nothere.yaml}\n").substr(0, 43),
            "2: expected schedulers[0].config \"nothere.y");
  EXPECT_EQ(error_of("schedulers:\n  - {setup: fluxion, delay: 1}\n").substr(0, 18), "2: unknown key \"de");
  EXPECT_EQ(error_of("schedulers: []\n"), "1: expected schedulers to list at least one scheduler setup");
}

}  // namespace
}  // namespace kubesim
