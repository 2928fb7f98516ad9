// Splitting command-line lists ("a,b,c") and CSV records.
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

// One CSV record (RFC 4180): fields split at commas outside double quotes, "" inside quotes
// is a quote; a trailing \r (CRLF files) is dropped.
inline std::vector<std::string> split_csv_record(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace kubesim
