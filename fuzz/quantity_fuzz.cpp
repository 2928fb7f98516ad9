// libFuzzer target: Kubernetes quantities (core/quantity). parse() must never throw; a
// quantity it accepts must give the same value twice and never be negative and out of range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto q = kubesim::Quantity::parse(text, &error);
  if (!q) return 0;
  if (q->milli_value() != kubesim::Quantity::parse(text, nullptr)->milli_value()) std::abort();
  if (q->negative() && q->milli_value() > 0) std::abort();
  return 0;
}
