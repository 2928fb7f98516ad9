// The latency models shipped inside kubesim, selectable by name (`--model k3s-batkube`): the
// files src/engine/models/<name>.yaml, compiled in by CMake (shipped_models.inc), so that a
// model name works wherever the binary runs.
#pragma once

#include <span>
#include <string_view>

namespace kubesim {

struct ShippedModel {
  std::string_view name;
  std::string_view text;
};

std::span<const ShippedModel> shipped_models();

}  // namespace kubesim
