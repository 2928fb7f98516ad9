#include "testing/param_name.hpp"

#include <cstdio>

namespace kubesim::testing {

namespace {

const char* spelled(char c) {
  switch (c) {
    case '.':
      return "dot";
    case '+':
      return "plus";
    case '-':
      return "minus";
    case ' ':
      return "space";
    default:
      return nullptr;
  }
}

}  // namespace

std::string case_name(std::size_t index, std::string_view text) {
  char prefix[24];
  std::snprintf(prefix, sizeof prefix, "c%02zu", index);
  std::string out = prefix;
  if (text.empty()) return out + "_empty";
  bool word = false;  // the last thing appended was letters or digits
  for (const char c : text) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (alnum) {
      if (!word) out += '_';
      out += c;
      word = true;
      continue;
    }
    out += '_';
    if (const char* s = spelled(c)) {
      out += s;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += hex;
    }
    word = false;
  }
  return out;
}

}  // namespace kubesim::testing
