// YuniKorn's configuration: the queues.yaml of the yunikorn-configs ConfigMap
// (yunikorn-core pkg/common/configs/config.go SchedulerConfig/PartitionConfig/QueueConfig),
// read as is, either the ConfigMap manifest (data."queues.yaml") or the bare queues.yaml.
// Only the first partition is modelled (a Kubernetes shim has one: "default").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/distribution.hpp"
#include "core/time.hpp"
#include "model/resources.hpp"
#include "sched/yunikorn/yk_resource.hpp"

namespace kubesim::yunikorn {

enum class AppSort : std::uint8_t { kFifo, kFair };
enum class PreemptionPolicy : std::uint8_t { kDefault, kFence, kDisabled };
enum class NodeSort : std::uint8_t { kFair, kBinpacking };

struct QueueConf {
  std::string name;  // lower case, as yunikorn-core stores queue names
  std::string path;  // root.a.b
  int parent = -1;
  std::vector<int> children;  // sorted by name (upstream iterates a map: the order is ours)
  bool leaf = true;
  Res guaranteed;  // empty: not set
  Res max;         // empty: not set (root: the partition's size, set at run time)
  std::int64_t max_applications = 0;  // 0: unlimited
  AppSort app_sort = AppSort::kFifo;
  bool priority_sort = true;     // application.sort.priority (inherited)
  bool priority_fence = false;   // priority.policy: fence (not inherited)
  std::int32_t priority_offset = 0;  // priority.offset (not inherited)
  PreemptionPolicy preemption = PreemptionPolicy::kDefault;  // only disabled is inherited
  Duration preemption_delay = Duration::seconds(30);  // configs.DefaultPreemptionDelay (config.go, read)
  int line = 0;
};

struct Config {
  std::string source;  // the file read ("" for the built-in default)
  std::string partition = "default";
  std::vector<QueueConf> queues;  // [0] is root
  NodeSort node_sort = NodeSort::kFair;
  // nodesortpolicy.resourceweights (defaultResourceWeights: vcore 1, memory 1); slot -> weight.
  std::vector<std::pair<std::size_t, double>> resource_weights{{kCpu, 1.0}, {kMemory, 1.0}};
  bool preemption_enabled = true;  // partition preemption.enabled; nil = true (partition.go updatePreemption, read)
  // kubesim settings, ConfigMap keys "kubesim.*" (not YuniKorn's):
  bool ratios_only = false;  // kubesim.yunikornVersion "1.6": fair sort on ratios only (YUNIKORN-2678)
  Distribution bind_latency = Distribution::parse("uniform:0.002:0.006", "", 0);  // shim Bind -> API
  Distribution cycle_latency = Distribution::parse("uniform:0.0005:0.0015", "", 0);  // one schedule() call

  // The index of a queue by full path, or -1.
  int find(const std::string& path) const;
};

// Reads `path` (ConfigMap or queues.yaml). Throws InputError naming file:line.
Config load_config(const std::string& path, const ResourceNames& names);
// The same from the file's text; `path` names it in errors.
Config load_config_text(const std::string& text, const std::string& path, const ResourceNames& names);
// The study's yunikorn-configs.yaml (examples/yunikorn/yunikorn-configs.yaml), built in.
extern const char* const kDefaultConfigName;
extern const char* const kDefaultConfigText;
// Parses the text of a queues.yaml; `line_offset` is added to error lines.
Config parse_queues_yaml(const std::string& text, const std::string& path, int line_offset, const ResourceNames& names);
// Go's time.ParseDuration for the preemption.delay property; false on a malformed value.
bool parse_go_duration(const std::string& s, Duration* out);

}  // namespace kubesim::yunikorn
