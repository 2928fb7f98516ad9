// kube-scheduler extenders (sched/kube/extender/extender.hpp) against an in-process HTTP
// extender: filter narrows the nodes, prioritize adds score * weight * 10 to the plugins'
// total (schedule_one.go prioritizeNodes), ignorable failures are skipped and others fail the
// pod, managedResources decide interest, bind goes through the extender.
#include "sched/kube/extender/extender.hpp"

#include <httplib.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/tls.hpp"  // a self-signed certificate for the HTTPS extender
#include "core/error.hpp"
#include "model/object_json.hpp"
#include "sched/kube/scheduler.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

using nlohmann::json;

// An extender on 127.0.0.1: `answer(verb, body)` replies to POST /ext/<verb>; bodies are kept.
// Over HTTPS when `server` is an httplib::SSLServer.
class FakeExtender {
 public:
  explicit FakeExtender(std::function<json(const std::string&, const json&)> answer,
                        std::unique_ptr<httplib::Server> server = std::make_unique<httplib::Server>())
      : answer_(std::move(answer)), server_(std::move(server)), https_(dynamic_cast<httplib::SSLServer*>(server_.get())) {
    server_->Post(R"(/ext/(\w+))", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string verb = req.matches[1];
      const json body = json::parse(req.body);
      {
        std::lock_guard<std::mutex> lock(mu_);
        calls_[verb].push_back(body);
      }
      res.set_content(answer_(verb, body).dump(), "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    while (!server_->is_running()) std::this_thread::yield();
  }
  ~FakeExtender() {
    server_->stop();
    thread_.join();
  }
  std::string url() const { return (https_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_) + "/ext"; }
  std::vector<json> calls(const std::string& verb) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[verb];
  }

 private:
  std::function<json(const std::string&, const json&)> answer_;
  std::unique_ptr<httplib::Server> server_;
  bool https_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, std::vector<json>> calls_;
};

// Three nodes of 10 cpu / 10 Gi; n1 half full, so that the default plugins prefer n0 and n2 by
// exactly 50 points for a pod of 1 cpu / 1 Gi (LeastAllocated 90 against 40; BalancedAllocation
// 100 on both; the other scores are the same on every node).
struct ExtendedCluster {
  static constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
  testing::ScratchDir dir;
  ObjectStore store;
  testing::FakeSchedulerHost host{&store};
  std::unique_ptr<Scheduler> scheduler;
  NodeId n0, n1, n2;
  PodId pod;

