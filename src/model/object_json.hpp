// Model objects -> Kubernetes JSON, as the apiserver returns them (core/v1, batch/v1,
// policy/v1, scheduling.k8s.io/v1): the encoding half of the HTTP API facade's codec
// (api/json_codec.hpp, which adds the parsing half), in model/ so that layers below api/ send
// the same objects (kube-scheduler's extender client, sched/kube/extender/).
//
// Every field the Debian python3-kubernetes 22.6 models require is present and non-null.
// Objects a client created keep the client's JSON (`original`): the codec starts from a copy
// and overlays the fields the model owns (metadata.uid, resourceVersion, creationTimestamp,
// deletionTimestamp, deletionGracePeriodSeconds, ownerReferences, spec.nodeName, status, and
// the defaults the apiserver would add). Without `original` the spec is generated from the
// model (PodTemplate, Job, Node...).
//
// Deterministic: timestamps come from TimeFormat (a fixed epoch plus simulated time), uids
// from the object's kind and index, IPs from the object's index.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/time.hpp"
#include "model/object_store.hpp"
#include "model/objects.hpp"

namespace kubesim::api {

// Simulated time as wall-clock timestamps: SimTime zero is `epoch_unix_micros`.
struct TimeFormat {
  std::int64_t epoch_unix_micros = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z
  // metav1.Time (apimachinery/pkg/apis/meta/v1/time.go MarshalJSON): RFC 3339, seconds,
  // UTC: "2026-01-01T00:00:05Z".
  std::string time(SimTime t) const;
  // metav1.MicroTime (micro_time.go, RFC3339Micro): "2026-01-01T00:00:05.000000Z".
  std::string micro_time(SimTime t) const;
  // The SimTime of a unix time in microseconds (may be negative: before the epoch).
  SimTime from_unix_micros(std::int64_t unix_micros) const {
    return SimTime::at(Duration::micros(unix_micros - epoch_unix_micros));
  }
};

// Parses an RFC 3339 timestamp ("2026-01-01T00:00:05Z", "...05.123456Z", "...05+02:00")
// into unix microseconds (fraction digits beyond 6 are truncated). nullopt if malformed.
std::optional<std::int64_t> parse_rfc3339_micros(std::string_view text);

// A deterministic, UUID-shaped uid: the same kind and index always give the same uid,
// different kinds or indexes different ones. E.g. object_uid("Pod", 3).
std::string object_uid(std::string_view kind, std::uint32_t index);

// The deterministic IPs: a node's InternalIP (status.hostIP of its pods) and a started pod's
// status.podIP.
std::string node_ip(NodeId node);
std::string pod_ip(PodId pod);

// pkg/apis/core/v1/helper/qos/qos.go GetPodQOS: "Guaranteed", "Burstable" or "BestEffort".
std::string pod_qos_class(const PodTemplate& spec, const ResourceNames& names);

// A PodSpec generated from a template (used for pods and for a Job's spec.template).
// `run_time` becomes the container command ["sleep", "<seconds>"] unless Duration::max().
nlohmann::json pod_spec_to_json(const PodTemplate& spec, const ResourceNames& names, Duration run_time,
                                Duration active_deadline);

nlohmann::json pod_to_json(const ObjectStore& store, PodId id, const TimeFormat& tf,
                           const nlohmann::json* original = nullptr);
nlohmann::json node_to_json(const ObjectStore& store, NodeId id, const TimeFormat& tf,
                            const nlohmann::json* original = nullptr);
nlohmann::json namespace_to_json(const ObjectStore& store, NamespaceId id, const TimeFormat& tf,
                                 const nlohmann::json* original = nullptr);
nlohmann::json job_to_json(const ObjectStore& store, JobId id, const TimeFormat& tf,
                           const nlohmann::json* original = nullptr);
nlohmann::json quota_to_json(const ObjectStore& store, QuotaId id, const TimeFormat& tf,
                             const nlohmann::json* original = nullptr);
// PriorityClasses and PDBs have no resourceVersion in the store: the caller passes it.
// `index` is the object's position in the store's vector (for the uid).
nlohmann::json priority_class_to_json(const PriorityClass& pc, std::uint32_t index, std::uint64_t resource_version,
                                      const TimeFormat& tf, const nlohmann::json* original = nullptr);

// The disruption controller's numbers (pkg/controller/disruption/disruption.go): pods the
// selector matches (expectedPods) and those of them Running and not terminating
// (currentHealthy). desiredHealthy and disruptionsAllowed are derived from the budget.
struct PdbStatus {
  std::int32_t expected_pods = 0;
  std::int32_t current_healthy = 0;
};
nlohmann::json pdb_to_json(const ObjectStore& store, const PodDisruptionBudget& pdb, std::uint32_t index,
                           std::uint64_t resource_version, const PdbStatus& status, const TimeFormat& tf,
                           const nlohmann::json* original = nullptr);

}  // namespace kubesim::api
