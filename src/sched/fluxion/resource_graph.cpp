#include "sched/fluxion/resource_graph.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace kubesim::fluxion {

std::optional<MatchPolicy> parse_policy(std::string_view name) {
  // dfu_match_policy_factory.cpp: the policy table (name -> options).
  struct Entry {
    std::string_view name;
    PolicyKind kind;
    bool exclusive;
  };
  static constexpr Entry kTable[] = {
      {"first", PolicyKind::kFirst, false},   {"firstnodex", PolicyKind::kFirst, true},
      {"high", PolicyKind::kHigh, false},     {"low", PolicyKind::kLow, false},
      {"lonode", PolicyKind::kLoNode, false}, {"lonodex", PolicyKind::kLoNode, true},
      {"hinode", PolicyKind::kHiNode, false}, {"hinodex", PolicyKind::kHiNode, true},
      {"locality", PolicyKind::kLocality, false},
  };
  for (const auto& e : kTable)
    if (e.name == name) return MatchPolicy{e.kind, e.exclusive};
  return std::nullopt;
}

std::string policy_name(const MatchPolicy& p) {
  std::string base;
  switch (p.kind) {
    case PolicyKind::kFirst: base = "first"; break;
    case PolicyKind::kHigh: base = "high"; break;
    case PolicyKind::kLow: base = "low"; break;
    case PolicyKind::kLoNode: base = "lonode"; break;
    case PolicyKind::kHiNode: base = "hinode"; break;
    case PolicyKind::kLocality: base = "locality"; break;
  }
  if (!p.node_exclusive) return base;
  return p.kind == PolicyKind::kFirst ? "firstnodex" : base + "x";
}

