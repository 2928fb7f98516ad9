// Numbers rounded for people, for the HTML reports' headlines and tables (the CSV files keep
// every digit). One rule per kind of quantity, so that every report reads the same:
//   durations  "0 s", "8.4 s", "42 s", "12.5 min", "3.4 h", "92 d" (3 significant digits; minutes
//              from 100 s, hours from 100 min, days from 48 h)
//   fractions  one form only, percent: 0.921543 -> "92.2%" (1 decimal; "<0.1%" for tiny ones)
//   counts     "1,234,567"
//   ratios     3 significant digits: 1.0234 -> "1.02", 153.2 -> "153"
#pragma once

#include <cstdint>
#include <string>

namespace kubesim::human {

// Seconds as a duration with a unit (see above); negative values keep their sign.
std::string duration(double seconds);
// A fraction (0.5 = half) as a percent with one decimal.
std::string percent(double fraction);
// A count with thousands separators.
std::string count(std::uint64_t n);
// A value with 3 significant digits (no exponent below 1e15), trailing zeros removed.
std::string sig3(double v);

}  // namespace kubesim::human
