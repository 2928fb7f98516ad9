// A strict, streaming JSON reader for workload files: the caller walks the document (objects
// member by member, arrays element by element) and reads the scalars it wants straight from
// the text, with no DOM and no string copies (a string is a view into the text, decoded only
// when it holds escapes). Values the caller does not want are skipped, iteratively (any depth),
// but still fully checked. The line of the current position is tracked for error messages.
//
// It accepts exactly the documents nlohmann::json::parse (v3.11) accepts, with the same value
// classification, so that readers keep nlohmann's semantics (src/workload/json_cursor_test.cpp
// and fuzz/batsim_json_fuzz.cpp compare the two):
//   - RFC 8259 grammar, one value then only whitespace (space, tab, CR, LF) up to the end or
//     to a NUL byte, after which nothing is read (nlohmann lexer::scan takes a NUL for the end
//     of input); a leading UTF-8 BOM is skipped (nlohmann lexer::skip_bom);
//   - strings: no raw control characters (< 0x20), escapes \" \\ \/ \b \f \n \r \t \uXXXX with
//     surrogate pairs matched, UTF-8 well-formed per RFC 3629 (nlohmann lexer::scan_string);
//   - numbers: an integer token (no fraction, no exponent) is unsigned when it has no sign and
//     fits uint64, signed when it has a sign and fits int64 ("-0" is signed 0), else a double;
//     a double that overflows to infinity is an error (nlohmann parser, out_of_range.406),
//     one that underflows is kept (0 or subnormal, as strtod gives).
// Malformed input throws JsonCursor::Malformed, which carries no message: the caller produces
// the diagnostic (batsim_workload.cpp re-parses with nlohmann to give its exact wording).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim {

// A value as read: a scalar with its text, or the kind of a container that was skipped.
struct JsonValue {
  enum class Kind : std::uint8_t { kAbsent, kNull, kBool, kString, kUnsigned, kSigned, kFloat, kObject, kArray };
  Kind kind = Kind::kAbsent;
  bool escaped = false;   // a string holding backslash escapes: decode it with JsonCursor::decode
  std::string_view text;  // a string's contents between its quotes (still escaped)
  std::uint64_t u = 0;    // kUnsigned
  std::int64_t i = 0;     // kSigned
  double d = 0;           // kFloat; as_double() for any number

  bool present() const { return kind != Kind::kAbsent; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_number() const { return kind == Kind::kUnsigned || kind == Kind::kSigned || kind == Kind::kFloat; }
  bool is_number_unsigned() const { return kind == Kind::kUnsigned; }
  bool is_number_integer() const { return kind == Kind::kUnsigned || kind == Kind::kSigned; }
  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  // nlohmann's get<double>() of a number.
  double as_double() const {
    return kind == Kind::kUnsigned ? static_cast<double>(u) : kind == Kind::kSigned ? static_cast<double>(i) : d;
  }
};

class JsonCursor {
 public:
  struct Malformed {};

  explicit JsonCursor(std::string_view text);
  // Resumes at a position an earlier cursor reported (offset(), line()), e.g. to read again a
  // part of the document that was only checked the first time.
  JsonCursor(std::string_view text, std::size_t offset, int line) : t_(text), p_(offset), line_(line) {}

  // Skips whitespace and returns the next character ('\0' at the end of the text).
  char peek();
  // The 1-based line of the current position (call peek() first to be at the next token).
  int line() const { return line_; }
  std::size_t offset() const { return p_; }

  // Objects: begin_object() at '{'; then while (next_member(key)) { read or skip the value }.
  void begin_object() { open('{'); }
  // Reads the next member's key and its ':' (key: its raw text, decode() when escaped);
  // false after the closing '}'.
  bool next_member(JsonValue& key);
  // The line where the key that next_member() read starts.
  int key_line() const { return key_line_; }
  // Arrays: begin_array() at '['; then while (next_element()) { read or skip the element }.
  void begin_array() { open('['); }
  bool next_element();

  // Reads the value at the current position: a scalar, or a container, skipped and checked.
  JsonValue value();
  // After the top-level value: only whitespace may follow.
  void end();

  // A string value's contents as UTF-8 (escapes resolved).
  static std::string decode(const JsonValue& s);
  // The string's contents, decoded into `scratch` only when it holds escapes.
  static std::string_view text_of(const JsonValue& s, std::string& scratch);

 private:
  [[noreturn]] static void fail() { throw Malformed{}; }
  void open(char c);
  // The step to the next member or element of the innermost open object or array: false
  // (and the container closed) at its `close`, else past the separating comma if any.
  bool advance_in(char close);
  void skip_ws();
  void scalar(JsonValue& v);
  void string(JsonValue& v);
  void number(JsonValue& v);
  void literal(std::string_view word);
  void skip_container();

  std::string_view t_;
  std::size_t p_ = 0;
  int line_ = 1;
  int key_line_ = 1;
  // Per open object/array (innermost last): its closing character and whether an element was read.
  struct Frame {
    char close;
    bool any;
  };
  std::vector<Frame> frames_;
  std::vector<char> skip_stack_;  // skip_container's own closers, reused
};

}  // namespace kubesim
