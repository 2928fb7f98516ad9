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

std::string to_string(std::span<const DeviceGrant> grants) {
  std::string s;
  for (const DeviceGrant& g : grants) {
    if (!s.empty()) s += ',';
    s += std::to_string(g.device);
    if (g.share < kDeviceShareUnits) s += ":" + std::to_string(g.share);
  }
  return s;
}

}  // namespace kubesim
