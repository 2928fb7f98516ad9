// Test fixture: a ready node with only cpu and memory allocatable (= capacity).
#pragma once

#include <cstdint>
#include <string>

#include "model/objects.hpp"

namespace kubesim {

inline Node test_node(std::string name, std::int64_t cpu_milli, std::int64_t memory_bytes) {
  Node n;
  n.name = std::move(name);
  n.allocatable[kCpu] = cpu_milli;
  n.allocatable[kMemory] = memory_bytes;
  n.capacity = n.allocatable;
  return n;
}

}  // namespace kubesim
