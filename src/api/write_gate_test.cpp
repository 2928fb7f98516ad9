// ApiServer's write gate (gate_writes, cosim with a scheduler under the shim): writes sent
// concurrently act in the order of their method, path and body, whatever order serve's
// threads took them in; with one_at_a_time, one write per opening; with reads_too, reads wait
// there as well.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "api/api_server.hpp"
#include "model/object_store.hpp"
#include "testing/inputs.hpp"

namespace kubesim::api {
namespace {

using Json = nlohmann::json;

ApiRequest create_pod(const std::string& name) {
  ApiRequest r;
  r.method = "POST";
  r.path = "/api/v1/namespaces/default/pods";
  r.content_type = "application/json";
  r.body = Json{{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}}},
                {"spec", {{"schedulerName", "other"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}}
               .dump();
  return r;
}

class WriteGateTest : public ::testing::Test {
 protected:
  WriteGateTest()
      : sim_(testing::make_inputs({testing::NodeBuilder("node-0").cpu("4").memory("16Gi")}, {}, {}),
             testing::ideal_options()),
        api_(sim_, ApiOptions{}) {}

  // Sends the creations from one thread each, in the order given, each counted as taken off
  // its socket (as the HTTP layer does), and waits until all are at the gate.
  void send(const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      api_.request_taken();
      threads_.emplace_back([this, name] {
        std::shared_ptr<Watch> watch;
        const ApiResponse r = api_.handle(create_pod(name), &watch);
        EXPECT_EQ(r.status, 201) << r.body;
        api_.request_answered();
      });
      // Each reaches the gate before the next is sent: the arrival order is the one given.
      while (!api_.locked([&] { return api_.only_gated_requests(); }))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void join() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  // The pods by the order their creation acted in (resourceVersion).
  std::vector<std::string> acted() {
    std::vector<std::pair<std::uint64_t, std::string>> pods;
    std::shared_ptr<Watch> watch;
    ApiRequest list;
    list.method = "GET";
    list.path = "/api/v1/namespaces/default/pods";
    const Json body = Json::parse(api_.handle(list, &watch).body);
    for (const Json& item : body["items"])
      pods.emplace_back(std::stoull(item["metadata"]["resourceVersion"].get<std::string>()),
                        item["metadata"]["name"].get<std::string>());
    std::sort(pods.begin(), pods.end());
    std::vector<std::string> names;
    for (auto& [rv, name] : pods) names.push_back(name);
    return names;
  }

  // A watch of all pods (with a label selector if given), its initial events read.
  std::shared_ptr<Watch> watch_pods(const std::string& label_selector = "") {
    ApiRequest request;
    request.method = "GET";
    request.path = "/api/v1/pods";
    request.query = {{"watch", "1"}};
    if (!label_selector.empty()) request.query.emplace_back("labelSelector", label_selector);
    std::shared_ptr<Watch> watch;
    EXPECT_EQ(api_.handle(request, &watch).status, 200);
    std::string initial;
    api_.poll_watch(*watch, initial, std::chrono::milliseconds(0));
    return watch;
  }
  // Creates pod-a with the watches' events held, then gates reads and writes (`all`).
  void hold_a_creation_for_the_watches() {
    api_.locked([&] { api_.hold_request_changes(); });
    std::shared_ptr<Watch> none;
    EXPECT_EQ(api_.handle(create_pod("pod-a"), &none).status, 201);
    api_.locked([&] { api_.gate_writes(true, true); });
  }
  // The event lines the watch sends now (counted as written).
  std::size_t lines(Watch& w) {
    std::string out;
    api_.poll_watch(w, out, std::chrono::milliseconds(0));
    if (!out.empty()) api_.watch_written();
    return static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n'));
  }

  Simulation sim_;
  ApiServer api_;
  std::vector<std::thread> threads_;
};

TEST_F(WriteGateTest, ABatchActsInTheOrderOfItsRequestsNotOfItsArrival) {
  api_.locked([&] { api_.gate_writes(false); });
  send({"pod-c", "pod-a", "pod-b"});
  EXPECT_TRUE(acted().empty());  // reads are not gated, and nothing has acted yet
  api_.locked([&] { api_.open_write_gate(); });
  join();
  EXPECT_EQ(acted(), (std::vector<std::string>{"pod-a", "pod-b", "pod-c"}));
  EXPECT_FALSE(api_.locked([&] { return api_.writes_at_gate(); }));
}

TEST_F(WriteGateTest, OneAtATimeLetsTheLeastWriteActPerOpening) {
  api_.locked([&] { api_.gate_writes(true); });
  send({"pod-b", "pod-a"});
  api_.locked([&] { api_.open_write_gate(); });
  while (acted().size() != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(acted(), (std::vector<std::string>{"pod-a"}));
  EXPECT_TRUE(api_.locked([&] { return api_.writes_at_gate(); }));
  api_.locked([&] { api_.open_write_gate(); });
  join();
  EXPECT_EQ(acted(), (std::vector<std::string>{"pod-a", "pod-b"}));
}

TEST_F(WriteGateTest, WithReadsTooAListWaitsForAnOpening) {
  api_.locked([&] { api_.gate_writes(true, true); });
  send({"pod-a"});
  api_.locked([&] { api_.open_write_gate(); });
  join();
  ApiRequest list;
  list.method = "GET";
  list.path = "/api/v1/namespaces/default/pods";
  api_.request_taken();
  std::size_t listed = 0;
  std::thread reader([&] {
    std::shared_ptr<Watch> watch;
    listed = Json::parse(api_.handle(list, &watch).body)["items"].size();
    api_.request_answered();
  });
  while (!api_.locked([&] { return api_.writes_at_gate(); }))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(api_.locked([&] { return api_.only_gated_requests(); }));
  api_.locked([&] { api_.open_write_gate(); });
  reader.join();
  EXPECT_EQ(listed, 1u);
}

TEST_F(WriteGateTest, StoppingTheGateLetsTheWaitingWritesThrough) {
  api_.locked([&] { api_.gate_writes(false); });
  send({"pod-b", "pod-a"});
  api_.locked([&] { api_.stop_gating_writes(); });
  join();
  EXPECT_EQ(acted().size(), 2u);
}

// With reads_too and one_at_a_time (`--cosim-write-gate all`), held changes reach the watches
// one per release, so that each event reaches the scheduler alone.
TEST_F(WriteGateTest, WithReadsTooHeldChangesAreReleasedOneWatchedEventAtATime) {
  ApiRequest watch_pods;
  watch_pods.method = "GET";
  watch_pods.path = "/api/v1/pods";
  watch_pods.query = {{"watch", "1"}};
  std::shared_ptr<Watch> watch;
  ASSERT_EQ(api_.handle(watch_pods, &watch).status, 200);
  ASSERT_TRUE(watch);
  std::string initial;  // resourceVersion unset: the current objects first (none)
  api_.poll_watch(*watch, initial, std::chrono::milliseconds(0));
  ASSERT_TRUE(initial.empty());
  api_.locked([&] { api_.hold_request_changes(); });
  for (const char* name : {"pod-a", "pod-b"}) {
    std::shared_ptr<Watch> none;
    ASSERT_EQ(api_.handle(create_pod(name), &none).status, 201);
  }
  api_.locked([&] { api_.gate_writes(true, true); });
  const auto released = [&] {
    api_.locked([&] { api_.release_watch_events(); });
    std::string out;
    api_.poll_watch(*watch, out, std::chrono::milliseconds(0));
    if (!out.empty()) api_.watch_written();
    return static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n'));
  };
  EXPECT_EQ(released(), 1u);
  EXPECT_TRUE(api_.locked([&] { return api_.watch_events_held(); }));
  EXPECT_EQ(released(), 1u);
  EXPECT_FALSE(api_.locked([&] { return api_.watch_events_held(); }));
}

// A change two watches send goes to one at a time, in the order they were opened, so that a
// scheduler watching pods through two informers gets it on one stream while it is blocked.
TEST_F(WriteGateTest, WithReadsTooAChangeReachesItsWatchesOneAtATime) {
  const std::shared_ptr<Watch> first = watch_pods(), second = watch_pods();
  hold_a_creation_for_the_watches();
  api_.locked([&] { api_.release_watch_events(); });
  EXPECT_EQ(lines(*first), 1u);
  EXPECT_EQ(lines(*second), 0u);
  EXPECT_TRUE(api_.locked([&] { return api_.watch_events_held(); }));
  api_.locked([&] { api_.release_watch_events(); });
  EXPECT_EQ(lines(*first), 0u);
  EXPECT_EQ(lines(*second), 1u);
  EXPECT_FALSE(api_.locked([&] { return api_.watch_events_held(); }));
}

// A watch whose selector the change does not match sends no line for it: it takes no release
// (one release, not two: a step of the scheduler's clock for nothing).
TEST_F(WriteGateTest, WithReadsTooAWatchTheChangeDoesNotMatchTakesNoRelease) {
  const std::shared_ptr<Watch> selective = watch_pods("app=other"), all = watch_pods();
  hold_a_creation_for_the_watches();
  api_.locked([&] { api_.release_watch_events(); });
  EXPECT_EQ(lines(*all), 1u);
  EXPECT_EQ(lines(*selective), 0u);
  EXPECT_FALSE(api_.locked([&] { return api_.watch_events_held(); }));
}

}  // namespace
}  // namespace kubesim::api
