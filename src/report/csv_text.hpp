// A large CSV text (pods.csv of a 300,000-pod run is 33 MB) built through a raw pointer: room
// for a whole row is made at once, then its fields are copied and formatted in place, with no
// per-field std::string, no per-character capacity check and one buffer for the whole file.
//   CsvText csv(expected_size);
//   char* p = csv.room(row_bound);
//   p = CsvText::put_field(p, name); *p++ = ','; p = CsvText::put_int(p, n); *p++ = '\n';
//   csv.done(p);
//   std::string text = std::move(csv).take();
// Or streamed, for a text too large to hold whole (a file being written): the buffer is a
// chunk, handed to a sink whenever the next row would not fit, and the rest at flush().
//   CsvText csv(CsvText::kStreamChunk, sink); ...rows... csv.flush();
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "core/time.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kubesim {

// Where a streamed text goes, piece by piece, in order (e.g. AtomicFile::write).
using TextSink = std::function<void(std::string_view)>;

class CsvText {
 public:
  // Bounds of what the writers below write, for room().
  static constexpr std::size_t kMaxIntChars = 20;
  static constexpr std::size_t kMaxSecondsChars = kubesim::kMaxSecondsChars;
  static constexpr std::size_t kMaxFixed6Chars = 320;  // -DBL_MAX: sign, 309 digits, point, 6 decimals
  static std::size_t field_bound(std::string_view s) { return 2 * s.size() + 2; }

  // A streamed text's buffer: small enough to stay in the CPU's cache between formatting a
  // chunk and the kernel copying it out, large enough that the calls to the sink are few.
  static constexpr std::size_t kStreamChunk = std::size_t{256} << 10;

  explicit CsvText(std::size_t expected_size) { grow(expected_size); }
  // Streamed: what is written goes to `sink` in pieces of up to `chunk` bytes (more for a
  // longer row); call flush() at the end.
  CsvText(std::size_t chunk, TextSink sink) : sink_(std::move(sink)) { grow(chunk); }

  // Makes room for `n` more bytes (handing the buffer to the sink, or growing it if the
  // expected size was short) and returns where they go; done() then takes the end of what was
  // written.
  char* room(std::size_t n) {
    if (n > buf_.size() - used_) {
      flush();
      if (n > buf_.size() - used_) grow(std::max(2 * buf_.size(), used_ + n));
    }
    return buf_.data() + used_;
  }
  // Streamed: hands what was written since the last call to the sink. In memory: nothing.
  void flush() {
    if (!sink_ || used_ == 0) return;
    sink_(std::string_view(buf_.data(), used_));
    used_ = 0;
  }
  void done(const char* end) { used_ = static_cast<std::size_t>(end - buf_.data()); }
  // Appends `s` (a header, a small row).
  void append(std::string_view s) { done(put(room(s.size()), s)); }
  // In memory: the whole text.
  std::string take() && {
    buf_.resize(used_);
    return std::move(buf_);
  }

  static char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  // An RFC 4180 field (csv_field() in report/batsim_csv.hpp): as is unless it holds a comma,
  // a double quote, CR or LF; then quoted with inner quotes doubled. At most field_bound(s).
  static char* put_field(char* p, std::string_view s) {
    bool plain = true;
    for (const char c : s) plain &= c != ',' && c != '"' && c != '\r' && c != '\n';
    if (plain) return put(p, s);
    *p++ = '"';
    for (const char c : s) {
      if (c == '"') *p++ = '"';
      *p++ = c;
    }
    *p++ = '"';
    return p;
  }
  static char* put_int(char* p, std::int64_t v) { return std::to_chars(p, p + kMaxIntChars, v).ptr; }
  // std::to_string(x), i.e. printf("%f"): the exact binary value rounded to 6 decimals (ties
  // to even), which to_chars(fixed, 6) writes too, without printf's cost; "inf", "-inf" and
  // "nan"/"-nan" as printf spells them.
  static char* put_fixed6(char* p, double x) {
    if (std::isnan(x)) return put(p, std::signbit(x) ? "-nan" : "nan");
    return std::to_chars(p, p + kMaxFixed6Chars, x, std::chars_format::fixed, 6).ptr;
  }
  // "%.6f" seconds of integer microseconds (core/time.hpp format_seconds).
  static char* put_seconds(char* p, std::int64_t micros) { return write_seconds(p, micros); }

 private:
  // Sizes the buffer to `size`. A buffer of megabytes is first offered transparent huge pages
  // (as core/huge_pages.hpp does for the pod table; advice only), so that filling it takes a
  // page fault per 2 MiB rather than per 4 KiB: on the NASA trace's 33 MB pods.csv those
  // faults cost more than formatting the rows.
  void grow(std::size_t size) {
    buf_.reserve(size);
#if defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(buf_.data());
    const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t last = (begin + buf_.capacity()) & ~(kHugePage - 1);
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
    buf_.resize(size);
  }

  TextSink sink_;  // empty: in memory
  std::string buf_;
  std::size_t used_ = 0;
};

}  // namespace kubesim
