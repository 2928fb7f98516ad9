#include "scenario/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"
#include "core/yaml_input.hpp"
#include "engine/model_config.hpp"
#include "platform/cluster_yaml.hpp"
#include "platform/simgrid_platform.hpp"
#include "workload/k8s_manifest.hpp"

namespace kubesim {
namespace {

namespace fs = std::filesystem;

// The study's cluster when nothing else is said: 384 cores, 1536Gi (issue text).
constexpr std::int64_t kDefaultNodes = 3;
constexpr const char* kDefaultNodeCpu = "128";
constexpr const char* kDefaultNodeMemory = "512Gi";
constexpr std::int64_t kDefaultMaxPods = 110;
constexpr std::int64_t kMaxJobsPerGroup = 10'000'000;

std::string padded(std::int64_t n, std::int64_t count) {
  std::size_t width = std::to_string(std::max<std::int64_t>(count - 1, 0)).size();
  std::string s = std::to_string(n);
  return std::string(s.size() < width ? width - s.size() : 0, '0') + s;
}

// The study's job shape for one group of a tenant (a burst or a stream).
struct JobGroup {
  std::int64_t cpu_milli = 0;
  std::int64_t memory = 0;
  std::int64_t jobs = 0;
  Duration sleep;
  Duration start;
  Duration interval;  // zero for bursts
};

struct TenantTemplate {
  std::int32_t backoff_limit = 6;
  std::int64_t grace = 30;
  std::string scheduler_name = "default-scheduler";
  FailureModel failure;
};

class ScenarioReader : YamlInput {
 public:
  explicit ScenarioReader(std::string path, ScenarioCheck check = {})
      : YamlInput(std::move(path)), dir_(fs::path(this->path()).parent_path()), check_(std::move(check)) {}

  Scenario read() { return read(load_yaml_file(path())); }

  Scenario read(const YAML::Node& root) {
    try {
      read_root(root);
    } catch (const YAML::Exception& e) {
      throw yaml_error(path(), e);
    }
    return std::move(s_);
  }

 private:
  // ---- helpers ---------------------------------------------------------------------
  // Seconds: a non-negative number (at most kMaxSimulatedSeconds); `positive` excludes zero.
  Duration seconds(const YAML::Node& n, const std::string& where, bool positive = false) const {
    const std::string s = scalar(n, where);
    auto v = parse_double(s);
    if (!v || !std::isfinite(*v) || *v < 0 || (positive && *v == 0))
      fail(n, "expected " + where + " to be a " + (positive ? "positive" : "non-negative") +
                  " number of seconds, got \"" + s + "\"");
    if (*v > kMaxSimulatedSeconds)
      fail(n, where + " is " + s + " s, beyond the simulated span's limit of 1e8 s");
    return Duration::from_seconds(*v);
  }
  std::int64_t cpu_milli(const YAML::Node& n, const std::string& where) const {
    const std::int64_t v = quantity(n, where).milli_value();
    if (v <= 0) fail(n, "expected " + where + " to be a positive cpu quantity, got \"" + n.Scalar() + "\"");
    return v;
  }
  std::int64_t memory(const YAML::Node& n, const std::string& where) const {
    const std::int64_t v = quantity(n, where).value();
    if (v <= 0) fail(n, "expected " + where + " to be a positive memory quantity, got \"" + n.Scalar() + "\"");
    return v;
  }
  // A path relative to the scenario's folder; it must name an existing file.
  std::string file(const YAML::Node& n, const std::string& where) const {
    const std::string given = scalar(n, where);
    if (given.empty()) fail(n, "expected " + where + " to be a file path");
    fs::path p(given);
    if (p.is_relative()) p = dir_ / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      fail(n, "expected " + where + " \"" + given + "\" to be a file (looked for " + p.string() + ")");
    return p.string();
  }

