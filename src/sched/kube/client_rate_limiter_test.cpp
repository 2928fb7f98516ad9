#include "core/client_rate_limiter.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sched/kube/profile.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

SimTime at_ms(double ms) { return SimTime::at(Duration::micros(static_cast<std::int64_t>(ms * 1000))); }

// client-go's token bucket (x/time/rate): a full bucket of `burst` tokens, refilled at qps.
TEST(ClientRateLimiter, Table) {
  struct Case {
    const char* name;
    double qps;
    std::int32_t burst;
    std::vector<double> request_ms;  // request times, non-decreasing
    std::vector<double> go_ms;       // when each may go
  };
  const Case cases[] = {
      {"no limiter when qps <= 0", -1, 0, {0, 0, 0}, {0, 0, 0}},
      {"burst goes at once, then one per 1/qps", 50, 2, {0, 0, 0, 0}, {0, 0, 20, 40}},
      {"the default 50/100: the 101st waits 20 ms", 50, 100, std::vector<double>(101, 0.0),
       [] { std::vector<double> v(101, 0.0); v[100] = 20; return v; }()},
      {"refills while idle, up to burst", 10, 2, {0, 0, 1000, 1000, 1000}, {0, 0, 1000, 1000, 1100}},
      {"a late request takes a partly refilled token", 10, 1, {0, 50, 50}, {0, 100, 200}},
      {"burst 0 still lets one per interval", 100, 0, {0, 0}, {10, 20}},
  };
  for (const Case& c : cases) {
    ClientRateLimiter limiter(c.qps, c.burst);
    ASSERT_EQ(c.request_ms.size(), c.go_ms.size()) << c.name;
    for (std::size_t i = 0; i < c.request_ms.size(); ++i)
      EXPECT_EQ(limiter.acquire(at_ms(c.request_ms[i])), at_ms(c.go_ms[i])) << c.name << " request " << i;
  }
}

// Long-run rate: 1,000 requests at once drain at qps after the burst.
// next_token: when a request would go without waiting (the Job controller's workers wait
// for it), without taking the token.
TEST(ClientRateLimiter, NextTokenIsWhenARequestWouldNotWait) {
  ClientRateLimiter l(20, 2);  // a token every 50 ms
  EXPECT_EQ(l.next_token(at_ms(0)), at_ms(0));
  l.acquire(at_ms(0));
  l.acquire(at_ms(0));
  EXPECT_EQ(l.next_token(at_ms(0)), at_ms(50));
  EXPECT_EQ(l.next_token(at_ms(0)), at_ms(50));  // asking takes nothing
  EXPECT_EQ(l.acquire(at_ms(50)), at_ms(50));
  l.acquire(at_ms(50));  // the bucket goes to -1: the next token exists at 150 ms
  EXPECT_EQ(l.next_token(at_ms(60)), at_ms(150));
  EXPECT_EQ(ClientRateLimiter(0, 0).next_token(at_ms(7)), at_ms(7));
}

TEST(ClientRateLimiter, SteadyRateIsQps) {
  ClientRateLimiter limiter(50, 100);
  SimTime last;
  for (int i = 0; i < 1000; ++i) last = limiter.acquire(SimTime::zero());
  EXPECT_EQ(last, at_ms(900 * 20.0));
}

// KubeSchedulerConfiguration clientConnection.qps/burst and parallelism, with
// SetDefaults_KubeSchedulerConfiguration's defaults (0 means the default) and validation.
TEST(ClientConnectionConfig, Table) {
  struct Case {
    const char* yaml;  // the configuration's extra lines
    double qps;
    std::int32_t burst, parallelism;
    const char* error;  // a fragment of the InputError, or null
  };
  const Case cases[] = {
      {"", 50, 100, 16, nullptr},
      {"clientConnection:\n  qps: 5000\n  burst: 5000\n  contentType: application/json\n", 5000, 5000, 16, nullptr},
      {"clientConnection:\n  qps: 0\n  burst: 0\n", 50, 100, 16, nullptr},
      {"clientConnection:\n  qps: 12.5\n", 12.5, 100, 16, nullptr},
      {"clientConnection:\n  qps: -1\n", -1, 100, 16, nullptr},
      {"parallelism: 4\n", 50, 100, 4, nullptr},
      {"clientConnection:\n  burst: -1\n", 0, 0, 0, "burst must be a non-negative"},
      {"clientConnection:\n  qps: fast\n", 0, 0, 0, "qps to be a number"},
      {"clientConnection:\n  qbs: 5\n", 0, 0, 0, "unknown field \"qbs\""},
      {"parallelism: 0\n", 0, 0, 0, "parallelism must be greater than 0"},
  };
  const testing::ScratchDir dir;
  for (const Case& c : cases) {
    const std::string path = dir.write(
        "config.yaml", std::string("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n") + c.yaml);
    ResourceNames names;
    if (c.error) {
      try {
        load_scheduler_config(path, names);
        ADD_FAILURE() << "accepted: " << c.yaml;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
      }
      continue;
    }
    const SchedulerConfig config = load_scheduler_config(path, names);
    EXPECT_EQ(config.client_qps, c.qps) << c.yaml;
    EXPECT_EQ(config.client_burst, c.burst) << c.yaml;
    EXPECT_EQ(config.parallelism, c.parallelism) << c.yaml;
  }
}

}  // namespace
}  // namespace kubesim
