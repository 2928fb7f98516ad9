#include "testing/builders.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/quantity.hpp"

namespace kubesim::testing {

std::int64_t quantity(std::string_view text, bool milli) {
  std::string error;
  const auto q = Quantity::parse(text, &error);
  if (!q) {
    std::fprintf(stderr, "kubesim::testing::quantity(\"%.*s\"): %s\n", static_cast<int>(text.size()), text.data(),
                 error.c_str());
    std::abort();
  }
  return milli ? q->milli_value() : q->value();
}

namespace {

std::size_t extended_slot(ResourceNames& names, std::string_view name) {
  const int slot = names.slot(name);
  if (slot < 0) {
    std::fprintf(stderr, "kubesim::testing: no resource slot left for %.*s\n", static_cast<int>(name.size()),
                 name.data());
    std::abort();
  }
  return static_cast<std::size_t>(slot);
}

}  // namespace

// ---- NodeBuilder ----

NodeBuilder::NodeBuilder(std::string name) { node_.name = std::move(name); }

void NodeBuilder::set(std::size_t slot, std::int64_t amount) {
  node_.allocatable[slot] = amount;
  node_.capacity[slot] = amount;
}

NodeBuilder& NodeBuilder::cpu(std::string_view amount) { return cpu_milli(quantity(amount, true)); }
NodeBuilder& NodeBuilder::cpu_milli(std::int64_t milli) {
  set(kCpu, milli);
  return *this;
}
NodeBuilder& NodeBuilder::memory(std::string_view amount) { return memory_bytes(quantity(amount, false)); }
NodeBuilder& NodeBuilder::memory_bytes(std::int64_t bytes) {
  set(kMemory, bytes);
  return *this;
}
NodeBuilder& NodeBuilder::resource(ResourceNames& names, std::string_view name, std::int64_t amount) {
  set(extended_slot(names, name), amount);
  return *this;
}
NodeBuilder& NodeBuilder::pods(std::int64_t allowed) {
  node_.allowed_pods = allowed;
  return *this;
}
NodeBuilder& NodeBuilder::label(std::string key, std::string value) {
  set_label(node_.labels, std::move(key), std::move(value));
  return *this;
}
NodeBuilder& NodeBuilder::hostname_label() { return label("kubernetes.io/hostname", node_.name); }
NodeBuilder& NodeBuilder::taint(std::string key, std::string value, TaintEffect effect) {
  node_.taints.push_back(Taint{std::move(key), std::move(value), effect});
  return *this;
}
NodeBuilder& NodeBuilder::unschedulable(bool on) {
  node_.unschedulable = on;
  return *this;
}
NodeBuilder& NodeBuilder::not_ready() {
  node_.ready = false;
  return *this;
}
NodeBuilder& NodeBuilder::capacity(std::size_t slot, std::int64_t amount) {
  node_.capacity[slot] = amount;
  return *this;
}

// ---- PodTemplateBuilder ----

PodTemplateBuilder::PodTemplateBuilder() {
  Container c;
  c.name = "main";
  spec_.containers.push_back(std::move(c));
}

void PodTemplateBuilder::set(std::size_t slot, std::int64_t amount) {
  Container& c = spec_.containers.front();
  c.requests[slot] = amount;
  c.requested_mask |= 1u << slot;
}

PodTemplateBuilder& PodTemplateBuilder::cpu(std::string_view amount) { return cpu_milli(quantity(amount, true)); }
PodTemplateBuilder& PodTemplateBuilder::cpu_milli(std::int64_t milli) {
  set(kCpu, milli);
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::memory(std::string_view amount) {
  return memory_bytes(quantity(amount, false));
}
PodTemplateBuilder& PodTemplateBuilder::memory_bytes(std::int64_t bytes) {
  set(kMemory, bytes);
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::resource(ResourceNames& names, std::string_view name, std::int64_t amount) {
  set(extended_slot(names, name), amount);
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::no_limits() {
  limits_ = false;
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::scheduler(std::string name) {
  spec_.scheduler_name = std::move(name);
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::priority(std::int32_t value) {
  spec_.priority = value;
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::priority_class(std::string name) {
  spec_.priority_class_name = std::move(name);
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::preemption_policy(PreemptionPolicy policy) {
  spec_.preemption_policy = policy;
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::label(std::string key, std::string value) {
  set_label(spec_.labels, std::move(key), std::move(value));
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::annotation(std::string key, std::string value) {
  set_label(spec_.annotations, std::move(key), std::move(value));
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::node_selector(std::string key, std::string value) {
  set_label(spec_.node_selector, std::move(key), std::move(value));
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::toleration(Toleration t) {
  spec_.tolerations.push_back(std::move(t));
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::tolerate(std::string key, std::optional<TaintEffect> effect) {
  Toleration t;
  t.key = std::move(key);
  t.op = Toleration::Operator::kExists;
  t.effect = effect;
  return toleration(std::move(t));
}
PodTemplateBuilder& PodTemplateBuilder::required_term(NodeSelectorTerm term) {
  spec_.affinity.required_terms.push_back(std::move(term));
  spec_.has_affinity = true;
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::preferred_term(std::int32_t weight, NodeSelectorTerm term) {
  spec_.affinity.preferred.push_back(PreferredSchedulingTerm{weight, std::move(term)});
  spec_.has_affinity = true;
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::node_name(std::string name) {
  spec_.node_name = std::move(name);
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::grace_seconds(std::int64_t seconds) {
  spec_.termination_grace_period_seconds = seconds;
  return *this;
}
PodTemplateBuilder& PodTemplateBuilder::exits_on_sigterm(bool on) {
  spec_.exits_on_sigterm = on;
  return *this;
}

PodTemplate PodTemplateBuilder::build() const {
  PodTemplate t = spec_;
  if (limits_) {
    for (Container& c : t.containers) {
      c.limits = c.requests;
      c.limited_mask = c.requested_mask;
    }
  }
  t.finalize();
  return t;
}

// ---- PodBuilder ----

PodBuilder::PodBuilder(PodTemplateId spec) {
  pod_.spec = spec;
  pod_.ns = NamespaceId(0);
  pod_.created = SimTime::zero();
}
PodBuilder& PodBuilder::name(std::string n) {
  pod_.name = std::move(n);
  return *this;
}
PodBuilder& PodBuilder::ns(NamespaceId n) {
  pod_.ns = n;
  return *this;
}
PodBuilder& PodBuilder::created(SimTime at) {
  pod_.created = at;
  return *this;
}
PodBuilder& PodBuilder::on(NodeId node, SimTime at) {
  pod_.node = node;
  pod_.phase = PodPhase::kRunning;
  pod_.scheduled = pod_.start_time = pod_.started = at;
  return *this;
}
PodBuilder& PodBuilder::finished(SimTime at, PodPhase phase) {
  pod_.finished = at;
  pod_.phase = phase;
  return *this;
}
PodBuilder& PodBuilder::of_job(std::uint32_t index, std::uint32_t machines, std::uint32_t rank) {
  pod_.workload_job = index;
  pod_.machines = machines;
  pod_.machine_rank = rank;
  return *this;
}
PodBuilder& PodBuilder::nominated(NodeId node) {
  pod_.nominated_node = node;
  return *this;
}
PodBuilder& PodBuilder::run_time(Duration d) {
  pod_.run_time = d;
  return *this;
}

// ---- JobBuilder ----

JobBuilder::JobBuilder(std::string name, double submit, double run) {
  job_.id = name;
  job_.name = std::move(name);
  job_.profile = "p";
  job_.submit = SimTime::from_seconds(submit);
  job_.run_time = Duration::from_seconds(run);
}
JobBuilder::JobBuilder(int id, double submit, double run) : JobBuilder(std::to_string(id), submit, run) {
  job_.name.clear();
}
JobBuilder& JobBuilder::id(std::string id) {
  job_.id = std::move(id);
  return *this;
}
JobBuilder& JobBuilder::unnamed() {
  job_.name.clear();
  return *this;
}
JobBuilder& JobBuilder::tmpl(std::uint32_t index) {
  job_.pod_template = index;
  return *this;
}
JobBuilder& JobBuilder::ns(NamespaceId n) {
  job_.ns = n;
  return *this;
}
JobBuilder& JobBuilder::as_job(bool on) {
  job_.as_job = on;
  return *this;
}
JobBuilder& JobBuilder::indexed(std::int32_t completions, std::int32_t parallelism) {
  job_.as_job = true;
  job_.indexed = true;
  job_.completions = completions;
  job_.parallelism = parallelism;
  return *this;
}
JobBuilder& JobBuilder::backoff_limit(std::int32_t limit) {
  job_.backoff_limit = limit;
  return *this;
}
JobBuilder& JobBuilder::walltime(double seconds) {
  job_.walltime = Duration::from_seconds(seconds);
  return *this;
}
JobBuilder& JobBuilder::profile(std::string name) {
  job_.profile = std::move(name);
  return *this;
}
JobBuilder& JobBuilder::machines(std::uint32_t count) {
  job_.machines = count;
  return *this;
}
JobBuilder& JobBuilder::requested_resources(std::int64_t res) {
  job_.requested_resources = res;
  return *this;
}
JobBuilder& JobBuilder::suspend(bool on) {
  job_.suspend = on;
  return *this;
}
JobBuilder& JobBuilder::job_label(std::string key, std::string value) {
  set_label(job_.job_labels, std::move(key), std::move(value));
  return *this;
}
JobBuilder& JobBuilder::fails(std::int32_t exit_code, double after) {
  job_.failure.probability = 1;
  job_.failure.exit_code = exit_code;
  job_.failure.after = Duration::from_seconds(after);
  return *this;
}

PodDisruptionBudget min_available_pdb(std::string name, NamespaceId ns, std::string key, std::string value,
                                      std::int32_t min) {
  PodDisruptionBudget pdb;
  pdb.name = std::move(name);
  pdb.ns = ns;
  pdb.selector.match_labels = {{std::move(key), std::move(value)}};
  pdb.min_available = IntOrPercent{min, false};
  return pdb;
}

}  // namespace kubesim::testing
