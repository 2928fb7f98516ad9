#include "setups/parallel_jobs.hpp"

#include "core/quantity.hpp"

namespace kubesim {

std::string parallel_job_name(const Workload& w, const WorkloadJob& j) {
  return !j.name.empty() ? j.name : w.name + "-" + j.id;
}

std::vector<PodGroupObject> parallel_job_pod_groups(const Workload& w) {
  std::vector<PodGroupObject> groups;
  for (const WorkloadJob& j : w.jobs) {
    if (!is_parallel_job(j)) continue;
    PodGroupObject pg;
    pg.ns = w.namespaces[j.ns.value()];
    pg.name = parallel_job_name(w, j);
    pg.min_member = static_cast<std::int32_t>(j.machines);
    pg.created = j.submit;  // created with the job's pods (Coscheduling's Less sorts by it)
    groups.push_back(std::move(pg));
  }
  return groups;
}

namespace {

bool is_parallel_job_of(const Workload& w, const WorkloadJob& j, const std::string& scheduler_name) {
  return is_parallel_job(j) && w.templates[j.pod_template].scheduler_name == scheduler_name;
}

// The job's own copy of its template (a reference into w.templates, valid until the next
// push_back).
PodTemplate& own_template(Workload& w, WorkloadJob& j) {
  w.templates.push_back(w.templates[j.pod_template]);
  j.pod_template = static_cast<std::uint32_t>(w.templates.size() - 1);
  return w.templates.back();
}

}  // namespace

void label_parallel_job_pod_groups(Workload& w, const std::string& scheduler_name) {
  for (WorkloadJob& j : w.jobs)
    if (is_parallel_job_of(w, j, scheduler_name)) set_label(own_template(w, j).labels, kPodGroupLabel, parallel_job_name(w, j));
}

void annotate_parallel_job_task_groups(Workload& w, const ResourceNames& names, const std::string& scheduler_name) {
  for (WorkloadJob& j : w.jobs) {
    if (!is_parallel_job_of(w, j, scheduler_name)) continue;
    PodTemplate& t = own_template(w, j);
    // minResource: one rank's requests (the placeholders must fit where the ranks go).
    PodTemplate effective = t;
    effective.finalize();
    std::string resources;
    for (std::size_t r = 0; r < names.size(); ++r) {
      if (effective.requests[r] == 0) continue;
      resources += std::string(resources.empty() ? "" : ", ") + "\"" + names.name(r) + "\": \"" +
                   format_quantity(effective.requests[r], r == kCpu) + "\"";
    }
    set_label(t.annotations, "yunikorn.apache.org/task-group-name", kParallelJobTaskGroup);
    set_label(t.annotations, "yunikorn.apache.org/task-groups",
              std::string("[{\"name\": \"") + kParallelJobTaskGroup + "\", \"minMember\": " +
                  std::to_string(j.machines) + ", \"minResource\": {" + resources + "}}]");
  }
}

void parallel_jobs_as_indexed_jobs(Workload& w, const std::string& scheduler_name) {
  for (WorkloadJob& j : w.jobs) {
    // Every Batsim job of machines, one machine too: what bypassed Kueue would use the
    // machines its quota counts as free.
    if (j.machines == 0 || j.as_job || w.templates[j.pod_template].scheduler_name != scheduler_name) continue;
    j.as_job = true;
    j.indexed = true;
    j.parallelism = static_cast<std::int32_t>(j.machines);
    j.completions = static_cast<std::int32_t>(j.machines);
    j.backoff_limit = 0;
  }
}

}  // namespace kubesim
