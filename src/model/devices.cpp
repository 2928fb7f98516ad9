#include "model/devices.hpp"

#include <algorithm>

namespace kubesim {

bool DeviceRequest::accepts(const Device& d) const {
  if (d.device_class != device_class) return false;
  return models.empty() || std::find(models.begin(), models.end(), d.model) != models.end();
}

std::vector<Device> anonymous_devices(std::int64_t count) {
  std::vector<Device> out;
  if (count <= 0) return out;
  out.resize(static_cast<std::size_t>(count), Device{kGpuDeviceClass, "", 0, 1});
  return out;
}

std::vector<Device> gpu_devices(std::int64_t count, const std::string& model) {
  std::vector<Device> out;
  if (count <= 0) return out;
  out.resize(static_cast<std::size_t>(count), Device{kGpuDeviceClass, model, 0, kDeviceShareUnits});
  return out;
}

DeviceRequest gpu_device_request(std::int32_t count, std::int32_t milli, std::string_view models) {
  DeviceRequest r;
  r.count = count;
  r.share = milli;
  // utils.go IsNodeAccessibleToPodByType: "|"-separated, empty entries ignored.
  while (!models.empty()) {
    const std::size_t bar = models.find('|');
    const std::string_view m = models.substr(0, bar);
    if (!m.empty()) r.models.emplace_back(m);
    if (bar == std::string_view::npos) break;
    models.remove_prefix(bar + 1);
  }
  return r;
}

std::string to_string(const DeviceRequest& r) {
  std::string s = r.device_class + " x" + std::to_string(r.count);
  if (!r.whole()) s += " share " + std::to_string(r.share) + "m";
  if (!r.models.empty()) {
    s += " (";
    for (std::size_t i = 0; i < r.models.size(); ++i) s += (i ? "|" : "") + r.models[i];
    s += ")";
  }
  return s;
}

std::string to_string(std::span<const DeviceGrant> grants, char separator) {
  std::string s;
  for (const DeviceGrant& g : grants) {
    if (!s.empty()) s += separator;
    s += std::to_string(g.device);
    if (g.share < kDeviceShareUnits) s += ":" + std::to_string(g.share);
  }
  return s;
}

}  // namespace kubesim
