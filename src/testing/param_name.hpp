// Names of the cases of a parameterised test (INSTANTIATE_TEST_SUITE_P's fourth argument),
// so that ctest names are the same in every build: gtest names a case by its index otherwise,
// and CMake's gtest_discover_tests then puts the printed parameter into the ctest name, which
// for a struct is its object bytes (pointers included).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kubesim::testing {

// A gtest case name from any text: letters and digits kept, every other byte spelled
// (e.g. "1.5Gi" -> "1_dot_5Gi", "-1" -> "minus_1", "" -> "empty"), prefixed by the case's
// index so two texts that spell alike stay distinct: "c07_1_dot_5Gi".
std::string case_name(std::size_t index, std::string_view text);

// For suites whose parameter has a `text` field (the input under test):
//   INSTANTIATE_TEST_SUITE_P(Cases, Suite, Values(...), testing::TextCaseName{});
struct TextCaseName {
  template <class Info>
  std::string operator()(const Info& i) const {
    return case_name(i.index, i.param.text);
  }
};

// For suites whose parameter has a `name` field that is already a valid, unique case name:
//   INSTANTIATE_TEST_SUITE_P(Cases, Suite, Values(...), testing::NameField{});
struct NameField {
  template <class Info>
  std::string operator()(const Info& info) const {
    return std::string(info.param.name);
  }
};

}  // namespace kubesim::testing
