#include "core/time.hpp"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace kubesim {
namespace {

TEST(FormatSeconds, Table) {
  struct Case {
    std::int64_t micros;
    const char* text;
  };
  const Case cases[] = {
      {0, "0.000000"},
      {1, "0.000001"},
      {999'999, "0.999999"},
      {1'000'000, "1.000000"},
      {1'234'567, "1.234567"},
      {170'000'000, "170.000000"},
      {-1, "-0.000001"},
      {-1'234'567, "-1.234567"},
      {-1'000'000, "-1.000000"},
      {std::numeric_limits<std::int64_t>::max(), "9223372036854.775807"},
      {std::numeric_limits<std::int64_t>::min(), "-9223372036854.775808"},
  };
  for (const auto& c : cases) EXPECT_EQ(format_seconds(c.micros), c.text) << c.micros;
}

TEST(FormatSeconds, Overloads) {
  EXPECT_EQ(format_seconds(SimTime::at(Duration::millis(2500))), "2.500000");
  EXPECT_EQ(format_seconds(Duration::micros(-5)), "-0.000005");
}

TEST(Duration, Constructors) {
  EXPECT_EQ(Duration::seconds(3).micros(), 3'000'000);
  EXPECT_EQ(Duration::millis(3).micros(), 3'000);
  EXPECT_EQ(Duration::micros(3).micros(), 3);
  EXPECT_EQ(Duration().micros(), 0);
  EXPECT_DOUBLE_EQ(Duration::millis(1500).to_seconds(), 1.5);
}

TEST(Duration, FromSecondsRoundsToNearestMicrosecond) {
  struct Case {
    double s;
    std::int64_t us;
  };
  const Case cases[] = {
      {0.0, 0},      {1.5, 1'500'000}, {0.25, 250'000}, {1e-7, 0},  // 0.1 us -> 0
      {1.4e-6, 1},   {1.6e-6, 2},      {-1.6e-6, -2},   {2210.0, 2'210'000'000},
      {0.000001, 1}, {123.4567894, 123'456'789},        {123.4567896, 123'456'790},
  };
  for (const auto& c : cases) EXPECT_EQ(Duration::from_seconds(c.s).micros(), c.us) << c.s;
  EXPECT_EQ(SimTime::from_seconds(979.2).micros(), 979'200'000);
}

TEST(Duration, Arithmetic) {
  const Duration a = Duration::seconds(2);
  const Duration b = Duration::millis(500);
  EXPECT_EQ((a + b).micros(), 2'500'000);
  EXPECT_EQ((a - b).micros(), 1'500'000);
  EXPECT_EQ((b - a).micros(), -1'500'000);
  EXPECT_EQ((b * 3).micros(), 1'500'000);
  Duration c = a;
  c += b;
  EXPECT_EQ(c, Duration::micros(2'500'000));
  EXPECT_LT(b, a);
  EXPECT_GT(Duration::max(), Duration::seconds(1'000'000'000));
}

TEST(SimTime, Arithmetic) {
  const SimTime t0 = SimTime::zero();
  const SimTime t1 = SimTime::at(Duration::seconds(10));
  EXPECT_EQ(t0.micros(), 0);
  EXPECT_EQ((t1 - t0), Duration::seconds(10));
  EXPECT_EQ((t0 - t1), Duration::seconds(-10));
  EXPECT_EQ((t1 + Duration::millis(1)).micros(), 10'001'000);
  EXPECT_EQ((t1 - Duration::millis(1)).micros(), 9'999'000);
  EXPECT_EQ(t1.since_start(), Duration::seconds(10));
  EXPECT_DOUBLE_EQ(t1.to_seconds(), 10.0);
  EXPECT_LT(t0, t1);
  EXPECT_TRUE(SimTime::never().is_never());
  EXPECT_FALSE(t1.is_never());
  EXPECT_GT(SimTime::never(), SimTime::at(Duration::max()));
}

}  // namespace
}  // namespace kubesim