  explicit ExtendedCluster(const std::string& extenders_yaml) {
    store.ensure_namespace("default");
    const std::string config = dir.write("config.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                                        "kind: KubeSchedulerConfiguration\n" + extenders_yaml);
    scheduler = std::make_unique<Scheduler>(store, load_scheduler_config(config, store.resource_names()),
                                            SchedulerLatencies{}, 1, host);
    host.attach(scheduler.get());
    store.add_listener(&host);
    for (NodeId* n : {&n0, &n1, &n2})
      *n = store.create_node(testing::NodeBuilder("n" + std::to_string(n == &n0 ? 0 : n == &n1 ? 1 : 2))
                                 .cpu_milli(10000)
                                 .memory_bytes(10 * kGi));
    Pod half = testing::PodBuilder(store.add_template(testing::PodTemplateBuilder().cpu_milli(5000).memory_bytes(5 * kGi)))
                   .name("half");
    half.node = n1;
    half.phase = PodPhase::kRunning;
    store.create_pod(std::move(half));
    pod = store.create_pod(
        testing::PodBuilder(store.add_template(testing::PodTemplateBuilder().cpu_milli(1000).memory_bytes(kGi))).name("p"));
  }
  std::string node_name(NodeId n) const { return store.node(n).name; }
};

std::string config(const std::string& url, const std::string& more) {
  return "extenders:\n- urlPrefix: " + url + "\n" + more;
}

TEST(KubeExtender, FilterKeepsTheNodesItNamesAndCountsTheFailures) {
  FakeExtender ext([](const std::string&, const json&) {
    return json{{"NodeNames", {"n2"}}, {"FailedNodes", {{"n0", "no gpu here"}}},
                {"FailedAndUnresolvableNodes", {{"n1", "wrong rack"}}}};
  });
  ExtendedCluster c(config(ext.url(), "  filterVerb: filter\n  nodeCacheCapable: true\n"));
  const auto d = c.scheduler->decide(c.pod);
  EXPECT_EQ(d.node, c.n2);
  const auto calls = ext.calls("filter");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["Pod"]["metadata"]["name"], "p");
  EXPECT_EQ(calls[0]["Pod"]["kind"], "Pod");
  EXPECT_EQ(calls[0]["NodeNames"], json({"n0", "n1", "n2"}));
  EXPECT_TRUE(calls[0]["Nodes"].is_null());
}

TEST(KubeExtender, FilterRejectingEveryNodeIsAFitErrorWithItsReasons) {
  FakeExtender ext([](const std::string&, const json&) {
    return json{{"Nodes", {{"items", json::array()}}},
                {"FailedNodes", {{"n0", "no gpu here"}, {"n1", "no gpu here"}, {"n2", "no gpu here"}}}};
  });
  ExtendedCluster c(config(ext.url(), "  filterVerb: filter\n"));
  const auto d = c.scheduler->decide(c.pod);
  EXPECT_FALSE(d.node.valid());
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.message, "0/3 nodes are available: 3 no gpu here.");
  // Without nodeCacheCapable the nodes go as a NodeList of Node objects.
  const auto calls = ext.calls("filter");
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(calls[0]["Nodes"]["items"].size(), 3u);
  EXPECT_EQ(calls[0]["Nodes"]["items"][1]["kind"], "Node");
  EXPECT_EQ(calls[0]["Nodes"]["items"][1]["metadata"]["name"], "n1");
}

// The half-full n1 trails by 50 points; the extender's score for it, times its weight and 10,
// is added: 60 takes it, 40 does not.
TEST(KubeExtender, PrioritizeAddsScoreTimesWeightTimesTen) {
  struct Case {
    int score, weight;
    bool n1_wins;
  };
  for (const Case k : {Case{6, 1, true}, Case{4, 1, false}, Case{3, 2, true}, Case{2, 2, false}, Case{1, 6, true}}) {
    FakeExtender ext([&](const std::string&, const json&) {
      return json::array({{{"Host", "n0"}, {"Score", 0}}, {{"Host", "n1"}, {"Score", k.score}}, {{"Host", "n2"}, {"Score", 0}}});
    });
    ExtendedCluster c(config(ext.url(), "  prioritizeVerb: prioritize\n  weight: " + std::to_string(k.weight) + "\n"));
    const auto d = c.scheduler->decide(c.pod);
    EXPECT_EQ(d.node == c.n1, k.n1_wins) << "score " << k.score << " weight " << k.weight;
  }
}

TEST(KubeExtender, IgnorableFailureIsSkippedOtherwiseThePodFails) {
  // A port nothing listens on: the one the fake extender had before it stopped.
  std::string dead;
  {
    FakeExtender gone([](const std::string&, const json&) { return json::object(); });
    dead = gone.url();
  }
  ExtendedCluster skipped(config(dead, "  filterVerb: filter\n  ignorable: true\n  httpTimeout: 1s\n"));
  EXPECT_TRUE(skipped.scheduler->decide(skipped.pod).node.valid());
  ExtendedCluster failed(config(dead, "  filterVerb: filter\n  httpTimeout: 1s\n"));
  const auto d = failed.scheduler->decide(failed.pod);
  EXPECT_FALSE(d.node.valid());
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find(dead + "/filter"), std::string::npos) << d.message;
  // A prioritize failure never fails the pod (no score from that extender).
  ExtendedCluster prio(config(dead, "  prioritizeVerb: prioritize\n  weight: 5\n  httpTimeout: 1s\n"));
  EXPECT_EQ(prio.scheduler->decide(prio.pod).node == prio.n1, false);
}

