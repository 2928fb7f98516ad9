// Shortest round-trip text of a double (std::to_chars), which is what Python's repr() prints
// for the study's figures; whole numbers print without a fraction ("30", not "30.0").
#pragma once

#include <charconv>
#include <string>

namespace kubesim::bsp {

inline std::string number_text(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

}  // namespace kubesim::bsp

namespace kubesim::bsp {

// Python's repr() of a float: as number_text, with ".0" on whole numbers.
inline std::string python_float_text(double v) {
  std::string s = number_text(v);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

}  // namespace kubesim::bsp
