// libFuzzer target: Batsim v4 JSON workloads (see fuzz/fuzz_input.hpp for the contract).
#include "fuzz/fuzz_input.hpp"
#include "workload/batsim_workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  const std::string path = fuzz::input_file(data, size, ".json");
  return fuzz::expect_input_errors_only([&] {
    ResourceNames names;
    (void)read_batsim_workload(path, names);
  });
}
