#include "engine/shipped_models.hpp"

namespace kubesim {

std::span<const ShippedModel> shipped_models() {
  static constexpr ShippedModel kModels[] = {
#include "shipped_models.inc"
  };
  return kModels;
}

}  // namespace kubesim
