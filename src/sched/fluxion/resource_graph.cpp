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

const ResourceGraph::VertexType ResourceGraph::kVertexTypes[3] = {
    {&NodeSpec::cores, &SlotRequest::cores, &NodeState::cores, &SlotAllocation::cores},
    {&NodeSpec::memory, &SlotRequest::memory, &NodeState::memory, &SlotAllocation::memory_ids},
    {&NodeSpec::gpus, &SlotRequest::gpus, &NodeState::gpus, &SlotAllocation::gpus},
};

std::uint32_t ResourceGraph::add_node(const NodeSpec& spec) {
  NodeState n;
  n.spec = spec;
  if (n.spec.sockets == 0) n.spec.sockets = 1;
  for (const VertexType& t : kVertexTypes) {
    Pool& pool = n.*t.pool;
    pool.owner.assign(spec.*t.count, 0);
    pool.free = spec.*t.count;
  }
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
  return n.cores.free >= r.cores && n.memory.free >= r.memory && n.gpus.free >= r.gpus;
}

std::vector<std::uint32_t> ResourceGraph::free_ids(const std::vector<std::uint64_t>& owner, bool high) {
  std::vector<std::uint32_t> ids;
  const auto size = static_cast<std::uint32_t>(owner.size());
  for (std::uint32_t i = 0; i < size; ++i) {
    const std::uint32_t v = high ? size - 1 - i : i;
    if (owner[v] == 0) ids.push_back(v);
  }
  return ids;
}

void ResourceGraph::take(std::uint32_t node, const SlotRequest& r, bool high, std::uint64_t job, SlotAllocation& out) {
  // Up to r's amounts of the node's free vertices, lowest ids first (highest with `high`).
  const NodeState& n = nodes_[node];
  SlotAllocation want;
  for (const VertexType& t : kVertexTypes) {
    const auto ids = free_ids((n.*t.pool).owner, high);
    (want.*t.ids).assign(ids.begin(), ids.begin() + std::min<std::size_t>(r.*t.request, ids.size()));
  }
  take_ids(node, want, job, out);
}

void ResourceGraph::take_ids(std::uint32_t node, const SlotAllocation& want, std::uint64_t job, SlotAllocation& out) {
  NodeState& n = nodes_[node];
  out.node = node;
  for (const VertexType& t : kVertexTypes) {
    Pool& pool = n.*t.pool;
    std::vector<std::uint32_t>& held = out.*t.ids;
    for (const std::uint32_t v : want.*t.ids) {
      pool.owner[v] = job;
      held.push_back(v);
      --pool.free;
    }
    std::sort(held.begin(), held.end());
  }
}

namespace {

// The sum of (id + 1) over the free vertices at positions [from, from + per) of a pool's free
// ids in the policy's order (lowest first, or highest with `high`). A pool nothing holds has
// every id free, in order: the sum is closed-form, so a match over a large idle cluster costs
// O(1) per node rather than a walk of every node's vertices.
std::int64_t slot_score(const std::vector<std::uint64_t>& owner, std::uint32_t free, bool high, std::uint32_t from,
                        std::uint32_t per, std::vector<std::uint32_t>& scratch) {
  if (per == 0) return 0;
  const auto size = static_cast<std::int64_t>(owner.size());
  const std::int64_t a = from, n = per;
  if (free == owner.size()) return high ? n * size - n * a - n * (n - 1) / 2 : n * (a + 1) + n * (n - 1) / 2;
  std::int64_t sum = 0;
  for (std::uint32_t j = from; j < from + per; ++j) sum += scratch[j] + 1;
  return sum;
}

}  // namespace

void ResourceGraph::free_ids_into(const std::vector<std::uint64_t>& owner, std::uint32_t free, bool high,
                                  std::vector<std::uint32_t>& ids) {
  ids.clear();
  if (free == owner.size()) return;  // every id free: slot_score needs no list
  const auto size = static_cast<std::uint32_t>(owner.size());
  for (std::uint32_t i = 0; i < size; ++i) {
    const std::uint32_t v = high ? size - 1 - i : i;
    if (owner[v] == 0) ids.push_back(v);
  }
}

