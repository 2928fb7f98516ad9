#include "study/openb/openb_protocol.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_map>

#include "core/error.hpp"
#include "core/random.hpp"
#include "sched/kube/plugins/gpu_clustering_score/gpu_clustering_score.hpp"
#include "sched/kube/plugins/open_gpu_share/open_gpu_share.hpp"
#include "sched/kube/plugins/random_score/random_score.hpp"

namespace kubesim::openb {
namespace {

// A node state as the fragmentation sees it: free cpu, model, and the free milli of its
// devices as a multiset (sorted, 10 bits each). The authors memoise fragmentation on the same
// key (NodeResource.Flatten: cpu, sorted free milli, model).
struct StateKey {
  std::int64_t cpu = 0;
  std::uint64_t low = 0;   // devices 0..5 of the sorted list
  std::uint64_t high = 0;  // devices 6..7, model, device count
  bool operator==(const StateKey&) const = default;
};

struct StateKeyHash {
  std::size_t operator()(const StateKey& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.cpu) * 0x9E3779B97F4A7C15ULL;
    h ^= k.low + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
    h ^= k.high + 0x85157AF5ULL + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

constexpr int kProtocolMaxGpus = 8;  // the openb nodes; the key packs 8 devices

// Node states interned to dense ids, each with its fragmentation for the typical pods
// (cluster/gpu_frag.hpp node_frag): the amount, its q1+q2+q4 part and the idle GPU milli.
class FragMemo {
 public:
  FragMemo(const TypicalPods& typical, const std::vector<std::string>& models) : typical_(typical), models_(models) {}

  void start() {
    access_.clear();
    access_.push_back(model_access(typical_, nullptr));
    for (const std::string& m : models_) access_.push_back(model_access(typical_, &m));
  }
  std::int32_t model_index(const GpuNodeState& s) const {
    return s.model ? static_cast<std::int32_t>(s.model - models_.data()) : -1;
  }
  std::span<const std::uint8_t> access(const GpuNodeState& s) const {
    return access_[static_cast<std::size_t>(model_index(s) + 1)];
  }

  std::uint32_t id(const GpuNodeState& s) {
    GpuNodeState sorted = s;
    std::sort(sorted.left.begin(), sorted.left.begin() + s.gpus, std::greater<>());
    for (std::uint8_t i = 0; i < s.gpus; ++i) sorted.device[i] = i;
    StateKey k;
    k.cpu = sorted.cpu_left;
    for (int i = 0; i < kProtocolMaxGpus; ++i) {
      const auto v = static_cast<std::uint64_t>(sorted.left[static_cast<std::size_t>(i)]) & 0x3FF;
      if (i < 6) k.low |= v << (10 * i);
      else k.high |= v << (10 * (i - 6));
    }
    k.high |= (static_cast<std::uint64_t>(model_index(s) + 1) & 0xFF) << 20;
    k.high |= static_cast<std::uint64_t>(s.gpus) << 28;
    const auto [it, inserted] = ids_.try_emplace(k, static_cast<std::uint32_t>(states_.size()));
    if (inserted) {
      states_.push_back(sorted);
      const FragAmount f = node_frag(sorted, typical_, access(sorted));
      double idle = 0;
      for (double v : f) idle += v;
      const auto q = [&](FragKind kind) { return f[static_cast<std::size_t>(kind)]; };
      sums_.push_back({frag_sum(f), q(FragKind::kQ1LackBoth) + q(FragKind::kQ2LackGpu) + q(FragKind::kQ4LackCpu), idle});
    }
    return it->second;
  }
  const GpuNodeState& state(std::uint32_t id) const { return states_[id]; }
  // The state's fragmentation amount, its q1+q2+q4 part and its idle GPU milli.
  const std::array<double, 3>& sums(std::uint32_t id) const { return sums_[id]; }
  double frag(std::uint32_t id) const { return sums_[id][0]; }
  std::size_t size() const { return states_.size(); }