  // ---- the document ----------------------------------------------------------------
  void read_root(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull()) throw InputError(path(), 0, "expected a scenario map, got an empty document");
    require_map(root, "the scenario");
    check_keys(root,
               {"name", "description", "cluster", "capacityCores", "schedulerConfig", "model", "sampleInterval",
                "duration", "eachTenantAlone", "manifests", "tenants", "jobs", "failures", "schedulers", "bsp",
                "measuredResults"},
               "the scenario");
    s_.path = path();
    s_.name = fs::path(path()).stem().string();
    if (const YAML::Node n = root["name"]) {
      s_.name = scalar(n, "name");
      if (s_.name.empty()) fail(n, "expected name to be non-empty");
    }
    if (const YAML::Node n = root["description"]) s_.description = n.IsNull() ? "" : scalar(n, "description");

    ResourceNames& names = s_.inputs.resource_names;
    cluster(root["cluster"]);

    // Namespaces: "default", then the tenants in declaration order, then as manifests and
    // jobs mention them.
    std::vector<YAML::Node> tenant_nodes;
    if (const YAML::Node t = root["tenants"]; t && !t.IsNull()) {
      require_list(t, "tenants");
      for (std::size_t i = 0; i < t.size(); ++i) tenant_nodes.push_back(t[i]);
    }
    for (std::size_t i = 0; i < tenant_nodes.size(); ++i) {
      const YAML::Node& t = tenant_nodes[i];
      const std::string w = "tenants[" + std::to_string(i) + "]";
      require_map(t, w);
      check_keys(t, {"namespace", "quota", "priorityClassName", "template", "streams", "bursts"}, w);
      const YAML::Node ns = t["namespace"];
      if (!ns) fail(t, "expected " + w + " to have a namespace");
      const std::string name = scalar(ns, w + ".namespace");
      if (!is_dns1123_label(name))
        fail(ns, "expected " + w + ".namespace to be a lowercase RFC 1123 label, got \"" + name + "\"");
      if (std::find(s_.tenants.begin(), s_.tenants.end(), name) != s_.tenants.end())
        fail(ns, "duplicate tenant namespace \"" + name + "\"");
      s_.tenants.push_back(name);
      m_.intern_namespace(name);
    }
    references(root);
    if (check_) check_(s_);
    for (std::size_t i = 0; i < tenant_nodes.size(); ++i) tenant(tenant_nodes[i], i, names);

    if (const YAML::Node ms = root["manifests"]; ms && !ms.IsNull()) {
      require_list(ms, "manifests");
      for (std::size_t i = 0; i < ms.size(); ++i) {
        const YAML::Node m = ms[i];
        require_map(m, "manifests[" + std::to_string(i) + "]");
        if (m["file"] && !m["kind"]) {
          check_keys(m, {"file"}, "manifests[" + std::to_string(i) + "]");
          read_manifest_file(file(m["file"], "manifests[" + std::to_string(i) + "].file"), names, m_);
        } else {
          read_manifest_node(m, path(), names, m_);
        }
      }
    }
    if (const YAML::Node js = root["jobs"]; js && !js.IsNull()) {
      require_list(js, "jobs");
      for (std::size_t i = 0; i < js.size(); ++i) job_entry(js[i], "jobs[" + std::to_string(i) + "]", names);
    }

    s_.inputs.scheduler = s_.scheduler_config.empty() ? default_scheduler_config(names)
                                                      : load_scheduler_config(s_.scheduler_config, names);
    for (const Node& n : s_.inputs.nodes) s_.capacity_milli += n.allocatable[kCpu];
    if (const YAML::Node c = root["capacityCores"]; c && !c.IsNull()) s_.capacity_milli = cpu_milli(c, "capacityCores");
    if (const YAML::Node n = root["sampleInterval"]; n && !n.IsNull())
      s_.sample_interval = seconds(n, "sampleInterval", true);
    if (const YAML::Node n = root["duration"]; n && !n.IsNull()) s_.duration = seconds(n, "duration", true);
    if (const YAML::Node n = root["eachTenantAlone"]; n && !n.IsNull()) {
      s_.each_tenant_alone = boolean(n, "eachTenantAlone");
      if (s_.each_tenant_alone && s_.tenants.empty()) fail(n, "expected tenants when eachTenantAlone is true");
    }
    if (const YAML::Node b = root["bsp"]; b && !b.IsNull())
      s_.bsp_section = ScenarioSection{std::make_shared<const YAML::Node>(b), path(), dir_.string(), line_of(b)};

    assemble();
  }