// schedule_one.go (v1.26): an extender's error is not a FitError. PodScheduled=False gets the
// reason SchedulerError with the error's text and the nomination is cleared
// (clearNominatedNode); the pod goes back like a FitError (AddUnschedulableIfNotPresent:
// unschedulablePods, no move request having come). A later FitError writes Unschedulable.
TEST(KubeExtender, AnErrorIsASchedulerErrorThatClearsTheNomination) {
  std::atomic<bool> busy{true};
  FakeExtender ext([&](const std::string&, const json&) {
    return busy ? json{{"Error", "extender is busy"}}
                : json{{"NodeNames", json::array()}, {"FailedNodes", {{"n0", "no"}, {"n1", "no"}, {"n2", "no"}}}};
  });
  ExtendedCluster c(config(ext.url(), "  filterVerb: filter\n  nodeCacheCapable: true\n"));
  c.store.update_pod(c.pod, [&](Pod& x) { x.nominated_node = c.n0; });
  c.host.run_until(SimTime::zero());
  const Pod& p = c.store.pod(c.pod);
  EXPECT_FALSE(p.node.valid());
  EXPECT_TRUE(p.scheduler_error);
  EXPECT_EQ(p.unschedulable_message, "extender is busy");
  EXPECT_FALSE(p.nominated_node.valid());
  EXPECT_EQ(c.scheduler->queue().unschedulable_size(), 1u);
  auto pod_scheduled = [&] {
    const json pod = api::pod_to_json(c.store, c.pod, api::TimeFormat{});  // kept: the loop reads into it
    for (const json& cond : pod["status"]["conditions"])
      if (cond["type"] == "PodScheduled") return cond;
    return json();
  };
  EXPECT_EQ(pod_scheduled()["reason"], "SchedulerError");
  EXPECT_EQ(pod_scheduled()["message"], "extender is busy");
  // The nominated node was tried first (its error ignored), then every node.
  const auto calls = ext.calls("filter");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["NodeNames"], json({"n0"}));
  EXPECT_EQ(calls[1]["NodeNames"], json({"n0", "n1", "n2"}));

  busy = false;  // retried after flushUnschedulablePodsLeftover's 5 minutes: a FitError now
  c.host.run_until(SimTime::zero() + Duration::seconds(400));
  EXPECT_GE(ext.calls("filter").size(), 3u);
  EXPECT_FALSE(c.store.pod(c.pod).scheduler_error);
  EXPECT_EQ(pod_scheduled()["reason"], "Unschedulable");
  EXPECT_EQ(pod_scheduled()["message"], "0/3 nodes are available: 3 no.");
}

// findNodesThatFitPod: an extender's error on the nominated node is logged and the full
// search goes on (evaluateNominatedNode's error does not fail the cycle).
TEST(KubeExtender, NominatedNodeErrorFallsBackToTheFullSearch) {
  std::atomic<int> calls_seen{0};
  FakeExtender ext([&](const std::string&, const json& args) {
    if (calls_seen++ == 0) return json{{"Error", "flaky"}};
    return json{{"NodeNames", args["NodeNames"]}};
  });
  ExtendedCluster c(config(ext.url(), "  filterVerb: filter\n  nodeCacheCapable: true\n"));
  c.store.update_pod(c.pod, [&](Pod& x) { x.nominated_node = c.n1; });
  const auto d = c.scheduler->decide(c.pod);
  EXPECT_FALSE(d.error);
  EXPECT_TRUE(d.node == c.n0 || d.node == c.n2);  // scored: the half-full n1 trails
  const auto calls = ext.calls("filter");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["NodeNames"], json({"n1"}));
  EXPECT_EQ(calls[1]["NodeNames"], json({"n0", "n1", "n2"}));
}

