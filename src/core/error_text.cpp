#include "core/error_text.hpp"

#include <algorithm>

namespace kubesim {

namespace {

bool blank(char c) { return c == ' ' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// The start of the UTF-8 character holding byte `at` (continuation bytes are 10xxxxxx).
std::size_t character_start(std::string_view s, std::size_t at) {
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::string one_line_message(std::string_view message, std::size_t max_word) {
  const std::size_t keep = max_word / 2;
  std::string out;
  out.reserve(std::min(message.size(), std::size_t{4096}));
  std::size_t i = 0;
  while (i < message.size()) {
    if (blank(message[i])) {
      out += ' ';
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < message.size() && !blank(message[end])) ++end;
    const std::string_view word = message.substr(i, end - i);
    if (word.size() <= max_word) {
      out += word;
    } else {
      out += word.substr(0, character_start(word, keep));
      out += "...(" + std::to_string(word.size()) + " bytes)";
    }
    i = end;
  }
  // Many short words (a flow list echoed whole) are bounded too.
  if (out.size() > kMaxMessage) {
    const std::size_t total = out.size();
    out.resize(character_start(out, kMaxMessage));
    out += "...(" + std::to_string(total) + " bytes)";
  }
  return out;
}

}  // namespace kubesim
