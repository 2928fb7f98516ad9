// Error messages stay one bounded line whatever the input held (issue 32 item 9), and yaml-cpp's
// depth limit is named.
#include "core/error_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/yaml_input.hpp"
#include "testing/input_error.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

TEST(OneLineMessage, KeepsShortMessagesAsTheyAre) {
  const std::string m = "f.yaml:3: expected cpu to be a quantity, got \"abc\"";
  EXPECT_EQ(one_line_message(m), m);
}

TEST(OneLineMessage, CutsALongValueAndSaysItsLength) {
  const std::string value(6 << 20, '9');
  const std::string m = one_line_message("f.yaml:1: bad value \"" + value + "\" in podStartup");
  EXPECT_EQ(m, "f.yaml:1: bad value \"" + std::string(59, '9') + "...(" + std::to_string(value.size() + 2) +
                   " bytes) in podStartup");
  EXPECT_EQ(one_line_message(m), m);  // idempotent
}

TEST(OneLineMessage, CutsAtACharacterBoundaryAndFlattensNewlines) {
  std::string value;
  for (int i = 0; i < 100; ++i) value += "\xc3\xa9";  // é: two bytes each
  const std::string m = one_line_message("x " + value + "\nnext\tline");
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_EQ(m, "x " + value.substr(0, 60) + "...(200 bytes) next line");
}

TEST(OneLineMessage, BoundsAMessageOfManyShortWords) {
  std::string m;
  for (int i = 0; i < 2000; ++i) m += "word ";
  const std::string out = one_line_message(m);
  EXPECT_LE(out.size(), kMaxMessage + 20);
  EXPECT_NE(out.find("...(10000 bytes)"), std::string::npos);
}

TEST(YamlError, NamesTheNestingLimit) {
  testing::ScratchDir dir;
  const std::string path = dir.write("deep.yaml", "a:\n  b: " + std::string(20000, '[') + std::string(20000, ']') + "\n");
  testing::expect_input_error([&] { (void)load_yaml_file(path); }, path, 2, "the limit is 500 levels");
}

}  // namespace
}  // namespace kubesim
