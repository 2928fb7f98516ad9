// The one check of a reader's refusal (core/error.hpp InputError): the tests of every input
// format (cluster YAML, SimGrid XML, Batsim JSON, SWF, manifests, scenarios) expect the same.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>

namespace kubesim::testing {

// Runs `read` and expects it to throw an InputError for `file` at `line` (0: no line) whose
// message is one line and contains `problem`. A failure names `problem`, so a table of cases
// shows which one failed.
void expect_input_error(const std::function<void()>& read, const std::string& file, int line, std::string_view problem);

// One case of a reader's table of bad inputs.
struct BadInput {
  const char* name;     // the case's name (Suite.Test/<name>; see NameField in testing/param_name.hpp)
  std::string text;     // the file's content
  int line;             // where the error is (0: no line)
  const char* problem;  // a substring of the message
};

// The parameterised fixture of such a table:
//   class SwfErrors : public testing::InputErrorTest {};
//   TEST_P(SwfErrors, NamesFileLineAndProblem) { check("trace.swf", [](const std::string& p) { read_swf(p); }); }
//   INSTANTIATE_TEST_SUITE_P(Cases, SwfErrors, ::testing::Values(BadInput{...}, ...), testing::NameField{});
class InputErrorTest : public ::testing::TestWithParam<BadInput> {
 protected:
  // Writes `head` + the case's text to `file_name` in a scratch folder and expects `read` of
  // its path to throw the case's InputError.
  void check(std::string_view file_name, const std::function<void(const std::string& path)>& read,
             std::string_view head = "");
};

}  // namespace kubesim::testing
