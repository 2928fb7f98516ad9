// Splitting command-line lists ("a,b,c").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kubesim {

// The pieces of `text` between `separator`s, empty ones included ("a,,b" -> a, "", b; "" -> "").
inline std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = text.find(separator, pos);
    out.emplace_back(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) return out;
    pos = end + 1;
  }
}

}  // namespace kubesim