 private:
  const TypicalPods& typical_;
  const std::vector<std::string>& models_;
  std::vector<std::vector<std::uint8_t>> access_;  // by model index + 1
  std::unordered_map<StateKey, std::uint32_t, StateKeyHash> ids_;
  std::vector<GpuNodeState> states_;
  std::vector<std::array<double, 3>> sums_;
};

struct ArrivingPod {
  GpuShape shape;            // as the scores see it (cpu: the non-zero request)
  std::uint64_t models = 0;  // the accepted models as a mask over the cluster's (0: any)
  std::int64_t cpu_request;  // as the resource filter and the node's books see it
  std::int64_t memory_mib;
  std::uint32_t shape_id;    // the distinct shape of the FGD memo
};

// What the filters read of a node, apart from the rest so that the scan over all nodes for
// every pod stays in cache.
struct NodeFit {
  std::int64_t cpu_left = 0;
  std::int64_t memory_left = 0;
  std::int32_t model = -1;
  std::int32_t gpus = 0;
  std::int32_t max_left = 0;    // the most free milli of one device
  std::int32_t fully_free = 0;  // wholly free devices
};

struct NodeBook {
  GpuNodeState state;
  std::vector<std::int32_t> tags;  // GpuClustering's affinity tag of each GPU pod on the node
  std::uint32_t state_id = 0;
  bool used = false;
};

std::uint64_t model_mask(const std::vector<std::string>& wanted, const std::vector<std::string>& models) {
  std::uint64_t mask = 0;
  for (const std::string& m : wanted) {
    const auto it = std::lower_bound(models.begin(), models.end(), m);
    mask |= std::uint64_t{1} << (it - models.begin());
  }
  return mask;
}

GpuShape shape_of(const OpenbPod& p) {
  GpuShape s;
  s.cpu = p.cpu_milli == 0 ? 100 : p.cpu_milli;  // the scheduler's non-zero cpu request
  s.milli = p.gpu_milli;
  s.count = p.num_gpu;
  for (const std::string& m : p.models) s.models += (s.models.empty() ? "" : "|") + m;
  return s;
}

template <typename T>
void shuffle(std::vector<T>& v, RandomStream& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.uniform_below(i)]);
}

class Protocol {
 public:
  Protocol(const OpenbTrace& trace, const ProtocolOptions& o)
      : trace_(trace), options_(o), memo_(typical_, trace.models), rng_random_score_(o.seed, kRandomScoreStream),
        rng_random_gpu_(o.seed, kOpenGpuShareStream) {}
  ProtocolResult run();

 private:
  std::vector<std::size_t> arrivals();
  void build_nodes();
  static bool feasible(const NodeFit& n, const ArrivingPod& p);
  std::int64_t fgd_state_score(std::uint32_t state, const ArrivingPod& p);
  int choose_node(const ArrivingPod& p);
  DeviceGrants place(std::size_t node, const ArrivingPod& p);
  ProtocolStep step(std::int64_t arrived) const;

  const OpenbTrace& trace_;
  ProtocolOptions options_;
  TypicalPods typical_;
  FragMemo memo_;
  std::vector<ArrivingPod> pods_;  // the trace's pods, in file order
  std::vector<NodeBook> nodes_;    // in tie-break order: the first of equal scores wins
  std::vector<std::size_t> node_order_;  // nodes_[i] is trace_.nodes[node_order_[i]]
  std::vector<NodeFit> fits_;      // nodes_' filter view, same order
  std::array<double, 3> cluster_{};  // sums of the nodes' memo_.sums, kept as nodes change
  std::unordered_map<std::uint64_t, std::int32_t> fgd_memo_;  // (state id, shape id) -> score
  std::vector<std::pair<std::uint32_t, std::int32_t>> fgd_seen_;  // per state id: (pod stamp, score)
  std::uint32_t stamp_ = 0;
  std::vector<int> feasible_;
  std::vector<std::int64_t> scores_;
  RandomStream rng_random_score_, rng_random_gpu_;
  std::int64_t used_nodes_ = 0, used_gpus_ = 0, used_gpu_milli_ = 0;
};

// Steps 1 and 2 of the protocol: the order of arrivals, as indices into pods_.
std::vector<std::size_t> Protocol::arrivals() {
  std::vector<std::size_t> by_name(pods_.size());
  std::iota(by_name.begin(), by_name.end(), std::size_t{0});
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](std::size_t a, std::size_t b) { return trace_.pods[a].name < trace_.pods[b].name; });
  std::vector<std::size_t> order = by_name;
  RandomStream shuffle_rng(options_.seed, "openb-pod-order");
  shuffle(order, shuffle_rng);
  if (options_.tune <= 0) return order;
  std::int64_t requested = 0;
  for (const ArrivingPod& p : pods_) requested += p.shape.total_milli();
  const double target = options_.tune * static_cast<double>(trace_.total_gpus() * kDeviceShareUnits);
  RandomStream tune_rng(options_.seed, "openb-inflation");
  if (static_cast<double>(requested) > target) {
    while (static_cast<double>(requested) > target && !order.empty()) {
      const std::size_t at = tune_rng.uniform_below(order.size());
      requested -= pods_[order[at]].shape.total_milli();
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(at));
    }
    return order;
  }
  while (true) {
    // tuneUpPods tests the copy's milli per GPU, and then adds its total: kept as upstream.
    const std::size_t pick = by_name[tune_rng.uniform_below(by_name.size())];
    if (static_cast<double>(requested + pods_[pick].shape.milli) > target) break;
    requested += pods_[pick].shape.total_milli();
    order.push_back(pick);
  }
  return order;
}

