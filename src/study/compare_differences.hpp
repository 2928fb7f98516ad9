// The "what differed" analysis of a comparison (study/compare.hpp): the statements that
// compare.html and `kubesim compare` print.
#pragma once

#include <string>
#include <vector>

#include "study/compare.hpp"

namespace kubesim {

// Plain statements computed from the numbers: best and worst scheduler by makespan,
// utilisation and each tenant's mean queue time (and completed Jobs, failed pods when they
// differ), and whether the gap is beyond the seed-to-seed spread (min-max ranges disjoint).
std::vector<std::string> what_differed(const Comparison& cmp);

}  // namespace kubesim
