// Alibaba's GPU cluster trace "openb" (cluster-trace-gpu-v2023, the trace of Weng et al.,
// "Beware of Fragmentation", USENIX ATC'23), read directly from its CSV files:
//
//   nodes: sn,cpu_milli,memory_mib,gpu,model
//   pods:  name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,creation_time,
//          deletion_time,scheduled_time]   (the multigpu* files carry only the first five)
//
// Columns are found by their header names, so their order does not matter; extra columns are
// ignored. A bad row (a missing field, a negative number, gpu_milli above 1000, a share of a
// GPU (gpu_milli < 1000) asked with num_gpu other than 1, a GPU model no node has, a deletion
// before its creation) is an InputError naming FILE:LINE; nothing is returned.
//
// The authors' converter (hkust-adsl/kubernetes-scheduler-simulator data/pod_csv_to_yaml.py)
// gives a pod with num_gpu 0 no GPU annotation at all (gpu_milli is then ignored), and one
// with num_gpu > 0 gpu_milli in (0, 1000]; the reader keeps the same meaning.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kubesim {

struct OpenbNode {
  std::string name;         // sn
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t gpus = 0;
  std::string model;        // empty: a CPU-only node
};

struct OpenbPod {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t num_gpu = 0;
  std::int32_t gpu_milli = 0;       // per GPU; 0 when num_gpu is 0
  std::vector<std::string> models;  // gpu_spec: any of these models (empty: any)
  bool timed = false;               // the file has creation_time and deletion_time
  std::int64_t creation_s = 0;
  std::int64_t deletion_s = 0;
  std::int64_t total_gpu_milli() const { return static_cast<std::int64_t>(num_gpu) * gpu_milli; }
  bool shares_gpu() const { return num_gpu == 1 && gpu_milli < 1000; }
};

struct OpenbTrace {
  std::string nodes_file, pods_file;
  std::vector<OpenbNode> nodes;  // in file order
  std::vector<OpenbPod> pods;    // in file order
  std::vector<std::string> models;  // the GPU models of the nodes, sorted
  std::int64_t total_gpus() const;
};

std::vector<OpenbNode> read_openb_nodes(const std::string& path);
// `models`: the GPU models the cluster has (sorted); a pod naming another one is refused.
std::vector<OpenbPod> read_openb_pods(const std::string& path, const std::vector<std::string>& models);
// Both files, pods checked against the nodes' models.
OpenbTrace read_openb_trace(const std::string& nodes_path, const std::string& pods_path);

// The trace's name as the authors' result files show it: the pod file's name without ".csv".
std::string openb_workload_name(const std::string& pods_path);

}  // namespace kubesim
