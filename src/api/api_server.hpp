// The Kubernetes API in front of a Simulation: request handling independent of HTTP (the
// HTTP glue is http_server.*). Reads come from the watch cache; writes go to the
// simulation as the matching kube-apiserver request would (create with admission, binding,
// status patches, graceful deletion), or to the generic JSON store for the resources
// kubesim does not model (events, leases, services, ...).
//
// The class is implemented in one file per concern (see api_server.cpp's header); what
// cosim reads is kept by CosimState (cosim_state.hpp), the pods' Events by PodEventRecorder
// (pod_events.hpp).
//
// Thread safety: every public member takes the server's lock, which also guards the
// Simulation; the clock driver advances the simulation under the same lock (locked()).
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <optional>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/cosim_state.hpp"
#include "api/custom_resources.hpp"
#include "api/json_codec.hpp"
#include "api/pod_events.hpp"
#include "api/resources.hpp"
#include "api/watch_cache.hpp"
#include "core/random.hpp"
#include "engine/simulation.hpp"

namespace kubesim::api {

struct ApiRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  std::string content_type;
  std::string accept;
  std::string body;
  const std::string* param(std::string_view name) const;
};

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

struct ApiOptions {
  std::int64_t epoch_unix_micros = TimeFormat{}.epoch_unix_micros;  // the wall time of simulated time zero
  std::string server_address;          // host:port, for /api
  std::string kubesim_version;
  bool builtin_scheduler = true;
  std::size_t watch_log_capacity = 200000;
  std::uint64_t seed = 1;
  // Watches end at their timeoutSeconds and carry a bookmark every minute, both on wall time
  // (the apiserver's cacher). Off when the only client runs on simulated time (serve
  // --scheduler-command): wall-clock timers would reach it at simulated instants that vary
  // from run to run; client-go needs neither (bookmarks are optional, a watch may last).
  bool wall_clock_watch_timers = true;
};

// An open watch. The HTTP layer calls ApiServer::poll_watch until it returns false.
struct Watch;
struct ResourcePath;  // a parsed request path (api/request_path.hpp)

class ApiServer final : public ChangeListener {
 public:
  ApiServer(Simulation& sim, ApiOptions options);
  ~ApiServer() override;

  // Handles one request. A watch request that is accepted sets `*watch` (the response then
  // carries only the status and content type; the body is streamed by poll_watch).
  ApiResponse handle(const ApiRequest& request, std::shared_ptr<Watch>* watch);
  // Appends the watch's next events (newline-delimited JSON) to `out`, waiting up to `wait`
  // for some. Returns false when the watch is over (its timeout, or shutdown()).
  bool poll_watch(Watch& watch, WatchLines& out, std::chrono::milliseconds wait);
  bool poll_watch(Watch& watch, std::string& out, std::chrono::milliseconds wait);  // the lines' text
  // The POST that creates `object` (its apiVersion and kind name the resource; a namespaced
  // object without a namespace goes to "default"), as a client's: 404 for a kind not served.
  ApiResponse create_object(const nlohmann::json& object);
  // Ends every watch and refuses further requests.
  void shutdown();
  // host:port as clients reach the server (for /api's serverAddressByClientCIDRs).
  void set_server_address(std::string address) {
    std::lock_guard<std::mutex> lock(mutex_);
    options_.server_address = std::move(address);
  }
  std::uint64_t requests() const { return requests_; }

