// Test data for the tenant report tests (unit and browser): two tenants on two nodes, five
// samples 0..4 s, capacity 8 cores. Values are chosen so that every figure is easy to check by
// hand; they need not be consistent with each other.
#pragma once

#include <string>
#include <vector>

#include "metrics/tenant_metrics.hpp"
#include "model/object_store.hpp"
#include "report/tenant_report.hpp"
#include "testing/builders.hpp"

namespace kubesim::testdata {

struct TenantReportFixture {
  ObjectStore store;
  TenantTimeSeries series;
  RunSummary summary;

  TenantReportFixture() {
    const PodTemplateId spec = store.add_template(testing::PodTemplateBuilder().cpu("4").no_limits());
    for (const char* name : {"node-a", "node-b"}) store.create_node(testing::NodeBuilder(name));
    const NamespaceId t1 = store.ensure_namespace("tenant1");
    const NamespaceId t2 = store.ensure_namespace("tenant2");
    const NodeId a(0);
    const NodeId b(1);
    // p0: tenant1 on node-a [1, 3], succeeded.  p1: tenant2 on node-a [2, 4], preempted.
    // p2: tenant1 on node-b [2, -), running at the end.  p3: tenant2, pending (no bar).
    // p4: tenant1 on node-b [0, 1], exited 1.
    pod("p0", t1, spec, a, 1, 3, PodPhase::kSucceeded, DisruptionReason::kNone);
    pod("p1", t2, spec, a, 2, 4, PodPhase::kFailed, DisruptionReason::kPreemptionByScheduler);
    pod("p2", t1, spec, b, 2, -1, PodPhase::kRunning, DisruptionReason::kNone);
    pod("p3", t2, spec, NodeId(), -1, -1, PodPhase::kPending, DisruptionReason::kNone);
    pod("p4", t1, spec, b, 0, 1, PodPhase::kFailed, DisruptionReason::kNone);

    series.tenants = {"tenant1", "tenant2"};
    series.interval = Duration::seconds(1);
    for (int t = 0; t <= 4; ++t) series.times.push_back(SimTime::from_seconds(t));
    // {pending, running, completed, preempted} in millicores, tenant1 then tenant2 per sample.
    series.samples = {
        {4000, 4000, 0, 0}, {500, 0, 0, 0},    // t = 0
        {0, 8000, 0, 0},    {500, 0, 0, 0},    // t = 1
        {0, 4000, 4000, 0}, {0, 500, 0, 0},    // t = 2
        {0, 4000, 4000, 0}, {0, 0, 0, 500},    // t = 3
        {0, 1500, 8000, 0}, {0, 0, 0, 500},    // t = 4
    };
    series.pending_pods = {2, 1, 0, 0, 0};
    series.capacity_milli = 8000;

    // Tenant, Jobs, completed, failed pods, cores (milli), queue s (total, average), run s, queue + run s,
    // makespan s, queue times (unused).
    summary.tenants = {TenantSummary{"tenant1", 3, 1, 1, 12000, 1.5, 0.5, 3, 4.5, 4, {}},
                       TenantSummary{"tenant2", 2, 0, 1, 4500, 2, 2, 2, 4, 3.25, {}}};
    summary.utilisation = 0.6;
    summary.end = SimTime::from_seconds(4);
  }

  TenantReportInput input() const {
    TenantReportInput in{series, summary, store, "E9 test", "e9.yaml", 42, "ideal & fast"};
    in.parameters = {{"scheduler", "default-scheduler"}};
    return in;
  }

 private:
  void pod(const char* name, NamespaceId ns, PodTemplateId spec, NodeId node, double started, double finished,
           PodPhase phase, DisruptionReason disruption) {
    Pod p;
    p.name = name;
    p.ns = ns;
    p.spec = spec;
    p.created = SimTime::zero();
    p.node = node;
    if (started >= 0) p.started = SimTime::from_seconds(started);
    if (finished >= 0) p.finished = SimTime::from_seconds(finished);
    p.phase = phase;
    p.disruption = disruption;
    if (phase == PodPhase::kFailed && disruption == DisruptionReason::kNone) p.exit_code = 1;
    store.create_pod(p);
  }
};

}  // namespace kubesim::testdata