void ResourceGraph::order_best(PolicyKind kind, std::uint32_t slots) {
  // dom_finish_graph: choose_accum_best_k(slot, count, comparator) -- std::sort; ties in
  // insertion (node, then slot) order: only the best slots are ordered.
  std::vector<Candidate>& cands = candidates_;
  const auto chosen = cands.begin() + static_cast<std::ptrdiff_t>(slots);
  auto in_order = [](const Candidate& a, const Candidate& b) { return a.node != b.node ? a.node < b.node : a.k < b.k; };
  switch (kind) {
    case PolicyKind::kLow:
      std::partial_sort(cands.begin(), chosen, cands.end(), [&](const Candidate& a, const Candidate& b) {
        return a.score != b.score ? a.score < b.score : in_order(a, b);
      });
      break;
    case PolicyKind::kHigh:
      std::partial_sort(cands.begin(), chosen, cands.end(), [&](const Candidate& a, const Candidate& b) {
        return a.score != b.score ? a.score > b.score : in_order(a, b);
      });
      break;
    case PolicyKind::kLoNode:  // node factor (node.id + 2) * 10000 dominates: visited in order
    case PolicyKind::kHiNode:
    case PolicyKind::kFirst:  // see the header: modelled as hinode
      break;
    case PolicyKind::kLocality: {
      // fold::to_interval + boost::icl::interval_set: each score becomes [s, s]; runs of
      // consecutive integers join. interval_greater: the higher interval first.
      std::vector<std::int64_t> scores;
      scores.reserve(cands.size());
      for (const auto& c : cands) scores.push_back(c.score);
      std::sort(scores.begin(), scores.end());
      scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
      for (auto& c : cands) {
        auto it = std::lower_bound(scores.begin(), scores.end(), c.score);
        while (it != scores.begin() && *(it - 1) == *it - 1) --it;
        c.key = *it;
      }
      std::partial_sort(cands.begin(), chosen, cands.end(), [&](const Candidate& a, const Candidate& b) {
        return a.key != b.key ? a.key > b.key : in_order(a, b);
      });
      break;
    }
  }
}

