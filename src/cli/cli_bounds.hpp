// Command-line options checked against the input limits (core/limits.hpp) while they are
// parsed, before anything is read or written.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

#include "core/limits.hpp"
#include "core/parse_number.hpp"

namespace kubesim {

// A simulated time in seconds: finite, from 0 to kMaxSimulatedSeconds ("nan", "inf", -5 and
// 1e18, which overflowed SimTime into a run of 0 s, are refused).
inline CLI::Validator simulated_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_double(text);
        if (v && std::isfinite(*v) && *v >= 0 && *v <= kMaxSimulatedSeconds) return {};
        return "must be a number of seconds from 0 to 1e8 (the simulated span's limit), got \"" + text.substr(0, 80) + "\"";
      },
      "SECONDS");
}

}  // namespace kubesim
