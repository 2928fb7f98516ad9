// ResourceQuota: the admission plugin that charges a pod's usage at creation
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go, with the
// pod evaluator of pkg/quota/v1/evaluator/core/pods.go) and the quota controller that gives
// the usage back when a pod stops counting (pkg/controller/resourcequota/, replenishment on
// a pod becoming terminal or being deleted, as its informer hears of it).
//
// A pod counts while it is not Succeeded/Failed (QuotaV1Pod). Upstream also stops charging
// a terminating pod once its deletion timestamp plus grace period has passed; kubesim's
// kubelet removes a deleted pod by then, so that case ends the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/object_store.hpp"

namespace kubesim {

class ResourceQuotaAdmission {
 public:
  explicit ResourceQuotaAdmission(ObjectStore& store) : store_(store) {}

  // Admission of a pod CREATE in namespace `ns` with name `pod_name`: nullopt when
  // admitted (its usage is then charged to every quota of the namespace), else upstream's
  // 403 message, e.g. `pods "x" is forbidden: exceeded quota: tenant1, requested:
  // requests.cpu=4, used: requests.cpu=128, limited: requests.cpu=128`.
  std::optional<std::string> admit(NamespaceId ns, const std::string& pod_name, const PodTemplate& spec);
  // Records that the pod created after a successful admit() got `id`.
  void charged(PodId id);
  // The quota controller heard of this pod change: a pod that stopped counting (terminal
  // or deleted) gives its usage back.
  void on_pod_change(const Change& change);

 private:
  static std::int64_t usage(const QuotaItem& item, const PodTemplate& spec, const Resources& limits);

  ObjectStore& store_;
  std::vector<std::uint8_t> charged_;  // by PodId: 1 while the pod's usage is charged
  bool last_admitted_charged_ = false;
};

}  // namespace kubesim
