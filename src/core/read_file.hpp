// Reading an input file whole; a missing or unreadable file is an InputError naming it.
#pragma once

#include <string>
#include <string_view>

#include "core/parse_number.hpp"

namespace kubesim {

std::string read_input_file(const std::string& path);

// Calls on_line(line_number, line) for each line of `text` (1-based numbers; the line trimmed
// of spaces, tabs and \r; empty lines skipped) and returns the number of the last line.
template <typename OnLine>
int for_each_trimmed_line(std::string_view text, OnLine&& on_line) {
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_number;
    if (!line.empty()) on_line(line_number, line);
  }
  return line_number;
}

}  // namespace kubesim
