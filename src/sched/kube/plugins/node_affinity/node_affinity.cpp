#include "sched/kube/plugins/node_affinity/node_affinity.hpp"

#include <algorithm>

#include "core/parse_number.hpp"

namespace kubesim {
namespace {

bool requirement_matches(const NodeSelectorRequirement& r, const std::string* value) {
  using Op = NodeSelectorRequirement::Operator;
  switch (r.op) {
    case Op::kIn: return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    case Op::kNotIn: return !value || std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
    case Op::kExists: return value != nullptr;
    case Op::kDoesNotExist: return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      // apimachinery labels.Requirement.Matches: both sides must parse as integers.
      if (!value || r.values.size() != 1) return false;
      auto have = parse_int(*value);
      auto want = parse_int(r.values[0]);
      if (!have || !want) return false;
      return r.op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

}  // namespace

bool node_selector_term_matches(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions)
    if (!requirement_matches(r, find_label(node.labels, r.key))) return false;
  for (const auto& r : term.match_fields) {
    // Only metadata.name is a supported field (validation rejects others).
    const std::string* value = r.key == "metadata.name" ? &node.name : nullptr;
    if (!requirement_matches(r, value)) return false;
  }
  return true;
}

bool pod_matches_node_selector_and_affinity(const PodTemplate& spec, const Node& node) {
  for (const auto& [key, value] : spec.node_selector) {
    const std::string* have = find_label(node.labels, key);
    if (!have || *have != value) return false;
  }
  if (spec.affinity.required_terms.empty()) return true;
  for (const auto& term : spec.affinity.required_terms)
    if (node_selector_term_matches(term, node)) return true;
  return false;
}

FilterResult NodeAffinityPlugin::filter(const CycleContext& ctx, const NodeInfo& node) const {
  if (pod_matches_node_selector_and_affinity(ctx.spec, *node.node)) return {};
  return FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable,
                               "node(s) didn't match Pod's node affinity/selector");
}

void NodeAffinityPlugin::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                               std::span<std::int64_t> scores) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::int64_t sum = 0;
    for (const auto& pref : ctx.spec.affinity.preferred)
      if (pref.weight != 0 && node_selector_term_matches(pref.preference, *nodes[i]->node)) sum += pref.weight;
    scores[i] = sum;
  }
  default_normalize_score(kMaxNodeScore, /*reverse=*/false, scores);
}

}  // namespace kubesim
