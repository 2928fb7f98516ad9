// The simulated cluster's nodes, as read from a SimGrid/Batsim platform or a cluster YAML.
#pragma once

#include <string>
#include <vector>

#include "model/objects.hpp"

namespace kubesim {

struct ClusterSpec {
  std::string source;       // file it was read from
  std::vector<Node> nodes;  // in file order: this is the scheduler's node list order
};

}  // namespace kubesim