  // ---- the files it names -------------------------------------------------------------
  // Every file the scenario names beyond its workload (schedulerConfig, the setups' configs,
  // the model, measuredResults) and the node failures, read and checked once the cluster is
  // known and before any job is generated: a bad one is refused at once, not after seconds
  // and gigabytes of a million generated jobs (issue 32). What is read here for checking only
  // (the scheduler configurations, the model) is read again where it is used.
  void references(const YAML::Node& root) {
    if (const YAML::Node sc = root["schedulerConfig"]; sc && !sc.IsNull()) {
      s_.scheduler_config = file(sc, "schedulerConfig");
      ResourceNames names = s_.inputs.resource_names;  // the real load interns in the workload's order
      (void)load_scheduler_config(s_.scheduler_config, names);
    }
    if (const YAML::Node list = root["schedulers"]; list && !list.IsNull()) {
      schedulers(list);
      // The setups installed on a cluster without a workload: each reads its configuration file.
      SimulationInputs scratch;
      scratch.resource_names = s_.inputs.resource_names;
      scratch.nodes.swap(s_.inputs.nodes);
      struct Restore {
        std::vector<Node>& from;
        std::vector<Node>& to;
        ~Restore() { to.swap(from); }
      } restore{scratch.nodes, s_.inputs.nodes};
      install_setups(s_.schedulers, scratch);
    }
    if (const YAML::Node m = root["model"]; m && !m.IsNull()) {
      const std::string v = scalar(m, "model");
      const bool builtin = v == "realistic" || v == "ideal";
      s_.model = builtin ? v : file(m, "model");
      if (!builtin) (void)ModelConfig::load(s_.model);
    }
    if (const YAML::Node f = root["failures"]; f && !f.IsNull()) failures(f);
    if (const YAML::Node m = root["measuredResults"]; m && !m.IsNull()) {
      require_map(m, "measuredResults");
      check_keys(m, {"file", "experiment"}, "measuredResults");
      if (!m["file"] || !m["experiment"]) fail(m, "expected measuredResults to have a file and an experiment");
      s_.measured_results_file = file(m["file"], "measuredResults.file");
      s_.measured_experiment = scalar(m["experiment"], "measuredResults.experiment");
      if (s_.measured_experiment.empty()) fail(m["experiment"], "expected measuredResults.experiment to be non-empty");
    }
  }

  // ---- schedulers --------------------------------------------------------------------
  void schedulers(const YAML::Node& list) {
    require_list(list, "schedulers");
    if (list.size() == 0) fail(list, "expected schedulers to list at least one scheduler setup");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node e = list[i];
      const std::string w = "schedulers[" + std::to_string(i) + "]";
      require_map(e, w);
      check_keys(e, {"setup", "config", "cacheDelay"}, w);
      const YAML::Node setup = e["setup"];
      if (!setup) fail(e, "expected " + w + " to have a setup (a scheduler setup name)");
      SetupChoice c;
      c.setup = scalar(setup, w + ".setup");
      try {
        find_setup(c.setup);
      } catch (const InputError& err) {
        fail(setup, "expected " + w + ".setup to name a scheduler setup: " + err.problem());
      }
      for (const SetupChoice& other : s_.schedulers)
        if (other.setup == c.setup) fail(setup, "expected each setup once in schedulers, got \"" + c.setup + "\" twice");
      if (const YAML::Node f = e["config"]; f && !f.IsNull()) c.config_file = file(f, w + ".config");
      if (const YAML::Node d = e["cacheDelay"]; d && !d.IsNull()) c.cache_delay = seconds(d, w + ".cacheDelay");
      s_.schedulers.push_back(std::move(c));
    }
  }

