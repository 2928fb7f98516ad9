#include "workload/json_cursor.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace kubesim {
namespace {

// Reads a whole document through the cursor, as the readers do: objects and arrays member
// by member at the top, values below. Returns whether it was accepted.
bool cursor_accepts(std::string_view text) {
  try {
    JsonCursor in(text);
    const char c = in.peek();
    JsonValue key;
    if (c == '{') {
      in.begin_object();
      while (in.next_member(key)) in.value();
    } else if (c == '[') {
      in.begin_array();
      while (in.next_element()) in.value();
    } else {
      in.value();
    }
    in.end();
    return true;
  } catch (const JsonCursor::Malformed&) {
    return false;
  }
}

// The cursor accepts exactly what nlohmann::json accepts (the contract in json_cursor.hpp).
TEST(JsonCursor, AcceptsWhatNlohmannAccepts) {
  using namespace std::string_literals;
  const std::string cases[] = {
      "{}", "[]", " {\"a\":1} \n", "\xEF\xBB\xBF{}", "{\"a\":1,}", "[1,]", "[,1]", "[1 2]", "{\"a\" 1}", "{\"a\":}",
      "{1:2}", "{\"a\":1 \"b\":2}", "{,}", "01", "-", "-0", "-01", "1.", ".5", "1e", "1e+", "1E-2", "+1", "1.5e3",
      "NaN", "Infinity", "tru", "true", "truex", "nul", "null", "false", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
      "\"\\uD800\"", "\"\\uD800\\uDC00\"", "\"\\uD800\\u0041\"", "\"\\uDC00\"", "\"\\ud83d\\ude00\"", "\"\t\"",
      "\"\x7f\"", "\"\xC3\xA9\"", "\"\xC3\"", "\"\xC1\xBF\"", "\"\xC0\x80\"", "\"\xE0\x9F\xBF\"", "\"\xE0\xA0\x80\"",
      "\"\xED\xA0\x80\"", "\"\xED\x9F\xBF\"", "\"\xF0\x8F\xBF\xBF\"", "\"\xF0\x9F\x98\x80\"", "\"\xF4\x8F\xBF\xBF\"",
      "\"\xF4\x90\x80\x80\"", "\"\xF5\x80\x80\x80\"", "\"\xFF\"", "\"abc", "\"\\", "1e400", "-1e400", "1e-400",
      "4.9e-324", "18446744073709551616", "-9223372036854775809", "[[[[[]]]]]", "[[[[[]]]]", "[]]", "{} x", "",
      " ", "\0"s, "[1]\0"s, "[1]\0x"s, "[1,\0]"s, "1\0"s, "[\"a\0\"]"s, "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}", "{\"a\":{\"b\":[}]}}",
      "\xEF\xBB{}", "\xEF\xBB\xBF", std::string(5000, '[') + std::string(5000, ']'),
      "{\"a\":" + std::string(3000, '[') + std::string(3000, ']') + "}"};
  for (const std::string& text : cases) {
    EXPECT_EQ(cursor_accepts(text), nlohmann::json::accept(text)) << text.substr(0, 80);
  }
}

// Scalars are classified, converted and decoded as nlohmann does.
TEST(JsonCursor, ClassifiesScalarsAsNlohmann) {
  const char* cases[] = {"0", "-0", "7", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
                         "-9223372036854775809", "1.0", "1e2", "-2.5E-3", "0.1", "1e-400", "123456789012345678901234",
                         "\"plain\"", "\"a\\n\\u00e9\\ud83d\\ude00\\/\\\"\\\\\\b\\f\\r\\t\""};
  for (const char* text : cases) {
    const nlohmann::json expected = nlohmann::json::parse(text);
    JsonCursor in(text);
    const JsonValue v = in.value();
    in.end();
    SCOPED_TRACE(text);
    EXPECT_EQ(v.is_string(), expected.is_string());
    EXPECT_EQ(v.is_number(), expected.is_number());
    EXPECT_EQ(v.is_number_unsigned(), expected.is_number_unsigned());
    EXPECT_EQ(v.is_number_integer(), expected.is_number_integer());
    if (expected.is_string()) {
      EXPECT_EQ(JsonCursor::decode(v), expected.get<std::string>());
    }
    if (expected.is_number()) {
      EXPECT_EQ(v.as_double(), expected.get<double>());
    }
    if (expected.is_number_unsigned()) {
      EXPECT_EQ(v.u, expected.get<std::uint64_t>());
    }
    if (expected.is_number_integer() && !expected.is_number_unsigned()) {
      EXPECT_EQ(v.i, expected.get<std::int64_t>());
    }
  }
}

TEST(JsonCursor, TracksLinesAndMembers) {
  JsonCursor in("{\n\"a\": 1,\n\n  \"b\"\n: [true,\n null]}\n");
  in.begin_object();
  JsonValue key;
  ASSERT_TRUE(in.next_member(key));
  EXPECT_EQ(key.text, "a");
  EXPECT_EQ(in.key_line(), 2);
  EXPECT_EQ(in.value().kind, JsonValue::Kind::kUnsigned);
  ASSERT_TRUE(in.next_member(key));
  EXPECT_EQ(key.text, "b");
  EXPECT_EQ(in.key_line(), 4);
  in.begin_array();
  ASSERT_TRUE(in.next_element());
  EXPECT_EQ(in.line(), 5);
  EXPECT_EQ(in.value().kind, JsonValue::Kind::kBool);
  ASSERT_TRUE(in.next_element());
  in.peek();
  EXPECT_EQ(in.line(), 6);
  EXPECT_EQ(in.value().kind, JsonValue::Kind::kNull);
  EXPECT_FALSE(in.next_element());
  EXPECT_FALSE(in.next_member(key));
  in.end();
}

}  // namespace
}  // namespace kubesim