std::uint64_t ResourceGraph::match_allocate(const JobSpec& spec, const MatchPolicy& p) {
  const std::uint64_t job = next_job_;
  const SlotRequest& r = spec.per_slot;
  const bool high = p.high() || p.kind == PolicyKind::kLocality;
  const auto count = static_cast<std::uint32_t>(nodes_.size());

  // The candidate slots (dfu_impl.cpp dom_slot, per node in graph order): each node's free
  // vertices in the policy's order, cut into as many slots as they hold (cnt_slot); a slot
  // scores the sum of its vertices' id + 1 (constants common to every slot left out). A
  // candidate is its node, its rank k among the node's slots and its score; only the chosen
  // ones are cut into vertex ids.
  std::vector<Candidate>& cands = candidates_;
  cands.clear();
  // lonode and hinode (first) rank by node before score: the nodes are visited in that order
  // and the visit ends once it holds enough slots, as no later node's slot can rank before.
  const bool by_node = p.kind == PolicyKind::kLoNode || p.kind == PolicyKind::kHiNode || p.kind == PolicyKind::kFirst;
  const bool descending = p.kind == PolicyKind::kHiNode || p.kind == PolicyKind::kFirst;
  for (std::uint32_t visit = 0; visit < count && !(by_node && cands.size() >= spec.slots); ++visit) {
    const std::uint32_t i = descending ? count - 1 - visit : visit;
    const NodeState& n = nodes_[i];
    if (!fits(n, r, p, job)) continue;
    std::uint32_t q = r.cores == 0 ? n.cores.free : n.cores.free / r.cores;
    if (r.memory > 0) q = std::min(q, n.memory.free / r.memory);
    if (r.gpus > 0) q = std::min(q, n.gpus.free / r.gpus);
    if (p.kind == PolicyKind::kFirst) q = std::min<std::uint32_t>(q, spec.slots);
    for (std::size_t t = 0; t < 3; ++t) {
      const Pool& pool = n.*kVertexTypes[t].pool;
      free_ids_into(pool.owner, pool.free, high, ids_scratch_[t]);
    }
    const std::size_t first = cands.size();
    for (std::uint32_t k = 0; k < q; ++k) {
      Candidate c{i, k};
      for (std::size_t t = 0; t < 3; ++t) {
        const VertexType& type = kVertexTypes[t];
        const Pool& pool = n.*type.pool;
        const std::uint32_t per = r.*type.request;
        c.score += slot_score(pool.owner, pool.free, high, k * per, per, ids_scratch_[t]);
      }
      cands.push_back(c);
    }
    // Within a node by score, ties in slot order (the stable sorts below keep it).
    if (by_node)
      std::stable_sort(cands.begin() + static_cast<std::ptrdiff_t>(first), cands.end(),
                       [desc = descending](const Candidate& a, const Candidate& b) {
                         return desc ? a.score > b.score : a.score < b.score;
                       });
  }
  if (cands.size() < spec.slots) return 0;
  order_best(p.kind, spec.slots);
  cands.resize(spec.slots);
  // The writer emits the matched vertices in traversal (node) order.
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.node < b.node; });
  // Every chosen slot's ids are cut from its node's free ids as they were before this match,
  // so all are cut before any is taken.
  std::vector<SlotAllocation> want(spec.slots);
  for (std::uint32_t s = 0; s < spec.slots; ++s) {
    const NodeState& n = nodes_[cands[s].node];
    for (const VertexType& t : kVertexTypes) {
      const std::uint32_t per = r.*t.request;
      if (per == 0) continue;
      const auto ids = free_ids((n.*t.pool).owner, high);
      (want[s].*t.ids).assign(ids.begin() + cands[s].k * per, ids.begin() + (cands[s].k + 1) * per);
    }
  }
  Job& rec = job_record(job);
  rec.slots.assign(spec.slots, SlotAllocation{});
  for (std::uint32_t s = 0; s < spec.slots; ++s) {
    take_ids(cands[s].node, want[s], job, rec.slots[s]);
    if (p.node_exclusive) nodes_[cands[s].node].exclusive_owner = job;
  }
  if (p.node_exclusive) {
    // The whole node goes to the job: its remaining vertices are appended to the node's
    // first slot.
    for (std::uint32_t s = 0; s < spec.slots; ++s) {
      SlotAllocation& a = rec.slots[s];
      NodeState& n = nodes_[a.node];
      if (n.cores.free == 0 && n.memory.free == 0 && n.gpus.free == 0) continue;
      SlotRequest rest{n.cores.free, n.memory.free, n.gpus.free};
      take(a.node, rest, high, job, a);
    }
  }
  rec.live = true;
  ++live_jobs_;
  ++next_job_;
  return job;
}

std::uint64_t ResourceGraph::allocate_on(std::uint32_t node, const SlotRequest& want) {
  NodeState& n = nodes_[node];
  if (std::min(want.cores, n.cores.free) == 0 && std::min(want.memory, n.memory.free) == 0 &&
      std::min(want.gpus, n.gpus.free) == 0)
    return 0;
  const std::uint64_t job = next_job_++;
  Job& rec = job_record(job);
  rec.slots.assign(1, SlotAllocation{});
  take(node, want, false, job, rec.slots[0]);
  rec.live = true;
  ++live_jobs_;
  return job;
}

bool ResourceGraph::cancel(std::uint64_t job) {
  if (job == 0 || job > jobs_.size() || !jobs_[job - 1].live) return false;
  Job& rec = jobs_[job - 1];
  for (const SlotAllocation& a : rec.slots) {
    NodeState& n = nodes_[a.node];
    for (const VertexType& t : kVertexTypes) {
      Pool& pool = n.*t.pool;
      for (const std::uint32_t v : a.*t.ids)
        if (pool.owner[v] == job) {
          pool.owner[v] = 0;
          ++pool.free;
        }
    }
    if (n.exclusive_owner == job) n.exclusive_owner = 0;
  }
  rec.live = false;
  --live_jobs_;
  return true;
}

}  // namespace kubesim::fluxion