  // Runs `f` under the server's lock (for the clock driver).
  template <class F>
  auto locked(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return f();
  }
  // What cosim's clock rule reads (under the lock; api/cosim_state.hpp): pods of external
  // schedulers still waiting for a decision, and those their scheduler gave up on
  // (PodScheduled=False).
  std::size_t undecided_external_pods() const { return cosim_.undecided(); }
  // The longest an external scheduler took, over its recent decisions, from a watch stream
  // carrying a waiting pod to that pod's decision (binding or Unschedulable): how quickly it
  // reacts.
  std::chrono::steady_clock::duration recent_reaction_time() const { return cosim_.recent_reaction_time(); }
  std::size_t given_up_external_pods() const { return cosim_.given_up(); }
  // Whether a change since the last clear could let a pod that was given up on fit: a pod
  // ended or was removed, or a node was added or changed (cosim waits for the scheduler's
  // retries only then).
  bool capacity_freed() const { return cosim_.capacity_freed(); }
  void clear_capacity_freed() { cosim_.clear_capacity_freed(); }
  // Whether some pod its scheduler gave up on would pass the default profile's filters now
  // (NodeUnschedulable, TaintToleration, NodeAffinity/nodeSelector, NodeResourcesFit against
  // the bound, non-terminal pods): then its scheduler will bind it at its next retry, and
  // cosim waits for that retry instead of moving time on. Filters kubesim does not
  // evaluate here (inter-pod affinity, topology spread, volumes) are taken as passing, so
  // this may say yes where the scheduler says no (cosim then waits its grace), never the
  // reverse. Cached until the next change.
  bool given_up_pod_fits() { return cosim_.given_up_pod_fits(); }
  // Whether some pod given up on may preempt: its preemptionPolicy is PreemptLowerPriority
  // and some bound, non-terminal pod has a lower priority (DefaultPreemption's first
  // requirement, framework/plugins/defaultpreemption/default_preemption.go PodEligibleToPreemptOthers).
  bool given_up_pod_may_preempt() const { return cosim_.given_up_pod_may_preempt(); }
  // Names (namespace/name) of the pods of external schedulers still pending, in creation order.
  std::vector<std::string> pending_external_pods() const { return cosim_.pending_pods(); }
  // Bumped by every change a watcher could see and every request; cosim's quiet period
  // starts at the last bump.
  std::chrono::steady_clock::time_point last_activity() const { return last_activity_; }
  // Wakes whoever waits for activity (the clock driver).
  void set_activity_callback(std::function<void()> f) { on_activity_ = std::move(f); }
  // Requests currently being handled (watches excluded), from the moment the HTTP layer
  // takes a request's bytes off its connection until its response has been written
  // (request_taken / request_answered): in between, no byte of it is in any socket queue
  // (what cosim with a shimmed scheduler also looks at) and the client just waits, so cosim
  // must not take that instant for a quiet one.
  int in_flight() const { return in_flight_ + requests_taken_.load(); }
  void request_taken() { ++requests_taken_; }
  // Also restarts cosim's quiet period: the client has an answer to act on.
  void request_answered() {
    std::lock_guard<std::mutex> lock(mutex_);
    --requests_taken_;
    touch();
  }
  // Whether every open watch has taken every change recorded so far and its stream has
  // written them out (watch_written()): then a client has been told everything. Cosim with
  // a scheduler on simulated time moves on only then. Call under the lock.
  bool watches_delivered();
  // Called by the HTTP layer once the events poll_watch() returned are written.
  void watch_written() { --watch_writes_; }
  // Called by the clock (under the lock) before a request acts, to bring the simulated
  // clock up to date in realtime mode.
  void set_before_request(std::function<void(const ApiRequest&)> f) { before_request_ = std::move(f); }
  // Notifies watchers of events recorded since the last call (after the clock advanced).
  void notify_watchers();
  // Cosim with a scheduler on simulated time: the changes a request makes (a binding, a
  // status patch, an Event) reach the watches only at the clock's next step, released by
  // release_watch_events(); changes made by the simulation are released with the step
  // that makes them. Why: a real write's watch event lands after its response; here both
  // were written by different server threads while the scheduler ran, and which of them
  // the scheduler read first changed from run to run (so did the order of its goroutines).
  // Call under the lock.
  void hold_request_changes();
  bool watch_events_held() const { return hold_ && visible_end_ < cache_.end_index(); }
  // Lets the watches send the held changes; with the gate's `all` setting (gate_writes(true,
  // true)) only the next change, to one watch (release_to_next_watch), so that each watch
  // event, as each response, reaches the scheduler alone and while it is blocked (the clock
  // releases the next one at its next step, once the scheduler is blocked again). Why: the
  // events of one step went out on several streams (pods, nodes, quotas), each written by its
  // own server thread, and several events of one stream in pieces; how far the scheduler got
  // with the first before the next arrived changed from run to run (e.g. which waiting pod
  // its queue tried first after a pod ended and freed quota; docs/evidence/cosim.md). One
  // change also goes to every watch of its kind, and Volcano's controllers each watch pods,
  // PodGroups, Jobs through informers of their own: sent at once, they arrived in any order.
  void release_watch_events();
  // Cosim with a scheduler under the shim: every write waits at a gate until the clock opens
  // it (open_write_gate), which it does once the scheduler is blocked and every request it
  // sent is waiting there; the writes then act one at a time in the order of their method,
  // path and body, not in the order serve's threads happened to take them. Why: the
  // scheduler issues concurrent writes from goroutines (a binding per pod, preemption's
  // victim DELETEs in parallel), their arrival order varied from run to run, and with it
  // the order the simulation saw them in (the Job controller's replacement pods and their
  // names, then the scheduling queue's order). Reads are not gated (unless reads_too): a read
  // sees the writes of earlier gate openings only, whenever it arrives. Call under the lock.
  // one_at_a_time: each opening lets only the least write act, so that its response is the
  // only news the scheduler gets until it is blocked again (slow: one quiet period per write).
  // reads_too: reads (lists, gets, the start of a watch) wait there as well, so that with
  // one_at_a_time each response of any kind reaches the scheduler alone and while it is
  // blocked; its start-up's lists otherwise arrive while it runs, at moments that change
  // from run to run (docs/evidence/cosim.md).
  void gate_writes(bool one_at_a_time, bool reads_too = false) {
    gate_writes_ = true;
    gate_one_ = one_at_a_time;
    gate_reads_ = reads_too;
  }
  bool writes_at_gate() const { return !gated_.empty(); }
  // Every request a client sent is at the gate (none being read, answered or released).
  bool only_gated_requests() const {
    return gate_order_.empty() && static_cast<int>(gated_.size()) == requests_taken_.load();
  }
  void open_write_gate();
  // The gate off, the writes at it let through (when the scheduler is being stopped: it may
  // write while it shuts down, and must not wait for an opening that will not come).
  void stop_gating_writes();

