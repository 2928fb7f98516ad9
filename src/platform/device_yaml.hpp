// The `devices:` list of a node group in the cluster YAML (platform/cluster_yaml.cpp):
//
//   devices:
//     - class: nvidia.com/gpu   # default nvidia.com/gpu
//       model: V100M16          # optional
//       memory: 16Gi            # optional
//       count: 8                # default 1: that many identical devices
//       maxSharers: 4           # default 1: pods that may share one (share requests)
//
// Entries expand, in order, into the node's device list (model/devices.hpp). Bad entries
// fail with the file:line of the offending value.
#pragma once

#include <string>
#include <vector>

#include "core/yaml_input.hpp"
#include "model/devices.hpp"

namespace kubesim {

// Reads the list at `list` (`where` names it in messages) with `input`'s checks.
std::vector<Device> read_devices_yaml(const YamlInput& input, const YAML::Node& list, const std::string& where);

}  // namespace kubesim
