// Reads a SimGrid/Batsim platform XML (the format Batkube took its nodes from) into nodes.
//
// Which hosts become nodes, and with what resources (after batkube pkg/translate/translate.go
// ComputeResourcesToNodes and Batsim's host roles, batsim src/machines.cpp):
//   - <host id=.. core=..> anywhere below <platform>, nested in <zone>/<AS> at any depth, and
//     the hosts a <cluster prefix suffix radical core> (or the older <cabinet>) expands to:
//     prefix + i + suffix for every i of radical ("0-511", "0-3,5,7-9"), in radical order.
//   - A host (or cluster) with <prop id="role" value="master"/> or "storage" is not a node
//     (Batsim's master host and storage resources); "compute_node" or no role is a node; any
//     other role is an error, as in Batsim.
//   - cpu allocatable = <prop id="core"> if present, parsed as a Kubernetes quantity (Batkube
//     copied the prop string into status.capacity.cpu), else the core attribute (an integer,
//     SimGrid's default 1), in whole cores.
//   - memory = <prop id="memory"> as a Kubernetes quantity ("4Gi"). Without it the node has
//     0 bytes of memory, as Batkube's node had an empty memory quantity: pods that request
//     memory then never fit. (A default the caller may want to revisit.)
//   - Props inside a <cluster> apply to all of its hosts (a <host> cannot sit inside a
//     <cluster>, so there is nothing to merge). Props of enclosing zones are ignored.
//   - Node name = host id; labels {kubernetes.io/hostname: name}; pods = 110 (Batkube's
//     fixed value); capacity = allocatable. Nodes are in document order.
// Errors (unreadable file, malformed XML, bad core/memory/role values, duplicate host ids, no
// compute host) throw InputError(path, line, what was expected).
#pragma once

#include <string>

#include "model/resources.hpp"
#include "platform/cluster.hpp"

namespace kubesim {

ClusterSpec read_simgrid_platform(const std::string& path, ResourceNames& names);

}  // namespace kubesim