  void on_change(const Change& change) override;

 private:
  // The per-backend steps of the writes (api_writes.cpp's table): each resource family's
  // create, update and delete after the common checks, in pod_handlers.cpp (pods, Jobs),
  // cluster_handlers.cpp (nodes, namespaces, quotas) and generic_handlers.cpp.
  struct BackendHandlers;
  static const BackendHandlers& handlers_of(Backend backend);
  // With the gate's `all` setting: lets the first open watch (in the order they were opened)
  // that will send the next held change send it, alone; once every such watch has, the
  // change is visible to all and the next one is taken. Call under the lock.
  void release_to_next_watch();
  // Whether change `e` makes a line on watch `w` (its selector matches the new or old state).
  static bool carries(const Watch& w, const LoggedEvent& e);
  // The watch log's end `w` may send up to now. Call under the lock.
  std::size_t sendable_end(const Watch& w) const;

  // Routing (api_server.cpp).
  ApiResponse dispatch(const ApiRequest& request, std::shared_ptr<Watch>* watch);
  ApiResponse route(const ResourcePath& t, const ApiRequest& request, std::shared_ptr<Watch>* watch);
  // Reads (api_reads.cpp) and watches (watch_stream.cpp).
  ApiResponse list(const ResourcePath& t, const ApiRequest& request);
  ApiResponse start_watch(const ResourcePath& t, const ApiRequest& request, std::shared_ptr<Watch>* watch);
  ApiResponse get(const ResourcePath& t, const ApiRequest& request);
  // Writes: the steps common to every resource (api_writes.cpp).
  ApiResponse create(const ResourcePath& t, const ApiRequest& request);
  ApiResponse create_dry_run(const ResourcePath& t, const nlohmann::json& body);
  ApiResponse replace(const ResourcePath& t, nlohmann::json updated);
  ApiResponse patch(const ResourcePath& t, const ApiRequest& request);
  ApiResponse remove(const ResourcePath& t, const ApiRequest& request);
  // The object of `t` named `name` as stored now, with `status`.
  ApiResponse stored(const ResourcePath& t, const std::string& name, int status) const;
  // The answer to a DELETE of the model-backed object `current` once the model has acted.
  ApiResponse after_delete(const ResourcePath& t, const SnapshotPtr& current) const;