// scheduler.go buildExtenders + fit.go: a managed resource with ignoredByScheduler: true joins
// NodeResourcesFit's ignored resources, so nodes without it pass the filter (the extender
// decides); without the flag the pod is a FitError. NodeResourcesFitArgs.ignoredResources
// does the same without an extender.
TEST(KubeExtender, IgnoredBySchedulerResourceIsLeftToTheExtender) {
  FakeExtender ext([](const std::string&, const json& args) { return json{{"NodeNames", args["NodeNames"]}}; });
  auto decide_foo = [&](const std::string& yaml) {
    ExtendedCluster c(yaml);
    const PodId foo = c.store.create_pod(testing::PodBuilder(c.store.add_template(
        testing::PodTemplateBuilder().cpu_milli(1000).resource(c.store.resource_names(), "example.com/foo", 1)))
                                             .name("foo"));
    return c.scheduler->decide(foo);
  };
  const std::string managed = "  filterVerb: filter\n  nodeCacheCapable: true\n  managedResources:\n  - name: example.com/foo\n";
  const auto checked = decide_foo(config(ext.url(), managed));
  EXPECT_FALSE(checked.node.valid());
  EXPECT_EQ(checked.message, "0/3 nodes are available: 3 Insufficient example.com/foo.");
  EXPECT_TRUE(ext.calls("filter").empty());  // no node passed the filters
  const auto ignored = decide_foo(config(ext.url(), managed + "    ignoredByScheduler: true\n"));
  EXPECT_TRUE(ignored.node.valid()) << ignored.message;
  EXPECT_EQ(ext.calls("filter").size(), 1u);
  const auto by_args = decide_foo(
      "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
      "      ignoredResources: [example.com/foo]\n");
  EXPECT_TRUE(by_args.node.valid()) << by_args.message;
}

// fit.go fitsRequest + NodeResourcesFitArgs.ignoredResourceGroups: an extended resource whose
// name's part before '/' is a listed group is not checked, even one first seen after the profile
// was built (here every resource is registered after the scheduler); the prefix must match whole.
TEST(KubeExtender, IgnoredResourceGroupsSkipEveryResourceOfTheGroup) {
  auto decide = [](const std::string& groups, const char* resource) {
    ExtendedCluster c("profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n"
                      "    args:\n      ignoredResourceGroups: " + groups + "\n");
    const PodId p = c.store.create_pod(testing::PodBuilder(c.store.add_template(
        testing::PodTemplateBuilder().cpu_milli(1000).resource(c.store.resource_names(), resource, 1))).name("x"));
    return c.scheduler->decide(p);
  };
  EXPECT_TRUE(decide("[example.com]", "example.com/foo").node.valid());
  EXPECT_TRUE(decide("[other.io, example.com]", "example.com/bar").node.valid());
  const auto checked = decide("[example]", "example.com/foo");
  EXPECT_FALSE(checked.node.valid());
  EXPECT_EQ(checked.message, "0/3 nodes are available: 3 Insufficient example.com/foo.");
  EXPECT_FALSE(decide("[example.com]", "other.io/foo").node.valid());
}

TEST(KubeExtender, ManagedResourcesDecideInterest) {
  FakeExtender ext([](const std::string&, const json&) { return json{{"NodeNames", json::array()}}; });
  ExtendedCluster c(config(ext.url(), "  filterVerb: filter\n  nodeCacheCapable: true\n"
                                      "  managedResources:\n  - name: example.com/foo\n"));
  EXPECT_TRUE(c.scheduler->decide(c.pod).node.valid());  // the pod asks for no example.com/foo
  EXPECT_TRUE(ext.calls("filter").empty());
}

TEST(KubeExtender, BindGoesThroughTheExtender) {
  FakeExtender ext([](const std::string&, const json&) { return json{{"Error", ""}}; });
  ExtendedCluster c(config(ext.url(), "  bindVerb: bind\n"));
  c.host.run_until(SimTime::zero());  // the pod's cycle and its binding (zero latencies)
  const auto calls = ext.calls("bind");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["PodName"], "p");
  EXPECT_EQ(calls[0]["PodNamespace"], "default");
  EXPECT_TRUE(calls[0]["Node"] == "n0" || calls[0]["Node"] == "n2");
  EXPECT_TRUE(c.store.pod(c.pod).node.valid());
}

