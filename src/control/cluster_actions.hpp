// Scheduled changes to the cluster's nodes, as an operator or an outage makes them:
// node failure and recovery, cordon/uncordon and drain. Given in a scenario, applied by the
// node lifecycle model (node_lifecycle.hpp) at their simulated times.
#pragma once

#include <cstdint>
#include <string>

#include "core/time.hpp"

namespace kubesim {

struct ClusterAction {
  enum class Kind : std::uint8_t {
    kFail,      // the node stops (kubelet and containers gone); see node_lifecycle.hpp
    kRecover,   // the node is back: Ready, untainted, schedulable
    kCordon,    // kubectl cordon: spec.unschedulable = true
    kUncordon,  // kubectl uncordon
    kDrain,     // kubectl drain: cordon, then evict every pod on the node (graceful)
  };
  SimTime at;
  Kind kind = Kind::kFail;
  std::string node;  // node name
  std::uint32_t line = 0;  // where it was given, for error messages
};

const char* to_string(ClusterAction::Kind k);

}  // namespace kubesim
