// `serve --apply PATH`: objects created through the API before anything else talks to it
// (CustomResourceDefinitions first, as `kubectl apply -f` of a directory would need them,
// then the objects of their kinds: a program started with --scheduler-command, such as
// scheduler-plugins' kube-scheduler, needs its CRDs served from its first request).
#pragma once

#include <string>

#include "api/api_server.hpp"

namespace kubesim::api {

// Creates every object of the YAML file `path` (several documents), or of every *.yaml and
// *.yml file of the directory `path` in name order, CRDs of all files first. Throws
// InputError (FILE:LINE: what the API answered, e.g. 422's message) on the first refused one.
void apply_manifests(ApiServer& server, const std::string& path);

}  // namespace kubesim::api
