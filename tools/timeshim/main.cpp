// kubesim-timeshim [--speed X | --control SOCKET] [--epoch UNIX_SECONDS] [--real-sleep-max-us N]
//                  [--seed N] [--go-map-draws pinned|per-goroutine] [--verbose] -- CMD ARGS...
// Runs CMD on a virtual clock (timeshim.hpp says how and what the controller protocol is).
#include "timeshim.hpp"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  try {
    return kubesim::timeshim::run(kubesim::timeshim::parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
