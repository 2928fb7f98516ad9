// Errors. Bad user input throws InputError (file, line, what was expected); the CLI turns it
// into one line on stderr and a non-zero exit. Broken internal invariants use KUBESIM_ASSERT.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace kubesim {

class InputError : public std::runtime_error {
 public:
  // line 0 means "no line" (e.g. a command-line value or a whole-file problem).
  InputError(std::string file, int line, const std::string& problem)
      : std::runtime_error(compose(file, line, problem)), file_(std::move(file)), line_(line), problem_(problem) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& problem() const { return problem_; }

 private:
  static std::string compose(const std::string& file, int line, const std::string& problem) {
    if (file.empty()) return problem;
    std::string out;
    out.append(file);
    if (line > 0) out.append(":").append(std::to_string(line));
    out.append(": ").append(problem);
    return out;
  }
  std::string file_;
  int line_;
  std::string problem_;
};

[[noreturn]] inline void assertion_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "kubesim: internal error: %s (%s:%d)\n", expr, file, line);
  std::abort();
}

}  // namespace kubesim

#define KUBESIM_ASSERT(expr) ((expr) ? (void)0 : ::kubesim::assertion_failed(#expr, __FILE__, __LINE__))
