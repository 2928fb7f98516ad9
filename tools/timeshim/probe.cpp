// timeshim_probe: the test program of kubesim-timeshim's own test (tests/timeshim/).
// Prints REALTIME and MONOTONIC in ns, then for each argument N sleeps N ms (nanosleep),
// waits N ms on a condition variable (a timed futex), waits N ms in epoll_wait, and prints
// the clocks again: under the shim the gaps are virtual time.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sys/epoll.h>
#include <thread>
#include <time.h>
#include <unistd.h>

namespace {
long long read_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}
void print(const char* what) {
  std::printf("%s realtime %lld monotonic %lld\n", what, read_ns(CLOCK_REALTIME), read_ns(CLOCK_MONOTONIC));
  std::fflush(stdout);
}
}  // namespace

int main(int argc, char** argv) {
  print("start");
  std::mutex m;
  std::condition_variable cv;
  int ep = epoll_create1(0);
  for (int i = 1; i < argc; ++i) {
    const int ms = std::atoi(argv[i]);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    print("slept");
    std::unique_lock<std::mutex> lock(m);
    cv.wait_for(lock, std::chrono::milliseconds(ms));  // nobody notifies: times out
    lock.unlock();
    print("cv-waited");
    epoll_event ev;
    epoll_wait(ep, &ev, 1, ms);
    print("epoll-waited");
  }
  // A second thread sleeping while the main one waits for it: deadlines of several threads.
  std::thread t([] { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); });
  t.join();
  print("joined");
  close(ep);
  return 0;
}
