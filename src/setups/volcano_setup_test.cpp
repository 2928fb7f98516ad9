// The volcano setup: the workload's PodGroups and queue annotations, Volcano Jobs.
#include "setups/volcano_setup.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sched/volcano/volcano.hpp"
#include "setups/parallel_jobs.hpp"
#include "testing/builders.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

constexpr const char* kJob = R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research}
spec: {weight: 2}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: mpi
  namespace: lab
  annotations: {kubesim.io/submit-at: "7"}
spec:
  minAvailable: 3
  queue: research
  tasks:
  - {name: master, template: {metadata: {annotations: {kubesim.io/duration: "30"}},
                               spec: {restartPolicy: Never, containers: [{name: m, image: busybox,
                                                                          resources: {requests: {cpu: "1"}}}]}}}
  - name: worker
    replicas: 3
    template:
      metadata: {annotations: {kubesim.io/duration: "30"}}
      spec:
        restartPolicy: Never
        containers: [{name: w, image: busybox, resources: {requests: {cpu: "2"}}}]
)";

TEST(VolcanoSetup, AVolcanoJobBecomesItsPodsAndPodGroup) {
  const testing::ScratchDir dir;
  SimulationInputs in;
  volcano::Config config = volcano::load_config(dir.write("vc.yaml", kJob), in.resource_names);
  add_volcano_jobs(dir.path() + "/vc.yaml", in, config);
  ASSERT_EQ(in.workload.jobs.size(), 4u);
  const WorkloadJob& w1 = in.workload.jobs[1];
  EXPECT_EQ(w1.name, "mpi-worker-0");
  EXPECT_EQ(in.workload.namespaces[w1.ns.value()], "lab");
  EXPECT_EQ(w1.submit, SimTime::from_seconds(7));
  const PodTemplate& t = in.workload.templates[w1.pod_template];
  EXPECT_EQ(t.scheduler_name, "volcano");
  EXPECT_EQ(*find_label(t.annotations, volcano::kGroupNameAnnotation), "mpi");
  ASSERT_EQ(config.pod_groups.size(), 1u);
  const volcano::PodGroupSpec& g = config.pod_groups[0];
  EXPECT_EQ(g.name, "mpi");
  EXPECT_EQ(g.queue, "research");
  EXPECT_EQ(g.min_member, 3);
  // calcPGMinResources: the first three pods, master then two workers.
  EXPECT_EQ(g.min_resources[kCpu], 5000);
}

TEST(VolcanoSetup, ParallelJobsGetAPodGroupOfTheirRanks) {
  SimulationInputs in;
  PodTemplate t = testing::PodTemplateBuilder().cpu("1").scheduler("volcano");
  in.workload.templates.push_back(t);
  WorkloadJob j;
  j.id = "7";
  j.machines = 4;
  in.workload.jobs.push_back(j);
  install_volcano(in, SetupOptions{});
  const PodTemplate& own = in.workload.templates[in.workload.jobs[0].pod_template];
  EXPECT_EQ(*find_label(own.annotations, volcano::kGroupNameAnnotation), parallel_job_name(in.workload, in.workload.jobs[0]));
  ASSERT_EQ(in.other_schedulers.size(), 1u);
}

}  // namespace
}  // namespace kubesim
