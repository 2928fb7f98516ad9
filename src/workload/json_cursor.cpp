#include "workload/json_cursor.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

namespace kubesim {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits at text[p..p+4) as a code unit, or -1.
long hex4(std::string_view text, std::size_t p) {
  if (p + 4 > text.size()) return -1;
  long v = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const int h = hex_value(text[p + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

JsonCursor::JsonCursor(std::string_view text) : t_(text) {
  if (t_.substr(0, 3) == "\xEF\xBB\xBF") p_ = 3;
}

void JsonCursor::skip_ws() {
  while (p_ < t_.size()) {
    const char c = t_[p_];
    if (c == '\n') {
      ++line_;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    ++p_;
  }
}

char JsonCursor::peek() {
  skip_ws();
  return p_ < t_.size() ? t_[p_] : '\0';
}

void JsonCursor::open(char c) {
  if (peek() != c) fail();
  ++p_;
  frames_.push_back(Frame{c == '{' ? '}' : ']', false});
}

bool JsonCursor::advance_in(char close) {
  Frame& f = frames_.back();
  const char c = peek();
  if (c == close) {
    ++p_;
    frames_.pop_back();
    return false;
  }
  if (f.any) {
    if (c != ',') fail();
    ++p_;
  }
  f.any = true;
  return true;
}

bool JsonCursor::next_member(JsonValue& key) {
  if (!advance_in('}')) return false;
  if (peek() != '"') fail();
  key_line_ = line_;
  string(key);
  if (peek() != ':') fail();
  ++p_;
  return true;
}

bool JsonCursor::next_element() {
  return advance_in(']');  // value() fails if no value follows (e.g. a trailing comma)
}

JsonValue JsonCursor::value() {
  JsonValue v;
  const char c = peek();
  if (c == '{' || c == '[') {
    skip_container();
    v.kind = c == '{' ? JsonValue::Kind::kObject : JsonValue::Kind::kArray;
  } else {
    scalar(v);
  }
  return v;
}

void JsonCursor::end() {
  if (!frames_.empty()) fail();
  skip_ws();
  // nlohmann's lexer reads a NUL byte where a token may start as the end of the input.
  if (p_ != t_.size() && t_[p_] != '\0') fail();
}

void JsonCursor::scalar(JsonValue& v) {
  switch (p_ < t_.size() ? t_[p_] : '\0') {
    case '"': string(v); return;
    case 't': literal("true"); v.kind = JsonValue::Kind::kBool; return;
    case 'f': literal("false"); v.kind = JsonValue::Kind::kBool; return;
    case 'n': literal("null"); v.kind = JsonValue::Kind::kNull; return;
    default: number(v); return;
  }
}

void JsonCursor::literal(std::string_view word) {
  if (t_.substr(p_, word.size()) != word) fail();
  p_ += word.size();
}

void JsonCursor::string(JsonValue& v) {
  // nlohmann lexer::scan_string: escapes, control characters and UTF-8 byte ranges.
  ++p_;  // the opening quote
  const std::size_t start = p_;
  const std::size_t n = t_.size();
  bool escaped = false;
  for (;;) {
    if (p_ >= n) fail();
    const auto c = static_cast<unsigned char>(t_[p_]);
    if (c == '"') break;
    if (c == '\\') {
      escaped = true;
      if (++p_ >= n) fail();
      switch (t_[p_]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          ++p_;
          continue;
        case 'u': {
          const long unit = hex4(t_, p_ + 1);
          if (unit < 0) fail();
          p_ += 5;
          if (unit >= 0xDC00 && unit <= 0xDFFF) fail();  // a low surrogate alone
          if (unit >= 0xD800 && unit <= 0xDBFF) {        // a high surrogate: its low one must follow
            if (p_ + 1 >= n || t_[p_] != '\\' || t_[p_ + 1] != 'u') fail();
            const long low = hex4(t_, p_ + 2);
            if (low < 0xDC00 || low > 0xDFFF) fail();
            p_ += 6;
          }
          continue;
        }
        default: fail();
      }
    }
    if (c < 0x20) fail();
    ++p_;
    if (c < 0x80) continue;
    // RFC 3629 well-formed sequences: the lead byte fixes the count and the second byte's range.
    int more = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c == 0xE0) {
      more = 2, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      more = 2;
    } else if (c == 0xED) {
      more = 2, hi = 0x9F;
    } else if (c == 0xF0) {
      more = 3, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      more = 3;
    } else if (c == 0xF4) {
      more = 3, hi = 0x8F;
    } else {
      fail();
    }
    for (int k = 0; k < more; ++k, ++p_) {
      if (p_ >= n) fail();
      const auto b = static_cast<unsigned char>(t_[p_]);
      if (b < (k == 0 ? lo : 0x80) || b > (k == 0 ? hi : 0xBF)) fail();
    }
  }
  v.kind = JsonValue::Kind::kString;
  v.text = t_.substr(start, p_ - start);
  v.escaped = escaped;
  ++p_;  // the closing quote
}

void JsonCursor::number(JsonValue& v) {
  const std::size_t n = t_.size();
  const std::size_t start = p_;
  const auto digit_at = [&](std::size_t i) { return i < n && is_digit(t_[i]); };
  if (p_ < n && t_[p_] == '-') ++p_;
  if (p_ < n && t_[p_] == '0') {
    ++p_;
  } else if (digit_at(p_)) {
    while (digit_at(p_)) ++p_;
  } else {
    fail();
  }
  bool integer = true;
  if (p_ < n && t_[p_] == '.') {
    integer = false;
    if (!digit_at(++p_)) fail();
    while (digit_at(p_)) ++p_;
  }
  if (p_ < n && (t_[p_] == 'e' || t_[p_] == 'E')) {
    integer = false;
    ++p_;
    if (p_ < n && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
    if (!digit_at(p_)) fail();
    while (digit_at(p_)) ++p_;
  }
  const char* first = t_.data() + start;
  const char* last = t_.data() + p_;
  // nlohmann lexer::scan_number: strtoull / strtoll for integer tokens, falling back to a
  // double when the value does not fit.
  if (integer && *first == '-') {
    if (std::from_chars(first, last, v.i).ec == std::errc()) {
      v.kind = JsonValue::Kind::kSigned;
      return;
    }
  } else if (integer) {
    if (std::from_chars(first, last, v.u).ec == std::errc()) {
      v.kind = JsonValue::Kind::kUnsigned;
      return;
    }
  }
  // from_chars and strtod both round correctly; from_chars refuses results out of range both
  // ways, where strtod gives 0 or a subnormal for underflow, which nlohmann keeps.
  const std::from_chars_result r = std::from_chars(first, last, v.d);
  if (r.ec == std::errc::result_out_of_range) {
    v.d = std::strtod(std::string(first, last).c_str(), nullptr);
  } else if (r.ec != std::errc() || r.ptr != last) {
    fail();
  }
  if (!std::isfinite(v.d)) fail();  // nlohmann: out_of_range.406 "number overflow"
  v.kind = JsonValue::Kind::kFloat;
}

void JsonCursor::skip_container() {
  // Iterative, so that any nesting depth nlohmann accepts is accepted here too.
  std::vector<char>& closers = skip_stack_;
  closers.clear();
  enum class State { kOpen, kElement, kAfter } state = State::kOpen;
  for (;;) {
    switch (state) {
      case State::kOpen: {
        const char close = t_[p_] == '{' ? '}' : ']';
        ++p_;
        closers.push_back(close);
        if (peek() == close) {
          ++p_;
          closers.pop_back();
          state = State::kAfter;
        } else {
          state = State::kElement;
        }
        break;
      }
      case State::kElement: {
        if (closers.back() == '}') {
          if (peek() != '"') fail();
          JsonValue key;
          string(key);
          if (peek() != ':') fail();
          ++p_;
        }
        const char c = peek();
        if (c == '{' || c == '[') {
          state = State::kOpen;
        } else {
          JsonValue v;
          scalar(v);
          state = State::kAfter;
        }
        break;
      }
      case State::kAfter: {
        if (closers.empty()) return;
        const char c = peek();
        if (c == ',') {
          ++p_;
          state = State::kElement;
        } else if (c == closers.back()) {
          ++p_;
          closers.pop_back();
        } else {
          fail();
        }
        break;
      }
    }
  }
}

std::string JsonCursor::decode(const JsonValue& s) {
  if (!s.escaped) return std::string(s.text);
  std::string out;
  out.reserve(s.text.size());
  const std::string_view t = s.text;
  for (std::size_t p = 0; p < t.size();) {
    if (t[p] != '\\') {
      out += t[p++];
      continue;
    }
    const char e = t[p + 1];
    p += 2;
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        // Checked by string(): four hex digits, surrogates paired.
        auto cp = static_cast<std::uint32_t>(hex4(t, p));
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<std::uint32_t>(hex4(t, p + 2)) - 0xDC00);
          p += 6;
        }
        append_utf8(out, cp);
        break;
      }
      default: out += e; break;  // " \ /
    }
  }
  return out;
}

std::string_view JsonCursor::text_of(const JsonValue& s, std::string& scratch) {
  if (!s.escaped) return s.text;
  scratch = decode(s);
  return scratch;
}

}  // namespace kubesim
