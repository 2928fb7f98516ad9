// libFuzzer target: label selectors of list/watch requests (api/selector). Bad selectors
// throw SelectorError (the API's 400); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/selector.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)kubesim::api::parse_label_selector(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const kubesim::api::SelectorError&) {
  }
  return 0;
}