  // ---- cluster -----------------------------------------------------------------------
  void cluster(const YAML::Node& c) {
    ResourceNames& names = s_.inputs.resource_names;
    if (c && !c.IsNull()) {
      require_map(c, "cluster");
      check_keys(c, {"nodes", "cpu", "memory", "pods", "file", "platform", "nodeGroups"}, "cluster");
      int forms = 0;
      for (const char* k : {"file", "platform", "nodeGroups"}) forms += c[k] ? 1 : 0;
      const bool shorthand = c["nodes"] || c["cpu"] || c["memory"] || c["pods"];
      if (forms + (shorthand ? 1 : 0) > 1)
        fail(c, "expected cluster to use one form: the shorthand (nodes, cpu, memory, pods), file, platform or "
                "nodeGroups");
      if (c["file"]) {
        s_.inputs.nodes = read_cluster_yaml(file(c["file"], "cluster.file"), names).nodes;
        return;
      }
      if (c["platform"]) {
        s_.inputs.nodes = read_simgrid_platform(file(c["platform"], "cluster.platform"), names).nodes;
        return;
      }
      if (c["nodeGroups"]) {
        s_.inputs.nodes = read_cluster_yaml_node(c, path(), names).nodes;
        return;
      }
    }
    std::int64_t count = kDefaultNodes;
    std::int64_t pods = kDefaultMaxPods;
    Quantity cpu = *Quantity::parse(kDefaultNodeCpu, nullptr);
    Quantity mem = *Quantity::parse(kDefaultNodeMemory, nullptr);
    if (c && !c.IsNull()) {
      if (const YAML::Node n = c["nodes"]) count = integer(n, "cluster.nodes", 1, kMaxNodes);
      if (const YAML::Node n = c["pods"]) pods = integer(n, "cluster.pods", 0, 1'000'000);
      if (const YAML::Node n = c["cpu"]) {
        cpu = quantity(n, "cluster.cpu");
        if (cpu.milli_value() <= 0) fail(n, "expected cluster.cpu to be positive");
      }
      if (const YAML::Node n = c["memory"]) mem = quantity(n, "cluster.memory");
    }
    for (std::int64_t i = 0; i < count; ++i) {
      Node node;
      node.name = "node-" + std::to_string(i);
      node.allocatable[kCpu] = cpu.milli_value();
      node.allocatable[kMemory] = mem.value();
      node.capacity = node.allocatable;
      node.allowed_pods = pods;
      set_label(node.labels, "kubernetes.io/hostname", node.name);
      s_.inputs.nodes.push_back(std::move(node));
    }
  }