// Step 3: the nodes in their per-seed tie-break order.
void Protocol::build_nodes() {
  std::vector<std::size_t> by_name(trace_.nodes.size());
  std::iota(by_name.begin(), by_name.end(), std::size_t{0});
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](std::size_t a, std::size_t b) { return trace_.nodes[a].name < trace_.nodes[b].name; });
  std::vector<std::size_t> rank(by_name.size());
  std::iota(rank.begin(), rank.end(), std::size_t{0});
  RandomStream order_rng(options_.seed, "openb-node-order");
  shuffle(rank, order_rng);
  std::vector<std::size_t> order(by_name.size());
  for (std::size_t i = 0; i < by_name.size(); ++i) order[rank[i]] = by_name[i];
  node_order_ = order;
  for (std::size_t idx : order) {
    const OpenbNode& src = trace_.nodes[idx];
    NodeBook n;
    n.state.cpu_left = n.state.cpu_capacity = src.cpu_milli;
    n.state.gpus = static_cast<std::uint8_t>(src.gpus);
    if (!src.model.empty()) n.state.model = &*std::lower_bound(trace_.models.begin(), trace_.models.end(), src.model);
    for (std::uint8_t g = 0; g < n.state.gpus; ++g) {
      n.state.left[g] = kDeviceShareUnits;
      n.state.device[g] = g;
    }
    n.state_id = memo_.id(n.state);
    for (std::size_t k = 0; k < cluster_.size(); ++k) cluster_[k] += memo_.sums(n.state_id)[k];
    nodes_.push_back(n);
    fits_.push_back({src.cpu_milli, src.memory_mib, memo_.model_index(n.state), src.gpus, src.gpus > 0 ? kDeviceShareUnits : 0, src.gpus});
  }
}

bool Protocol::feasible(const NodeFit& n, const ArrivingPod& p) {
  if (n.cpu_left < p.cpu_request || n.memory_left < p.memory_mib) return false;
  const GpuShape& s = p.shape;
  if (s.count == 0) return true;
  if (n.gpus == 0) return false;
  if (p.models != 0 && (n.model < 0 || !((p.models >> n.model) & 1U))) return false;
  return s.is_share() ? n.max_left >= s.milli : n.fully_free >= s.count;
}

// FGD's score of a node state for the pod: the best over its devices for a share.
std::int64_t Protocol::fgd_state_score(std::uint32_t state, const ArrivingPod& p) {
  const std::uint64_t key = (static_cast<std::uint64_t>(state) << 24) | p.shape_id;
  if (const auto it = fgd_memo_.find(key); it != fgd_memo_.end()) return it->second;
  const GpuNodeState& s = memo_.state(state);
  const std::int64_t best = fgd_node_score(s, memo_.frag(state), p.shape, typical_, memo_.access(s));
  fgd_memo_.emplace(key, static_cast<std::int32_t>(best));
  return best;
}

int Protocol::choose_node(const ArrivingPod& p) {
  feasible_.clear();
  for (std::size_t i = 0; i < fits_.size(); ++i)
    if (feasible(fits_[i], p)) feasible_.push_back(static_cast<int>(i));
  if (feasible_.empty()) return -1;
  // kube-scheduler picks a single feasible node without scoring (no RandomScore draw).
  if (feasible_.size() == 1) return feasible_[0];
  if (options_.policy == Policy::Random) return feasible_[rng_random_score_.uniform_below(feasible_.size())];
  scores_.clear();
  if (options_.policy == Policy::Fgd) {
    ++stamp_;
    for (int i : feasible_) {
      const std::uint32_t sid = nodes_[static_cast<std::size_t>(i)].state_id;
      if (fgd_seen_.size() <= sid) fgd_seen_.resize(memo_.size() + 1024, {0, 0});
      auto& seen = fgd_seen_[sid];
      if (seen.first != stamp_) seen = {stamp_, static_cast<std::int32_t>(fgd_state_score(sid, p))};
      scores_.push_back(seen.second);
    }
  } else {
    for (int i : feasible_) {
      const NodeBook& n = nodes_[static_cast<std::size_t>(i)];
      scores_.push_back(direct_score(options_.policy, n.state, p.shape, n.tags));
    }
    if (options_.policy == Policy::BestFit) normalize_scores(scores_);
  }
  // The best score, the first in tie-break order among equals (selectHost of the fork).
  std::size_t best = 0;
  for (std::size_t k = 1; k < scores_.size(); ++k)
    if (scores_[k] > scores_[best]) best = k;
  return feasible_[best];
}

