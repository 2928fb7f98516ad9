// Devices in the model: what a node carries (GPUs and the like, each with an identity), what a
// pod template asks for, and what a pod was given.
//
// A device may be shared: its capacity is kDeviceShareUnits share units (milli-devices, as
// the "openb" GPU traces of FGD, Weng et al. ATC'23, request 0 < gpu_milli <= 1000 of one
// GPU), and `max_sharers` caps how many pods may hold a part of it at once. A whole device is
// all its units. A node whose allocatable names `nvidia.com/gpu: N` and that declares no
// devices has N anonymous whole devices of that class (anonymous_devices), so whole-GPU
// requests (the extended resource `nvidia.com/gpu: k`) keep their meaning: k wholly free
// devices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim {

// The device class of the GPUs an extended resource counts (the NVIDIA device plugin's name).
inline constexpr const char* kGpuDeviceClass = "nvidia.com/gpu";
// Share units of one device: a whole device is 1000 milli-devices.
inline constexpr std::int32_t kDeviceShareUnits = 1000;
// The node label naming the model of a node's GPUs, and the pod annotations of a GPU request,
// as the FGD authors' open-gpu-share names them (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/type/open-gpu-share/utils/const.go: ModelName, ResourceName, CountName).
inline constexpr const char* kGpuModelLabel = "alibabacloud.com/gpu-card-model";
inline constexpr const char* kGpuMilliAnnotation = "alibabacloud.com/gpu-milli";
inline constexpr const char* kGpuCountAnnotation = "alibabacloud.com/gpu-count";
inline constexpr const char* kGpuModelAnnotation = kGpuModelLabel;

struct Device {
  std::string device_class;  // e.g. nvidia.com/gpu
  std::string model;         // e.g. V100M16; empty: anonymous (any model)
  std::int64_t memory = 0;   // bytes (0: not stated)
  std::int32_t max_sharers = 1;  // pods that may hold a share of it at once (>= 1)
  bool operator==(const Device&) const = default;
};

// A pod template's request for devices: `count` devices of `device_class`, `share` milli of
// each (kDeviceShareUnits: whole devices), of one of `models` (empty: any model).
struct DeviceRequest {
  std::string device_class = kGpuDeviceClass;
  std::int32_t count = 1;
  std::int32_t share = kDeviceShareUnits;
  std::vector<std::string> models;
  bool whole() const { return share >= kDeviceShareUnits; }
  bool accepts(const Device& d) const;  // class and model match
  bool operator==(const DeviceRequest&) const = default;
};

// One device given to a pod: its index in the node's device list and the share it holds.
struct DeviceGrant {
  std::uint16_t device = 0;
  std::int32_t share = kDeviceShareUnits;
  bool operator==(const DeviceGrant&) const = default;
};
using DeviceGrants = std::vector<DeviceGrant>;

// What is in use of one device: the share units held and by how many pods.
struct DeviceUse {
  std::int32_t used = 0;
  std::int32_t sharers = 0;
  std::int32_t free_share() const { return kDeviceShareUnits - used; }
};

// The devices of a node with no declared list: `count` anonymous whole devices of the GPU
// class (count is the node's allocatable nvidia.com/gpu; 0 gives none).
std::vector<Device> anonymous_devices(std::int64_t count);

// `count` GPUs of `model` that any number of pods may share (open-gpu-share caps a GPU by its
// milli only): the devices of a node labelled with kGpuModelLabel.
std::vector<Device> gpu_devices(std::int64_t count, const std::string& model);
// A request for `count` GPUs with `milli` of each (1000: whole), of one of `models` ("A|B"
// split; empty: any model): the openb annotations' meaning.
DeviceRequest gpu_device_request(std::int32_t count, std::int32_t milli, std::string_view models);

// "nvidia.com/gpu x2 (V100M16)"-style text of a request, for messages and tables.
std::string to_string(const DeviceRequest& r);
// Grants as "0,1" or "3:500" (device index, then :share when not whole); `separator` between
// grants (pods.csv uses '-', the fork's DevIdSep, so that the field needs no quotes).
std::string to_string(std::span<const DeviceGrant> grants, char separator = ',');

}  // namespace kubesim
