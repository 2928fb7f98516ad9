// Helpers shared by the benchmark programs.
#pragma once

#include <sys/resource.h>

// Peak resident set size of this process so far, in KiB (getrusage ru_maxrss on Linux).
inline long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}