  // ---- tenants -----------------------------------------------------------------------
  TenantTemplate tenant_template(const YAML::Node& t, const std::string& w) const {
    TenantTemplate out;
    if (!t || t.IsNull()) return out;
    require_map(t, w);
    check_keys(t, {"image", "backoffLimit", "terminationGracePeriodSeconds", "schedulerName", "failure"}, w);
    if (const YAML::Node n = t["image"]) {
      if (scalar(n, w + ".image").empty()) fail(n, "expected " + w + ".image to be non-empty");
    }
    if (const YAML::Node n = t["backoffLimit"])
      out.backoff_limit = static_cast<std::int32_t>(integer(n, w + ".backoffLimit", 0, INT32_MAX));
    if (const YAML::Node n = t["terminationGracePeriodSeconds"])
      out.grace = integer(n, w + ".terminationGracePeriodSeconds", 0, 1'000'000'000);
    if (const YAML::Node n = t["schedulerName"]) {
      out.scheduler_name = scalar(n, w + ".schedulerName");
      if (out.scheduler_name.empty()) fail(n, "expected " + w + ".schedulerName to be non-empty");
    }
    if (const YAML::Node f = t["failure"]; f && !f.IsNull()) {
      const std::string fw = w + ".failure";
      require_map(f, fw);
      check_keys(f, {"probability", "exitCode", "after"}, fw);
      const YAML::Node p = f["probability"];
      if (!p) fail(f, "expected " + fw + " to have a probability");
      const std::string ps = scalar(p, fw + ".probability");
      auto v = parse_double(ps);
      if (!v || !(*v >= 0 && *v <= 1)) fail(p, "expected " + fw + ".probability to be a number from 0 to 1, got \"" + ps + "\"");
      out.failure.probability = *v;
      if (const YAML::Node e = f["exitCode"]) out.failure.exit_code = static_cast<std::int32_t>(integer(e, fw + ".exitCode", 1, 255));
      if (const YAML::Node a = f["after"]) out.failure.after = seconds(a, fw + ".after");
    }
    return out;
  }

  void tenant(const YAML::Node& t, std::size_t index, ResourceNames& names) {
    const std::string w = "tenants[" + std::to_string(index) + "]";
    const std::string ns_name = s_.tenants[index];
    const NamespaceId ns = *m_.find_namespace(ns_name);
    if (const YAML::Node q = t["quota"]; q && !q.IsNull()) {
      ManifestOptions options;
      options.default_namespace = ns_name;
      options.only_default_namespace = true;
      if (q.IsSequence()) {
        for (std::size_t i = 0; i < q.size(); ++i)
          read_manifest_file(file(q[i], w + ".quota[" + std::to_string(i) + "]"), names, m_, options);
      } else {
        read_manifest_file(file(q, w + ".quota"), names, m_, options);
      }
    }
    std::string priority_class;
    if (const YAML::Node p = t["priorityClassName"]; p && !p.IsNull()) {
      priority_class = scalar(p, w + ".priorityClassName");
      if (!priority_class.empty()) priority_class_uses_.emplace_back(priority_class, p);
    }
    const TenantTemplate tmpl = tenant_template(t["template"], w + ".template");

    std::vector<JobGroup> bursts, streams;
    if (const YAML::Node b = t["bursts"]; b && !b.IsNull()) {
      require_list(b, w + ".bursts");
      for (std::size_t i = 0; i < b.size(); ++i) {
        const std::string bw = w + ".bursts[" + std::to_string(i) + "]";
        const YAML::Node e = b[i];
        if (!e.IsSequence() || e.size() != 5)
          fail(e, "expected " + bw + " to be [start s, cpu, memory, jobs, sleep s]");
        JobGroup g;
        g.start = seconds(e[0], bw + " start");
        g.cpu_milli = cpu_milli(e[1], bw + " cpu");
        g.memory = memory(e[2], bw + " memory");
        g.jobs = integer(e[3], bw + " jobs", 1, kMaxJobsPerGroup);
        g.sleep = seconds(e[4], bw + " sleep");
        bursts.push_back(g);
      }
    }
    if (const YAML::Node st = t["streams"]; st && !st.IsNull()) {
      require_list(st, w + ".streams");
      for (std::size_t i = 0; i < st.size(); ++i) {
        const std::string sw = w + ".streams[" + std::to_string(i) + "]";
        const YAML::Node e = st[i];
        require_map(e, sw);
        check_keys(e, {"start", "cpu", "memory", "jobs", "sleep", "interval"}, sw);
        for (const char* k : {"cpu", "memory", "jobs", "sleep", "interval"})
          if (!e[k]) fail(e, "expected " + sw + " to have " + k);
        JobGroup g;
        if (const YAML::Node s = e["start"]) g.start = seconds(s, sw + ".start");
        g.cpu_milli = cpu_milli(e["cpu"], sw + ".cpu");
        g.memory = memory(e["memory"], sw + ".memory");
        g.jobs = integer(e["jobs"], sw + ".jobs", 1, kMaxJobsPerGroup);
        g.sleep = seconds(e["sleep"], sw + ".sleep");
        g.interval = seconds(e["interval"], sw + ".interval");
        streams.push_back(g);
      }
    }
    auto generate = [&](const std::vector<JobGroup>& groups, char letter) {
      for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const JobGroup& g = groups[gi];
        PodTemplate spec = batch_job_template(g.cpu_milli, g.memory, tmpl.scheduler_name);
        spec.priority_class_name = priority_class;
        spec.termination_grace_period_seconds = tmpl.grace;
        spec.finalize();
        const auto template_index = static_cast<std::uint32_t>(s_.inputs.workload.templates.size());
        s_.inputs.workload.templates.push_back(std::move(spec));
        for (std::int64_t n = 0; n < g.jobs; ++n) {
          WorkloadJob j;
          j.name = ns_name + "-" + letter + std::to_string(gi) + "-" + padded(n, g.jobs);
          j.id = ns_name + "/" + j.name;
          j.ns = ns;
          j.as_job = true;
          j.parallelism = 1;
          j.completions = 1;
          j.backoff_limit = tmpl.backoff_limit;
          j.failure = tmpl.failure;
          j.submit = SimTime::at(g.start + g.interval * n);
          j.run_time = g.sleep;
          j.pod_template = template_index;
          jobs_.push_back(std::move(j));
          job_where_.push_back({path(), line_of(t)});
        }
      }
    };
    generate(bursts, 'b');
    generate(streams, 's');
  }

