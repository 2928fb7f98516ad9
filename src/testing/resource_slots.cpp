#include "testing/resource_slots.hpp"

namespace kubesim::testing {

namespace {

void request(Container& c, std::size_t slot, std::int64_t amount) {
  c.requests[slot] = amount;
  c.requested_mask |= 1u << slot;
}

}  // namespace

Container container_of(const SlotRequests& r) {
  Container c;
  if (r.cpu) request(c, kCpu, *r.cpu);
  if (r.mem) request(c, kMemory, *r.mem);
  if (r.ephemeral) request(c, kEphemeralStorage, r.ephemeral);
  if (r.gpu) request(c, kFirstExtendedSlot, r.gpu);
  return c;
}

PodTemplate pod_of(const std::vector<SlotRequests>& containers) {
  PodTemplate t;
  for (const auto& r : containers) t.containers.push_back(container_of(r));
  t.finalize();
  return t;
}

Node node_of(std::int64_t milli_cpu, std::int64_t mem, std::int64_t gpu) {
  Node n;
  n.allocatable[kCpu] = milli_cpu;
  n.allocatable[kMemory] = mem;
  n.allocatable[kFirstExtendedSlot] = gpu;
  n.capacity = n.allocatable;
  return n;
}

NodeInfo node_info_of(const Node& n, const std::vector<PodTemplate>& existing) {
  NodeInfo ni;
  ni.set_node(NodeId(0), n);
  for (const auto& p : existing) ni.add_pod(p, +1);
  return ni;
}

}  // namespace kubesim::testing
