// libFuzzer target: KubeSchedulerConfiguration (see fuzz/fuzz_input.hpp for the contract).
#include "fuzz/fuzz_input.hpp"
#include "sched/kube/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  const std::string path = fuzz::input_file(data, size, ".yaml");
  return fuzz::expect_input_errors_only([&] {
    ResourceNames names;
    (void)load_scheduler_config(path, names);
  });
}
