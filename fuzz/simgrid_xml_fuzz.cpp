// libFuzzer target: SimGrid/Batsim platform XML (see fuzz/fuzz_input.hpp for the contract).
#include "fuzz/fuzz_input.hpp"
#include "platform/simgrid_platform.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  const std::string path = fuzz::input_file(data, size, ".xml");
  return fuzz::expect_input_errors_only([&] {
    ResourceNames names;
    (void)read_simgrid_platform(path, names);
  });
}
