#include "testing/input_error.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace kubesim::testing {

void expect_input_error(const std::function<void()>& read, const std::string& file, int line,
                        std::string_view problem) {
  try {
    read();
    ADD_FAILURE() << "no InputError; expected " << file << ":" << line << ": " << problem;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), file) << what;
    EXPECT_EQ(e.line(), line) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what << "\n  expected to contain: " << problem;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace kubesim::testing
