#include "model/resources.hpp"

namespace kubesim {

int ResourceNames::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  return -1;
}

int ResourceNames::slot(std::string_view name) {
  if (int i = find(name); i >= 0) return i;
  if (names_.size() >= kMaxResources) return -1;
  names_.emplace_back(name);
  reasons_.push_back("Insufficient " + std::string(name));
  return static_cast<int>(names_.size() - 1);
}

}  // namespace kubesim
