// Reads the Pods and Events of one namespace from a live cluster's API server, found through
// a kubeconfig (its current context's cluster.server, and the user's token when it has one),
// and turns them into timelines (measurements.hpp). Plain HTTP only: kubesim serve, or a
// real cluster through `kubectl proxy` (which adds the credentials and TLS).
#pragma once

#include <string>

#include "calibrate/measurements.hpp"

namespace kubesim::calibrate {

struct LiveClusterQuery {
  std::string kubeconfig;
  std::string namespace_name = "default";
  double since_unix = kUnknown;  // pods created in [since, until]; NaN: unbounded
  double until_unix = kUnknown;
};

// Throws InputError on an unusable kubeconfig, an unreachable server or an error status.
MeasuredRun read_live_cluster(const LiveClusterQuery& q);

// The API server of a kubeconfig's current context (clusters[].cluster.server, http:// only)
// and its user's bearer token. InputError (file, line) on anything else.
struct ClusterEndpoint {
  std::string server;  // http://host:port
  std::string token;
};
ClusterEndpoint read_kubeconfig_endpoint(const std::string& path);

}  // namespace kubesim::calibrate