  // ---- jobs: entries ---------------------------------------------------------------
  void job_entry(const YAML::Node& e, const std::string& w, ResourceNames& names) {
    require_map(e, w);
    check_keys(e, {"at", "file", "manifest"}, w);
    if (e["file"] && e["manifest"]) fail(e, "expected " + w + " to have either file or manifest, not both");
    if (!e["file"] && !e["manifest"]) fail(e, "expected " + w + " to have a file or a manifest");
    const std::size_t before = m_.jobs.size();
    ManifestOptions options;
    options.only_jobs = true;
    options.gpu_models = &gpu_models();
    if (e["file"]) {
      read_manifest_file(file(e["file"], w + ".file"), names, m_, options);
    } else {
      read_manifest_node(e["manifest"], path(), names, m_, options);
    }
    if (m_.jobs.size() == before) fail(e, "expected " + w + " to give at least one Job or Pod");
    if (const YAML::Node at = e["at"]; at && !at.IsNull()) {
      const SimTime t = SimTime::at(seconds(at, w + ".at"));
      for (std::size_t i = before; i < m_.jobs.size(); ++i) {
        ManifestJob& mj = m_.jobs[i];
        if (mj.submit_at)
          fail(at, "expected either " + w + ".at or the kubesim.io/submit-at annotation of " + mj.kind + " \"" +
                       mj.job.name + "\" (" + mj.file + ":" + std::to_string(mj.line) + "), not both");
        mj.submit_at = t;
        mj.job.submit = t;
      }
    }
  }

  // ---- failures ----------------------------------------------------------------------
  void failures(const YAML::Node& f) {
    require_list(f, "failures");
    for (std::size_t i = 0; i < f.size(); ++i) {
      const std::string w = "failures[" + std::to_string(i) + "]";
      const YAML::Node e = f[i];
      require_map(e, w);
      check_keys(e, {"at", "node", "action"}, w);
      for (const char* k : {"at", "node", "action"})
        if (!e[k]) fail(e, "expected " + w + " to have " + k);
      ClusterAction a;
      a.at = SimTime::at(seconds(e["at"], w + ".at"));
      a.node = scalar(e["node"], w + ".node");
      if (std::none_of(s_.inputs.nodes.begin(), s_.inputs.nodes.end(), [&](const Node& n) { return n.name == a.node; }))
        fail(e["node"], "expected " + w + ".node to name a node of the cluster, got \"" + a.node + "\"");
      const std::string action = scalar(e["action"], w + ".action");
      using K = ClusterAction::Kind;
      if (action == "fail") a.kind = K::kFail;
      else if (action == "recover") a.kind = K::kRecover;
      else if (action == "cordon") a.kind = K::kCordon;
      else if (action == "uncordon") a.kind = K::kUncordon;
      else if (action == "drain") a.kind = K::kDrain;
      else fail(e["action"], "expected " + w + ".action fail, recover, cordon, uncordon or drain, got \"" + action + "\"");
      a.line = static_cast<std::uint32_t>(line_of(e));
      s_.inputs.actions.push_back(std::move(a));
    }
    std::stable_sort(s_.inputs.actions.begin(), s_.inputs.actions.end(),
                     [](const ClusterAction& a, const ClusterAction& b) { return a.at < b.at; });
  }

