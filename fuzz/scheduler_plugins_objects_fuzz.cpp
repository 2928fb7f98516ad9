// libFuzzer target: scheduler-plugins ElasticQuota and PodGroup objects (see fuzz/fuzz_input.hpp for the contract).
#include "fuzz/fuzz_input.hpp"
#include "sched/scheduler_plugins_objects.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  const std::string path = fuzz::input_file(data, size, ".yaml");
  return fuzz::expect_input_errors_only([&] {
    ResourceNames names;
    (void)read_scheduler_plugins_objects(path, names);
  });
}
