// libFuzzer target: Kubernetes manifests (see fuzz/fuzz_input.hpp for the contract).
#include "fuzz/fuzz_input.hpp"
#include "workload/k8s_manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  const std::string path = fuzz::input_file(data, size, ".yaml");
  return fuzz::expect_input_errors_only([&] {
    ResourceNames names;
    (void)read_manifest_file(path, names);
  });
}
