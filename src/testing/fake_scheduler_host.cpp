#include "testing/fake_scheduler_host.hpp"

#include <algorithm>
#include <utility>

namespace kubesim::testing {

std::variant<PodTemplateId, std::string> FakeSchedulerHost::add_pod_template(PodTemplate spec) {
  if (!store_) return SchedulerHost::add_pod_template(std::move(spec));
  return store_->add_template(std::move(spec));
}

std::variant<PodId, std::string> FakeSchedulerHost::create_pod(std::string name, NamespaceId ns, PodTemplateId spec) {
  if (!store_) return SchedulerHost::create_pod(std::move(name), ns, spec);
  Pod pod;
  pod.name = std::move(name);
  pod.ns = ns;
  pod.spec = spec;
  pod.workload_job = kNoWorkloadJob;
  pod.run_time = Duration::max();  // a pause container: runs until deleted
  pod.created = now_;
  return store_->create_pod(std::move(pod));
}

void FakeSchedulerHost::on_change(const Change& change) {
  if (!model_) return;
  switch (change.kind) {
    case ObjectKind::kNode:
      model_->on_node_change(change, now_);
      break;
    case ObjectKind::kPod:
      model_->on_pod_change(change, now_);
      break;
    default:
      break;
  }
}

void FakeSchedulerHost::run_until(SimTime until) {
  for (;;) {
    const auto next = std::min_element(posted_.begin(), posted_.end(), [](const Posted& a, const Posted& b) {
      if (a.at != b.at) return a.at < b.at;
      if (a.phase != b.phase) return a.phase < b.phase;
      return a.seq < b.seq;
    });
    if (next == posted_.end() || next->at > until) break;
    const Posted p = *next;
    posted_.erase(next);
    now_ = p.at;
    if (model_) model_->on_event(p.event, now_);
  }
  now_ = until;
}

}  // namespace kubesim::testing
