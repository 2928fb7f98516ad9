// libFuzzer target: HTTP request bodies through the API server (api/api_server) without the
// socket: "<method byte><resource byte><body>". Every request must get a Status or an object
// (never 500, which means an unexpected exception), and release the in-flight count cosim
// waits on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "api/api_server.hpp"

namespace {

kubesim::SimulationInputs small_cluster() {
  kubesim::SimulationInputs in;
  for (int i = 0; i < 2; ++i) {
    kubesim::Node n;
    n.name = "node-" + std::to_string(i);
    n.allocatable[kubesim::kCpu] = 4000;
    n.allocatable[kubesim::kMemory] = 16LL << 30;
    n.capacity = n.allocatable;
    in.nodes.push_back(std::move(n));
  }
  in.scheduler = kubesim::default_scheduler_config(in.resource_names);
  return in;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  if (size < 2) return 0;
  static const char* const kMethods[] = {"POST", "PUT", "PATCH", "DELETE"};
  static const char* const kPaths[] = {"/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/pods/p",
                                       "/api/v1/namespaces/default/pods/p/binding", "/api/v1/nodes",
                                       "/apis/batch/v1/namespaces/default/jobs", "/api/v1/namespaces",
                                       "/api/v1/namespaces/default/resourcequotas", "/api/v1/namespaces/default/events",
                                       "/apis/scheduling.k8s.io/v1/priorityclasses",
                                       "/api/v1/namespaces/default/pods/p/status"};
  SimulationOptions options;
  options.model = ModelConfig::ideal();
  Simulation sim(small_cluster(), options);
  api::ApiServer server(sim, api::ApiOptions{});
  api::ApiRequest r;
  r.method = kMethods[data[0] % 4];
  r.path = kPaths[data[1] % (sizeof kPaths / sizeof *kPaths)];
  r.content_type = r.method == "PATCH" ? "application/merge-patch+json" : "application/json";
  r.body.assign(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::shared_ptr<api::Watch> watch;
  const api::ApiResponse out = server.handle(r, &watch);
  if (out.status >= 500 || server.in_flight() != 0) std::abort();
  return 0;
}
