#include "report/human_format.hpp"

#include <cmath>
#include <cstdio>

#include "report/svg_chart.hpp"

namespace kubesim::human {

std::string sig3(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
  const double a = std::fabs(v);
  // Decimals for 3 significant digits, chosen on the value as it will be rounded (99.96 -> "100").
  const int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : a >= 0.9995 ? 2 : 3;
  return svg::num(v, decimals);  // trailing zeros removed, "-0" as "0"
}

std::string duration(double seconds) {
  if (!std::isfinite(seconds)) return sig3(seconds);
  const double a = std::fabs(seconds);
  if (a < 0.0005) return "0 s";
  if (a < 99.95) return sig3(seconds) + " s";
  if (a < 99.95 * 60) return sig3(seconds / 60) + " min";
  if (a < 48 * 3600) return sig3(seconds / 3600) + " h";
  return sig3(seconds / 86400) + " d";
}

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  const double p = 100.0 * fraction;
  if (p > 0 && p < 0.05) return "<0.1%";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", p);
  std::string s = buf;
  if (s == "-0.0") s = "0.0";
  return s + "%";
}

std::string count(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace kubesim::human
