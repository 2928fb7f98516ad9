// Error messages as a user reads them: one line, whatever the input held. A message echoes
// the offending value ("got \"...\""), and a value can be a 6 MB line of a mutated file;
// printed whole it buries the message. Applied where a message leaves kubesim (the CLI's
// error line, an API Status), so that every reader's messages are bounded at once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kubesim {

// Every run of non-blank characters longer than `max_word` bytes is cut to its first
// `keep` bytes (at a UTF-8 character boundary) followed by "...(N bytes)"; control
// characters (a newline inside an echoed value) become spaces, so the message stays one line.
// A message longer than kMaxMessage bytes after that is cut there. Idempotent: a shortened
// message is not shortened again.
inline constexpr std::size_t kMaxEchoedWord = 120;
inline constexpr std::size_t kMaxMessage = 2000;
std::string one_line_message(std::string_view message, std::size_t max_word = kMaxEchoedWord);

}  // namespace kubesim
