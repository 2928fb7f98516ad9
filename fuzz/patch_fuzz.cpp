// libFuzzer target: JSON merge, strategic merge and JSON patches (api/patch) of a pod. The
// input is "<patch type byte><patch JSON>"; malformed JSON is the HTTP layer's 400, bad
// patches throw PatchError (422); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/patch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using nlohmann::json;
  if (size < 1) return 0;
  static const json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
    "spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"X","value":"1"}]}],"tolerations":[]},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]}})");
  json patch;
  try {
    patch = json::parse(reinterpret_cast<const char*>(data) + 1, reinterpret_cast<const char*>(data) + size);
  } catch (const json::exception&) {
    return 0;
  }
  try {
    switch (data[0] % 3) {
      case 0: (void)kubesim::api::merge_patch(pod, patch); break;
      case 1: (void)kubesim::api::strategic_merge_patch(pod, patch); break;
      default: (void)kubesim::api::json_patch(pod, patch); break;
    }
  } catch (const kubesim::api::PatchError&) {
  }
  return 0;
}
