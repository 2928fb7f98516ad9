#include "testing/input_error.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "testing/scratch_dir.hpp"

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

void InputErrorTest::check(std::string_view file_name, const std::function<void(const std::string& path)>& read,
                           std::string_view head) {
  const BadInput& c = GetParam();
  const ScratchDir dir;
  const std::string path = dir.write(file_name, std::string(head) + c.text);
  expect_input_error([&] { read(path); }, path, c.line, c.problem);
}

}  // namespace kubesim::testing
