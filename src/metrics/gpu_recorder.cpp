#include "metrics/gpu_recorder.hpp"

#include "engine/gpu_workload.hpp"

namespace kubesim {

bool GpuRecorder::cluster_has_gpus(const ObjectStore& store) {
  const int slot = store.resource_names().find(kGpuDeviceClass);
  for (std::uint32_t i = 0; i < store.node_count(); ++i) {
    const Node& n = store.node(NodeId(i));
    for (const Device& d : n.devices)
      if (d.device_class == kGpuDeviceClass) return true;
    if (n.devices.empty() && slot >= 0 && n.allocatable[static_cast<std::size_t>(slot)] > 0) return true;
  }
  return false;
}

GpuRecorder::GpuRecorder(const Simulation& sim, std::shared_ptr<const TypicalPods> typical)
    : sim_(sim), typical_(std::move(typical)) {
  if (!typical_) {
    const TypicalPods& scheduler_typical = sim_.scheduler().typical_pods();
    typical_ = std::make_shared<const TypicalPods>(
        scheduler_typical.empty() ? workload_typical_pods(sim_.workload(), sim_.store().resource_names())
                                  : scheduler_typical);
  }
  series_.typical_pods = typical_->size();
}

// The nodes' GPUs as the cluster declares them (a node's devices, or its anonymous GPUs), all
// free, on the first change: the nodes exist by then.
void GpuRecorder::ensure_nodes() {
  const ObjectStore& store = sim_.store();
  if (nodes_.size() == store.node_count()) return;
  const int slot = store.resource_names().find(kGpuDeviceClass);
  for (std::uint32_t i = static_cast<std::uint32_t>(nodes_.size()); i < store.node_count(); ++i) {
    const Node& n = store.node(NodeId(i));
    NodeGpus g;
    g.state.cpu_capacity = n.allocatable[kCpu];
    g.state.cpu_left = n.allocatable[kCpu];
    const std::int64_t anonymous = slot >= 0 && n.devices.empty() ? n.allocatable[static_cast<std::size_t>(slot)] : 0;
    for (std::size_t d = 0; d < n.devices.size() && g.state.gpus < kMaxGpusPerNode; ++d) {
      if (n.devices[d].device_class != kGpuDeviceClass) continue;
      g.state.device[g.state.gpus] = static_cast<std::uint16_t>(d);
      g.state.left[g.state.gpus++] = kDeviceShareUnits;
      if (!g.state.model) g.state.model = &n.devices[d].model;
    }
    for (std::int64_t d = 0; d < anonymous && g.state.gpus < kMaxGpusPerNode; ++d) {
      g.state.device[g.state.gpus] = static_cast<std::uint16_t>(d);
      g.state.left[g.state.gpus++] = kDeviceShareUnits;
    }
    g.access = model_access(*typical_, g.state.model);
    g.frag = node_frag_amount(g.state, *typical_, g.access);
    series_.gpus += g.state.gpus;
    series_.capacity_milli += static_cast<std::int64_t>(g.state.gpus) * kDeviceShareUnits;
    current_.free_gpus += g.state.gpus;
    current_.free_milli += static_cast<std::int64_t>(g.state.gpus) * kDeviceShareUnits;
    current_.frag_milli += g.frag;
    nodes_.push_back(std::move(g));
  }
  active_ = series_.gpus > 0;
}

void GpuRecorder::refresh(NodeId node) {
  NodeGpus& g = nodes_[node.value()];
  current_.frag_milli -= g.frag;
  g.frag = node_frag_amount(g.state, *typical_, g.access);
  current_.frag_milli += g.frag;
  dirty_ = true;
}

void GpuRecorder::hold(PodId pod, NodeId node, SimTime now) {
  const Pod& p = sim_.store().pod(pod);
  NodeGpus& g = nodes_[node.value()];
  Held& h = held_[pod.value()];
  h.node = node;
  h.first_interval = static_cast<std::uint32_t>(series_.devices.size());
  cpu_held_[pod.value()] = sim_.store().spec_of(pod).requests[kCpu];
  g.state.cpu_left -= cpu_held_[pod.value()];
  for (const DeviceGrant& grant : p.devices()) {
    for (std::size_t i = 0; i < g.state.gpus; ++i) {
      if (g.state.device[i] != grant.device) continue;
      current_.free_gpus -= g.state.left[i] == kDeviceShareUnits;
      g.state.left[i] -= grant.share;
      (grant.share >= kDeviceShareUnits ? current_.whole_milli : current_.shared_milli) += grant.share;
      current_.free_milli -= grant.share;
      series_.devices.push_back(DeviceInterval{node, grant.device, pod, grant.share, now});
      ++h.intervals;
    }
  }
  refresh(node);
}

void GpuRecorder::release(PodId pod, SimTime now) {
  Held& h = held_[pod.value()];
  NodeGpus& g = nodes_[h.node.value()];
  g.state.cpu_left += cpu_held_[pod.value()];
  for (std::uint32_t k = 0; k < h.intervals; ++k) {
    DeviceInterval& d = series_.devices[h.first_interval + k];
    d.end = now;
    for (std::size_t i = 0; i < g.state.gpus; ++i) {
      if (g.state.device[i] != d.device) continue;
      g.state.left[i] += d.share;
      current_.free_gpus += g.state.left[i] == kDeviceShareUnits;
      (d.share >= kDeviceShareUnits ? current_.whole_milli : current_.shared_milli) -= d.share;
      current_.free_milli += d.share;
    }
  }
  const NodeId node = h.node;
  h = Held{};
  refresh(node);
}

void GpuRecorder::sample(SimTime now) {
  if (!dirty_) return;
  if (!series_.samples.empty() && series_.samples.back().time == now) {
    series_.samples.back() = current_;
  } else {
    series_.samples.push_back(current_);
  }
  series_.samples.back().time = now;
  dirty_ = false;
}

void GpuRecorder::on_change(const Change& c) {
  if (c.kind != ObjectKind::kPod) return;
  ensure_nodes();
  if (!active_) return;
  const SimTime now = sim_.now();
  if (series_.samples.empty()) {  // the cluster before its first pod change
    series_.samples.push_back(current_);
    series_.samples.back().time = SimTime::zero();
  }
  const PodId pod(c.id);
  if (held_.size() <= c.id) {
    held_.resize(c.id + 1);
    cpu_held_.resize(c.id + 1, 0);
  }
  const bool holds = c.node.valid() && c.node.value() < nodes_.size() && !is_terminal(c.phase) &&
                     c.type != ChangeType::kDeleted;
  const NodeId was = held_[c.id].node;
  if (was.valid() && (!holds || was != c.node)) release(pod, now);
  if (holds && !held_[c.id].node.valid()) hold(pod, c.node, now);
  sample(now);
}

void GpuRecorder::finish() { sample(sim_.now()); }

}  // namespace kubesim