std::uint32_t ResourceGraph::add_node(const NodeSpec& spec) {
  NodeState n;
  n.spec = spec;
  if (n.spec.sockets == 0) n.spec.sockets = 1;
  n.core_owner.assign(spec.cores, 0);
  n.gpu_owner.assign(spec.gpus, 0);
  n.free_cores = spec.cores;
  n.free_memory = spec.memory;
  n.free_gpus = spec.gpus;
  nodes_.push_back(std::move(n));
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

std::uint32_t ResourceGraph::socket_of(std::uint32_t node, std::uint32_t core) const {
  const NodeSpec& s = nodes_[node].spec;
  return s.cores == 0 ? 0 : static_cast<std::uint32_t>(static_cast<std::uint64_t>(core) * s.sockets / s.cores);
}

ResourceGraph::Job& ResourceGraph::job_record(std::uint64_t job) {
  if (jobs_.size() < job) jobs_.resize(job);
  return jobs_[job - 1];
}

const std::vector<SlotAllocation>& ResourceGraph::allocation(std::uint64_t job) const {
  static const std::vector<SlotAllocation> kNone;
  if (job == 0 || job > jobs_.size() || !jobs_[job - 1].live) return kNone;
  return jobs_[job - 1].slots;
}

bool ResourceGraph::fits(const NodeState& n, const SlotRequest& r, const MatchPolicy& p, std::uint64_t job) const {
  // An exclusively allocated node is seen by no other job (dfu_impl: exclusive allocation
  // of the node vertex marks its whole subtree).
  if (n.exclusive_owner != 0 && n.exclusive_owner != job) return false;
  // node_exclusive: the job may take a node only if no other job holds any of its vertices.
  if (p.node_exclusive && n.exclusive_owner != job && !n.untouched()) return false;
  return n.free_cores >= r.cores && n.free_memory >= r.memory && n.free_gpus >= r.gpus;
}

std::uint32_t ResourceGraph::kth_free(const NodeState& n, std::uint32_t k, bool from_high) {
  // k >= 1 and the node has at least k free cores.
  std::uint32_t seen = 0;
  const auto size = static_cast<std::uint32_t>(n.core_owner.size());
  for (std::uint32_t i = 0; i < size; ++i) {
    const std::uint32_t c = from_high ? size - 1 - i : i;
    if (n.core_owner[c] == 0 && ++seen == k) return c;
  }
  return from_high ? 0 : size;
}

std::uint32_t ResourceGraph::longest_free_run(const NodeState& n, std::uint32_t* start) {
  std::uint32_t best = 0, best_start = 0, run = 0;
  for (std::uint32_t c = 0; c < n.core_owner.size(); ++c) {
    run = n.core_owner[c] == 0 ? run + 1 : 0;
    if (run > best) {
      best = run;
      best_start = c + 1 - run;
    }
  }
  if (start) *start = best_start;
  return best;
}

void ResourceGraph::take(std::uint32_t node, const SlotRequest& r, bool high, bool locality, std::uint64_t job,
                         SlotAllocation& out) {
  NodeState& n = nodes_[node];
  out.node = node;
  const auto size = static_cast<std::uint32_t>(n.core_owner.size());
  std::uint32_t begin = 0;
  // locality: the slot's cores from the start of the longest free run when it is long enough.
  if (locality && longest_free_run(n, &begin) < r.cores) begin = 0;
  std::uint32_t need = std::min(r.cores, n.free_cores);
  for (std::uint32_t i = 0; i < size && need > 0; ++i) {
    const std::uint32_t c = high ? size - 1 - i : (begin + i) % size;
    if (n.core_owner[c] != 0) continue;
    n.core_owner[c] = job;
    out.cores.push_back(c);
    --n.free_cores;
    --need;
  }
  std::sort(out.cores.begin(), out.cores.end());
  const std::uint32_t mem = std::min(r.memory, n.free_memory);
  out.memory += mem;
  n.free_memory -= mem;
  need = std::min(r.gpus, n.free_gpus);
  for (std::uint32_t i = 0; i < n.gpu_owner.size() && need > 0; ++i) {
    const auto g = static_cast<std::uint32_t>(high ? n.gpu_owner.size() - 1 - i : i);
    if (n.gpu_owner[g] != 0) continue;
    n.gpu_owner[g] = job;
    out.gpus.push_back(g);
    --n.free_gpus;
    --need;
  }
  std::sort(out.gpus.begin(), out.gpus.end());
}

std::uint64_t ResourceGraph::match_allocate(const JobSpec& spec, const MatchPolicy& p) {
  const std::uint64_t job = next_job_;
  Job& rec = job_record(job);
  rec.slots.clear();
  rec.slots.resize(spec.slots);
  const SlotRequest& r = spec.per_slot;
  const bool high = p.high();
  const auto count = static_cast<std::uint32_t>(nodes_.size());
  bool ok = true;
  for (std::uint32_t s = 0; s < spec.slots && ok; ++s) {
    // Pick the slot's node. The policies' scores (see the header) reduce to these orders for
    // a slot confined to one node.
    std::uint32_t best = count;
    std::uint32_t best_key = 0;
    for (std::uint32_t k = 0; k < count; ++k) {
      const std::uint32_t i = high ? count - 1 - k : k;  // high_first visits (prefers) higher ids first
      const NodeState& n = nodes_[i];
      if (!fits(n, r, p, job)) continue;
      std::uint32_t key = 0;
      bool better = false;
      switch (p.kind) {
        case PolicyKind::kFirst:   // stop_on_1_matches: the first (highest-id) node that fits
        case PolicyKind::kLoNode:  // node factor: lowest node id
        case PolicyKind::kHiNode:  // node factor: highest node id
          better = best == count;
          break;
        case PolicyKind::kLow:
          // The slot's cores are the k lowest free ids of its node; fold::less picks the
          // node whose k-th lowest free id is smallest (ties: lower node id, visited first).
          key = r.cores == 0 ? 0 : kth_free(n, r.cores, false);
          better = best == count || key < best_key;
          break;
        case PolicyKind::kHigh:
          key = r.cores == 0 ? 0 : kth_free(n, r.cores, true);
          better = best == count || key > best_key;
          break;
        case PolicyKind::kLocality:
          key = longest_free_run(n, nullptr);
          better = best == count || key > best_key;
          break;
      }
      if (better) {
        best = i;
        best_key = key;
      }
    }
    if (best == count) {
      ok = false;
      break;
    }
    take(best, r, high, p.kind == PolicyKind::kLocality, job, rec.slots[s]);
    if (p.node_exclusive) nodes_[best].exclusive_owner = job;
  }
  if (!ok) {
    // Roll the partial match back; the job id is not consumed.
    rec.live = true;
    cancel(job);
    rec.slots.clear();
    return 0;
  }
  if (p.node_exclusive) {
    // The whole node goes to the job: its remaining vertices are appended to the node's
    // first slot.
    for (std::uint32_t s = 0; s < spec.slots; ++s) {
      SlotAllocation& a = rec.slots[s];
      NodeState& n = nodes_[a.node];
      if (n.free_cores == 0 && n.free_memory == 0 && n.free_gpus == 0) continue;
      SlotRequest rest{n.free_cores, n.free_memory, n.free_gpus};
      take(a.node, rest, high, false, job, a);
    }
  }
  rec.live = true;
  ++live_jobs_;
  ++next_job_;
  return job;
}

std::uint64_t ResourceGraph::allocate_on(std::uint32_t node, const SlotRequest& want) {
  NodeState& n = nodes_[node];
  if (std::min(want.cores, n.free_cores) == 0 && std::min(want.memory, n.free_memory) == 0 &&
      std::min(want.gpus, n.free_gpus) == 0)
    return 0;
  const std::uint64_t job = next_job_++;
  Job& rec = job_record(job);
  rec.slots.assign(1, SlotAllocation{});
  take(node, want, false, false, job, rec.slots[0]);
  rec.live = true;
  ++live_jobs_;
  return job;
}

bool ResourceGraph::cancel(std::uint64_t job) {
  if (job == 0 || job > jobs_.size() || !jobs_[job - 1].live) return false;
  Job& rec = jobs_[job - 1];
  for (const SlotAllocation& a : rec.slots) {
    NodeState& n = nodes_[a.node];
    for (const std::uint32_t c : a.cores)
      if (n.core_owner[c] == job) {
        n.core_owner[c] = 0;
        ++n.free_cores;
      }
    for (const std::uint32_t g : a.gpus)
      if (n.gpu_owner[g] == job) {
        n.gpu_owner[g] = 0;
        ++n.free_gpus;
      }
    n.free_memory += a.memory;
    if (n.exclusive_owner == job) n.exclusive_owner = 0;
  }
  rec.live = false;
  if (next_job_ > job) --live_jobs_;  // a rolled-back match was never counted
  return true;
}

}  // namespace kubesim::fluxion