// Two one-cpu nodes, each full with a priority-0 pod; a priority-100 pod of one cpu must
// preempt. The extender approves only n1's victim (or none).
Scheduler::Preemption preempt_with(FakeExtender& ext, ObjectStore& store, testing::FakeSchedulerHost& host,
                                   testing::ScratchDir& dir) {
  store.ensure_namespace("default");
  const std::string path = dir.write("p.yaml", "kind: KubeSchedulerConfiguration\n" +
                                                   config(ext.url(), "  preemptVerb: preempt\n"));
  Scheduler s(store, load_scheduler_config(path, store.resource_names()), SchedulerLatencies{}, 1, host);
  host.attach(&s);  // the zero-delay informer: the nodes and pods below reach s at once
  store.add_listener(&host);
  const auto low = store.add_template(testing::PodTemplateBuilder().cpu_milli(1000).memory_bytes(1).priority(0).build());
  for (const char* name : {"n0", "n1"}) {
    const NodeId n = store.create_node(testing::NodeBuilder(name).cpu_milli(1000).memory_bytes(1LL << 30));
    testing::PodBuilder victim(low);
    victim.name(std::string("victim-") + name).on(n, SimTime::zero());
    store.create_pod(victim);
  }
  const auto high = store.add_template(testing::PodTemplateBuilder().cpu_milli(1000).memory_bytes(1).priority(100).build());
  const PodId p = store.create_pod(testing::PodBuilder(high).name("urgent"));
  const auto d = s.decide(p);
  EXPECT_FALSE(d.node.valid());
  Scheduler::Preemption result = s.preempt(p, d, SimTime::zero());
  store.remove_listener(&host);
  return result;
}

TEST(KubeExtender, PreemptNarrowsTheCandidates) {
  FakeExtender approve_n1([](const std::string&, const json& args) {
    const json& v = args["NodeNameToVictims"]["n1"];
    return json{{"NodeNameToMetaVictims",
                 {{"n1", {{"Pods", {{{"UID", v["Pods"][0]["metadata"]["uid"]}}}}, {"NumPDBViolations", 0}}}}}};
  });
  ObjectStore store;
  testing::FakeSchedulerHost host{&store};
  testing::ScratchDir dir;
  const auto pre = preempt_with(approve_n1, store, host, dir);
  ASSERT_TRUE(pre.node.valid());
  EXPECT_EQ(store.node(pre.node).name, "n1");
  ASSERT_EQ(pre.victims.size(), 1u);
  EXPECT_EQ(store.pod(pre.victims[0]).name, "victim-n1");
  const auto calls = approve_n1.calls("preempt");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["Pod"]["metadata"]["name"], "urgent");
  EXPECT_EQ(calls[0]["NodeNameToVictims"].size(), 2u);

  FakeExtender approve_none([](const std::string&, const json&) { return json{{"NodeNameToMetaVictims", json::object()}}; });
  ObjectStore store2;
  testing::FakeSchedulerHost host2{&store2};
  const auto none = preempt_with(approve_none, store2, host2, dir);
  EXPECT_FALSE(none.node.valid());
  EXPECT_EQ(none.message, "no candidate node for preemption");
}

TEST(KubeExtender, ConfigurationIsValidatedAsUpstream) {
  testing::ScratchDir dir;
  ResourceNames names;
  auto error = [&](const std::string& yaml) {
    try {
      load_scheduler_config(dir.write("c.yaml", "kind: KubeSchedulerConfiguration\nextenders:\n" + yaml), names);
    } catch (const InputError& e) {
      return e.problem();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("- urlPrefix: http://x\n  prioritizeVerb: p\n"), "extenders[].weight: must have a positive weight applied to it");
  EXPECT_NE(error("- urlPrefix: http://x\n  bindVerb: b\n- urlPrefix: http://y\n  bindVerb: b\n").find("only one extender can implement bind"),
            std::string::npos);
  EXPECT_EQ(error("- urlPrefix: ftp://x\n"), "extenders[].urlPrefix must be an http:// or https:// URL");
  EXPECT_EQ(error("- urlPrefix: http://x\n  filterVerb: f\n  httpTimeout: 30s\n  ignorable: true\n"), "accepted");
}

// HTTPS (extender_tls.hpp): a self-signed certificate for 127.0.0.1; the extender keeps n2.
struct TlsExtender {
  testing::ScratchDir dir;
  api::TlsIdentity server_id = api::make_self_signed_identity("127.0.0.1");
  std::string cert = dir.write("server.pem", server_id.certificate_pem);
  std::string key = dir.write("server-key.pem", server_id.private_key_pem);
  std::unique_ptr<FakeExtender> ext;
  TlsExtender() {
    ext = std::make_unique<FakeExtender>(
        [](const std::string&, const json&) { return json{{"NodeNames", {"n2"}}}; },
        std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str()));
  }
  // The pod's decision under the extender entry's extra lines; "" when it went to n2.
  std::string decide(const std::string& more) {
    ExtendedCluster c(config(ext->url(), "  filterVerb: filter\n  nodeCacheCapable: true\n  httpTimeout: 2s\n" + more));
    const auto d = c.scheduler->decide(c.pod);
    return d.node == c.n2 ? std::string() : d.message.empty() ? std::string("not n2") : d.message;
  }
};