  // ---- assembling --------------------------------------------------------------------
  void assemble() {
    // Every PriorityClass a job names must exist (plugin/pkg/admission/priority rejects the
    // pod otherwise: "no PriorityClass with name ... was found").
    auto has_pc = [&](const std::string& name) {
      return std::any_of(m_.priority_classes.begin(), m_.priority_classes.end(),
                         [&](const PriorityClass& pc) { return pc.name == name; });
    };
    for (const auto& [name, node] : priority_class_uses_)
      if (!has_pc(name)) fail(node, "expected PriorityClass \"" + name + "\" to be defined in manifests");
    for (const ManifestJob& mj : m_.jobs)
      if (!mj.spec.priority_class_name.empty() && !has_pc(mj.spec.priority_class_name))
        throw InputError(mj.file, mj.line,
                         "expected PriorityClass \"" + mj.spec.priority_class_name + "\" to be defined in manifests");

    Workload& w = s_.inputs.workload;
    w.source = path();
    w.namespaces = m_.namespaces;
    for (const ManifestJob& mj : m_.jobs) job_where_.push_back({mj.file, mj.line});
    append_manifest_jobs(std::move(m_.jobs), w);
    w.jobs.insert(w.jobs.begin(), jobs_.begin(), jobs_.end());
    // append_manifest_jobs appended after the tenant templates; tenant jobs were inserted
    // before the manifest jobs, so job i and job_where_[i] still correspond.

    // Object names are unique per namespace and kind (the API server's AlreadyExists).
    std::map<std::tuple<std::uint32_t, bool, std::string>, std::size_t> seen;
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      const WorkloadJob& j = w.jobs[i];
      auto [it, inserted] = seen.emplace(std::make_tuple(j.ns.value(), j.as_job, j.name), i);
      if (!inserted) {
        const auto& first = job_where_[it->second];
        throw InputError(job_where_[i].first, job_where_[i].second,
                         std::string("duplicate ") + (j.as_job ? "Job" : "Pod") + " \"" + w.namespaces[j.ns.value()] +
                             "/" + j.name + "\" (also at " + first.first + ":" + std::to_string(first.second) + ")");
      }
    }
    std::stable_sort(w.jobs.begin(), w.jobs.end(),
                     [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit < b.submit; });

    s_.inputs.priority_classes = std::move(m_.priority_classes);
    s_.inputs.quotas = std::move(m_.quotas);
    s_.inputs.pod_disruption_budgets = std::move(m_.pod_disruption_budgets);
  }

  fs::path dir_;
  ScenarioCheck check_;  // read_scenario's check, called before any job is generated
  // The GPU models of the cluster's nodes (read after the cluster), for the manifests' checks.
  const std::set<std::string>& gpu_models() {
    if (!gpu_models_) {
      gpu_models_.emplace();
      for (const Node& n : s_.inputs.nodes)
        for (const Device& d : n.devices)
          if (d.device_class == kGpuDeviceClass && !d.model.empty()) gpu_models_->insert(d.model);
    }
    return *gpu_models_;
  }

  Scenario s_;
  Manifests m_;
  std::optional<std::set<std::string>> gpu_models_;
  std::vector<WorkloadJob> jobs_;  // the tenants' generated jobs, in generation order
  std::vector<std::pair<std::string, int>> job_where_;  // file:line per job (tenant jobs, then manifest jobs)
  std::vector<std::pair<std::string, YAML::Node>> priority_class_uses_;
};

}  // namespace

Scenario read_scenario(const std::string& path, ScenarioCheck check) { return ScenarioReader(path, std::move(check)).read(); }

Scenario read_scenario(const std::string& path, const YAML::Node& root, ScenarioCheck check) {
  return ScenarioReader(path, std::move(check)).read(root);
}

SimulationInputs copy_inputs(const SimulationInputs& src, const std::string& scheduler_config) {
  SimulationInputs in;
  in.resource_names = src.resource_names;
  in.nodes = src.nodes;
  in.workload = src.workload;
  in.scheduler = scheduler_config.empty() ? default_scheduler_config(in.resource_names)
                                          : load_scheduler_config(scheduler_config, in.resource_names);
  in.scheduler_informer_delay = src.scheduler_informer_delay;
  in.other_schedulers = src.other_schedulers;
  in.priority_classes = src.priority_classes;
  in.quotas = src.quotas;
  in.pod_disruption_budgets = src.pod_disruption_budgets;
  in.actions = src.actions;
  return in;
}

SimulationInputs tenant_inputs(const Scenario& scenario, const std::string& tenant) {
  SimulationInputs in = copy_inputs(scenario.inputs, scenario.scheduler_config);
  const auto& names = in.workload.namespaces;
  const auto it = std::find(names.begin(), names.end(), tenant);
  KUBESIM_ASSERT(it != names.end());
  const auto ns = static_cast<std::uint32_t>(it - names.begin());
  std::erase_if(in.workload.jobs, [&](const WorkloadJob& j) { return j.ns.value() != ns; });
  return in;
}

}  // namespace kubesim
