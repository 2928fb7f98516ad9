#include "report/csv_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "report/batsim_csv.hpp"

namespace kubesim {
namespace {

std::string fixed6(double x) {
  char buf[CsvText::kMaxFixed6Chars];
  return std::string(buf, CsvText::put_fixed6(buf, x));
}

// put_fixed6 gives std::to_string's bytes (printf "%f"), which Batsim's outputs use.
TEST(CsvText, Fixed6IsToString) {
  const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-7, 5e-7, 0.0000005, 0.0078125, 0.0234375, 2.5e-6,
                            1.0000005, 0.1, 1.0 / 3, 2.0 / 3, 1e15 + 0.3, 1e22, 123456789.123456789,
                            std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (const double x : special) EXPECT_EQ(fixed6(x), std::to_string(x)) << x;
  std::mt19937_64 rng(13);
  for (int i = 0; i < 20000; ++i) {
    // Ratios like Batsim's stretch, values of every magnitude, and exact multiples of 2^-k
    // (whose 7th decimal can be a tie).
    const double ratio = static_cast<double>(rng() % 100000000) / static_cast<double>(1 + rng() % 1000000);
    std::uint64_t bits = rng();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    const double dyadic = static_cast<double>(rng() % 4096) / static_cast<double>(1u << (rng() % 24));
    for (const double x : {ratio, any, dyadic}) {
      if (std::isnan(x)) continue;
      ASSERT_EQ(fixed6(x), std::to_string(x)) << x;
    }
  }
  EXPECT_EQ(fixed6(std::nan("")), "nan");
  EXPECT_EQ(fixed6(-std::nan("")), "-nan");
}

TEST(CsvText, FieldsAndGrowth) {
  CsvText csv(4);  // far too small: room() grows it
  csv.append("a,b\n");
  for (int i = 0; i < 1000; ++i) {
    char* p = csv.room(CsvText::field_bound("x,\"y\"") + CsvText::kMaxIntChars + CsvText::kMaxSecondsChars + 3);
    p = CsvText::put_field(p, i % 2 ? "x,\"y\"" : "plain");
    *p++ = ',';
    p = CsvText::put_int(p, -i);
    *p++ = ',';
    p = CsvText::put_seconds(p, 1'500'000 * i - 1);
    *p++ = '\n';
    csv.done(p);
  }
  const std::string text = std::move(csv).take();
  std::string expected = "a,b\n";
  for (int i = 0; i < 1000; ++i)
    expected += csv_field(i % 2 ? "x,\"y\"" : "plain") + "," + std::to_string(-i) + "," +
                format_seconds(std::int64_t{1'500'000} * i - 1) + "\n";
  EXPECT_EQ(text, expected);
  EXPECT_EQ(csv_field("x,\"y\""), "\"x,\"\"y\"\"\"");
}

// Streamed, the text reaches the sink in pieces no larger than the chunk (a row fits), in
// order, and the pieces make the same text as in memory.
TEST(CsvText, StreamedInChunks) {
  std::vector<std::string> pieces;
  CsvText streamed(64, [&](std::string_view piece) { pieces.emplace_back(piece); });
  CsvText whole(64);
  for (CsvText* csv : {&streamed, &whole}) {
    csv->append("n,t\n");
    for (int i = 0; i < 100; ++i) {
      char* p = csv->room(CsvText::kMaxIntChars + CsvText::kMaxSecondsChars + 2);
      p = CsvText::put_int(p, i);
      *p++ = ',';
      p = CsvText::put_seconds(p, 1'000'001 * i);
      *p++ = '\n';
      csv->done(p);
    }
  }
  streamed.flush();
  std::string joined;
  for (const std::string& piece : pieces) {
    EXPECT_LE(piece.size(), 64u);
    joined += piece;
  }
  EXPECT_GT(pieces.size(), 10u);
  EXPECT_EQ(joined, std::move(whole).take());
}

}  // namespace
}  // namespace kubesim