TEST(KubeExtender, HttpsVerifiesTheServerAsClientGoDoes) {
  TlsExtender t;
  const std::string ca_data = api::base64(t.server_id.certificate_pem);
  EXPECT_EQ(t.decide("  tlsConfig:\n    caData: " + ca_data + "\n"), "");
  // makeTransport: enableHTTPS without a CA skips verification; tlsConfig.insecure likewise.
  EXPECT_EQ(t.decide("  enableHTTPS: true\n"), "");
  EXPECT_EQ(t.decide("  tlsConfig:\n    insecure: true\n"), "");
  // serverName: SNI and the name checked, the connection still to the URL's host.
  EXPECT_EQ(t.decide("  tlsConfig:\n    caData: " + ca_data + "\n    serverName: localhost\n"), "");
  const std::string wrong = t.decide("  tlsConfig:\n    caData: " + ca_data + "\n    serverName: other.example\n");
  EXPECT_NE(wrong.find("SSLServerVerification"), std::string::npos) << wrong;
  // No CA and not insecure: the system's roots, which do not know a self-signed certificate.
  const std::string unknown = t.decide("");
  EXPECT_NE(unknown.find("SSLServerVerification"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("self-signed"), std::string::npos) << unknown;
}

TEST(KubeExtender, TlsConfigurationIsValidatedWhenRead) {
  testing::ScratchDir dir;
  const api::TlsIdentity a = api::make_self_signed_identity("a"), b = api::make_self_signed_identity("b");
  const std::string cert_a = dir.write("a.pem", a.certificate_pem), key_b = dir.write("b-key.pem", b.private_key_pem);
  ResourceNames names;
  auto error = [&](const std::string& tls) {
    try {
      load_scheduler_config(dir.write("c.yaml", "kind: KubeSchedulerConfiguration\nextenders:\n"
                                                "- urlPrefix: https://x\n  filterVerb: f\n  tlsConfig:\n" + tls),
                            names);
    } catch (const InputError& e) {
      return std::to_string(e.line()) + ": " + e.problem();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("    caFile: a.pem\n"), "accepted");  // relative to the configuration's folder
  EXPECT_EQ(error("    caFile: a.pem\n    insecure: true\n"),
            "6: extenders[].tlsConfig: specifying a root certificates file with the insecure flag is not allowed");
  EXPECT_EQ(error("    caFile: missing.pem\n"), "6: extenders[].tlsConfig.caFile: cannot read " + dir.path() + "/missing.pem");
  EXPECT_EQ(error("    caData: not*base64\n"),
            "6: extenders[].tlsConfig.caData: expected base64 (the PEM's bytes, as a []byte field is written)");
  EXPECT_EQ(error("    caData: " + api::base64("hello") + "\n"), "6: extenders[].tlsConfig: caFile/caData holds no PEM certificate");
  EXPECT_EQ(error("    certFile: " + cert_a + "\n    keyFile: " + key_b + "\n"),
            "6: extenders[].tlsConfig: the private key does not match the client certificate");
  EXPECT_EQ(error("    sni: x\n").substr(0, 3), "6: ");
}

}  // namespace
}  // namespace kubesim