  // Pods and Jobs (pod_handlers.cpp).
  ApiResponse create_pod_or_job(const ResourcePath& t, nlohmann::json body);
  ApiResponse update_pod(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse update_job(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse update_job_status(const ResourcePath& t, const SnapshotPtr& current, const nlohmann::json& updated);
  ApiResponse update_pod_status(const ResourcePath& t, const nlohmann::json& updated);
  ApiResponse remove_pod(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                         const SnapshotPtr& current);
  ApiResponse remove_job(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                         const SnapshotPtr& current);
  ApiResponse bind(const ResourcePath& t, const ApiRequest& request);
  ApiResponse bind_named_in_body(const ResourcePath& t, const ApiRequest& request);
  ApiResponse evict(const ResourcePath& t);
  // Nodes, namespaces and ResourceQuotas (cluster_handlers.cpp).
  ApiResponse create_node(const ResourcePath& t, nlohmann::json body);
  ApiResponse create_namespace(const ResourcePath& t, nlohmann::json body);
  ApiResponse create_quota(const ResourcePath& t, nlohmann::json body);
  ApiResponse update_node(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse update_namespace(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse update_quota(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse remove_namespace(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                               const SnapshotPtr& current);
  ApiResponse remove_refused(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                             const SnapshotPtr& current);
  // Resources stored as JSON only (generic_handlers.cpp).
  ApiResponse create_generic(const ResourcePath& t, nlohmann::json body);
  ApiResponse replace_generic(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json body);
  ApiResponse remove_generic(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                             const SnapshotPtr& current);

  // Kinds registered in the store (registered_handlers.cpp).
  nlohmann::json registered_object_json(ObjectKind kind, std::uint32_t id);
  void publish_registered(ObjectKind kind, std::uint32_t id, WatchEventType type);
  ApiResponse create_registered(const ResourcePath& t, nlohmann::json body);
  ApiResponse update_registered(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse remove_registered(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                                const SnapshotPtr& current);
  // A registered kind's object as a client writes it: the checks of a custom object
  // (apiVersion, name, schema; custom_resource_handlers.cpp) and its stored form.
  std::optional<ApiResponse> refused_custom_object(const ResourcePath& t, const nlohmann::json& object) const;
  ApiResponse store_registered(const ResourcePath& t, nlohmann::json object, const SnapshotPtr& current);

  // CustomResourceDefinitions (custom_resource_handlers.cpp): the CRD objects are JSON in the
  // cache; creating one serves its kind (registering it in the store unless a model already
  // did), deleting one deletes its objects and stops serving it.
  ApiResponse create_crd(const ResourcePath& t, nlohmann::json body);
  ApiResponse update_crd(const ResourcePath& t, const SnapshotPtr& current, nlohmann::json updated);
  ApiResponse remove_crd(const ResourcePath& t, const ApiRequest& request, const nlohmann::json& options,
                         const SnapshotPtr& current);
  // Serves `spec`'s kind (a new resource, or the kind's existing one renamed); an error
  // message when it cannot be.
  std::optional<std::string> serve_crd(const CrdSpec& spec);
  // The resource of a registered kind (nullopt: not served by this server).
  std::optional<std::uint8_t> resource_of(ObjectKind kind) const {
    const std::uint8_t r = resource_of_kind_[static_cast<std::size_t>(kind)];
    return r == 0 ? std::nullopt : std::optional<std::uint8_t>(r);
  }

  // Serializes the model object a change names and records it in the watch cache.
  void publish_model(ObjectKind kind, std::uint32_t id, ChangeType type);
  void publish_pod(PodId pod, WatchEventType type, ChangeType change);
  void touch();
  std::string generate_name(const std::string& base);

  Simulation& sim_;
  ApiOptions options_;
  TimeFormat time_;
  std::deque<std::string> resource_names_;  // strings resources_ names (registered kinds' singulars)
  ResourceTable resources_;                 // the built-in resources, then the store's registered kinds
  WatchCache cache_;
  PodEventRecorder pod_events_;
  CosimState cosim_;
  std::mutex mutex_;
  std::condition_variable events_cv_;
  // The watch log's end when watchers were last notified (notify_watchers()): anything
  // recorded since is news to them.
  std::size_t notified_end_ = 0;
  bool hold_ = false;             // see hold_request_changes()
  // The write gate (gate_writes()): the writes waiting, in arrival order, as (canonical key,
  // ticket); the tickets released by open_write_gate(), the front acting next.
  struct GatedWrite {
    std::string key;
    std::uint64_t ticket;
  };
  bool gate_writes_ = false;
  bool gate_one_ = false;
  bool gate_reads_ = false;
  std::vector<GatedWrite> gated_;
  std::deque<std::uint64_t> gate_order_;
  std::uint64_t next_gate_ticket_ = 0;
  std::condition_variable gate_cv_;
  // Waits (releasing `lock`) until the gate lets this write act; false when serve stops.
  bool wait_at_gate(const ApiRequest& request, std::unique_lock<std::mutex>& lock);
  std::size_t visible_end_ = 0;   // with hold_: the watch log's end the watches may send up to
  bool stopping_ = false;
  int in_flight_ = 0;
  std::vector<std::weak_ptr<Watch>> watches_;  // open watches (expired ones pruned)
  std::atomic<int> requests_taken_{0};         // see in_flight()
  std::atomic<int> watch_writes_{0};           // events returned by poll_watch, not yet written
  std::uint64_t requests_ = 0;
  RandomStream name_rng_;
  std::uint32_t generic_uid_ = 0;
  // Lookups only (never iterated): the object a client created, for fields kubesim does
  // not model (annotations, images, ...), by model index.
  std::unordered_map<std::uint32_t, nlohmann::json> pod_originals_, job_originals_, node_originals_;
  std::unordered_map<std::uint32_t, DisruptionReason> disruption_marks_;  // DisruptionTarget set by a client
  // By (kind << 32 | id), lookups only: a registered kind's object's metadata beyond the
  // store's ObjectMeta (uid, creationTimestamp, a client's labels and annotations).
  std::unordered_map<std::uint64_t, nlohmann::json> registered_meta_;
  // By (kind << 32 | id), lookups only: a typed kind's object as a client last wrote it (its
  // body without metadata), served instead of the codec's rendering, which has only what the
  // model reads.
  std::unordered_map<std::uint64_t, nlohmann::json> registered_bodies_;
  // A served custom resource's CRD, by resource index (its strings are what the resource's
  // ResourceInfo names: node-stable).
  struct CustomResource {
    CrdSpec spec;
    std::string short_names, categories, subresources;
  };
  std::map<std::uint8_t, CustomResource> custom_;
  std::array<std::uint8_t, kMaxKinds> resource_of_kind_{};  // 0: not served (0 is pods)
  KindSet subscribed_ = KindSet::builtins();               // the kinds this server listens to
  std::uint8_t pods_resource_, nodes_resource_, namespaces_resource_, jobs_resource_, quotas_resource_,
      priority_classes_resource_, pdbs_resource_, crds_resource_;
  std::chrono::steady_clock::time_point last_activity_;
  std::function<void()> on_activity_;
  std::function<void(const ApiRequest&)> before_request_;
};

// Whether `updated` stores the same object as `old`, apart from what the server owns
// (resourceVersion, uid, creationTimestamp): such an update is not written (registered_handlers.cpp).
bool same_object(nlohmann::json updated, const nlohmann::json& old);

}  // namespace kubesim::api