// Reserve's GPUs for the pod on the chosen node, and the node's books after it.
DeviceGrants Protocol::place(std::size_t node, const ArrivingPod& p) {
  NodeBook& n = nodes_[node];
  NodeFit& fit = fits_[node];
  if (!n.used) {
    n.used = true;
    ++used_nodes_;
    used_gpus_ += n.state.gpus;
  }
  used_gpu_milli_ += p.shape.total_milli();
  const DeviceGrants grants =
      reserve_gpus(options_.policy, n.state, p.shape, typical_, memo_.access(n.state), memo_.frag(n.state_id), rng_random_gpu_);
  for (const DeviceGrant& g : grants) n.state.left[g.device] -= g.share;  // device index = GPU index here
  n.state.cpu_left -= p.cpu_request;
  if (const std::int32_t tag = gpu_affinity(p.shape); tag > 0) n.tags.push_back(tag);
  fit.cpu_left = n.state.cpu_left;
  fit.memory_left -= p.memory_mib;
  fit.max_left = 0;
  fit.fully_free = n.state.fully_free();
  for (std::uint8_t d = 0; d < n.state.gpus; ++d) fit.max_left = std::max(fit.max_left, n.state.left[d]);
  // The cluster's sums move by the node's change (the authors re-add all nodes after every
  // pod; the difference is rounding far below the 0.01 the results are printed with).
  const std::uint32_t old_id = n.state_id;
  n.state_id = memo_.id(n.state);
  for (std::size_t k = 0; k < cluster_.size(); ++k) cluster_[k] += memo_.sums(n.state_id)[k] - memo_.sums(old_id)[k];
  return grants;
}

// ClusterGpuFragReport after a pod.
ProtocolStep Protocol::step(std::int64_t arrived) const {
  ProtocolStep s;
  s.used_nodes = used_nodes_;
  s.used_gpus = used_gpus_;
  s.used_gpu_milli = used_gpu_milli_;
  s.arrived_gpu_milli = arrived;
  s.frag_milli = cluster_[0];
  s.frag_ratio = 100 * cluster_[0] / cluster_[2];
  s.q124_ratio = 100 * cluster_[1] / cluster_[2];
  return s;
}

ProtocolResult Protocol::run() {
  if (trace_.models.size() > 64) throw InputError(trace_.nodes_file, 0, "expected at most 64 GPU models");
  for (const OpenbNode& n : trace_.nodes)
    if (n.gpus > kProtocolMaxGpus)
      throw InputError(trace_.nodes_file, 0, "node " + n.name + ": the protocol takes at most 8 GPUs per node");
  std::map<GpuShape, std::uint64_t> counts;
  std::map<GpuShape, std::uint32_t> shape_ids;
  for (const OpenbPod& p : trace_.pods) {
    const GpuShape s = shape_of(p);
    ++counts[s];
    const auto it = shape_ids.try_emplace(s, static_cast<std::uint32_t>(shape_ids.size())).first;
    pods_.push_back({s, model_mask(p.models, trace_.models), p.cpu_milli, p.memory_mib, it->second});
  }
  const std::vector<std::pair<GpuShape, std::uint64_t>> shape_counts(counts.begin(), counts.end());
  typical_ = typical_pods(shape_counts);
  memo_.start();
  build_nodes();
  const std::vector<std::size_t> order = arrivals();
  ProtocolResult r;
  r.total_gpus = trace_.total_gpus();
  r.pods = order.size();
  r.steps.reserve(order.size());
  if (options_.record_placements) {
    r.arrivals = order;
    r.node_order = node_order_;
    r.typical = typical_;
  }
  std::int64_t arrived = 0;
  for (std::size_t idx : order) {
    const ArrivingPod& p = pods_[idx];
    arrived += p.shape.total_milli();
    ProtocolPlacement placement;
    if (const int node = choose_node(p); node >= 0) {
      placement.gpus = place(static_cast<std::size_t>(node), p);
      placement.node = static_cast<std::int32_t>(node_order_[static_cast<std::size_t>(node)]);
      ++r.placed;
    } else {
      ++r.dropped;
    }
    if (options_.record_placements) r.placements.push_back(std::move(placement));
    r.steps.push_back(step(arrived));
  }
  return r;
}

}  // namespace

ProtocolResult run_protocol(const OpenbTrace& trace, const ProtocolOptions& options) {
  return Protocol(trace, options).run();
}

}  // namespace kubesim::openb
