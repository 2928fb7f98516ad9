#include "platform/device_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include "core/quantity.hpp"

namespace kubesim {

namespace {
constexpr std::int64_t kMaxDevicesPerNode = 1024;  // DeviceGrant indexes devices in 16 bits
}  // namespace

std::vector<Device> read_devices_yaml(const YamlInput& input, const YAML::Node& list, const std::string& where) {
  input.require_list(list, where);
  std::vector<Device> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node d = list[i];
    const std::string dw = where + "[" + std::to_string(i) + "]";
    input.require_map(d, dw);
    input.check_keys(d, {"class", "model", "memory", "count", "maxSharers"}, dw);
    Device device;
    if (const YAML::Node c = d["class"]) {
      device.device_class = input.scalar(c, dw + ".class");
      if (device.device_class.empty()) input.fail(c, "expected " + dw + ".class to be non-empty");
    } else {
      device.device_class = kGpuDeviceClass;
    }
    if (const YAML::Node m = d["model"]) device.model = input.scalar(m, dw + ".model");
    if (const YAML::Node m = d["memory"]) device.memory = input.quantity(m, dw + ".memory").value();
    if (const YAML::Node s = d["maxSharers"])
      device.max_sharers = static_cast<std::int32_t>(input.integer(s, dw + ".maxSharers", 1, kDeviceShareUnits));
    std::int64_t count = 1;
    if (const YAML::Node c = d["count"]) count = input.integer(c, dw + ".count", 1, kMaxDevicesPerNode);
    if (static_cast<std::int64_t>(out.size()) + count > kMaxDevicesPerNode)
      input.fail(d, "expected at most " + std::to_string(kMaxDevicesPerNode) + " devices in " + where);
    out.insert(out.end(), static_cast<std::size_t>(count), device);
  }
  return out;
}

}  // namespace kubesim
