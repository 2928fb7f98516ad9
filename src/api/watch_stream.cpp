// Watches: what a watch selects, the initial events and the change log it streams, bookmarks
// and timeouts, and when every watch has delivered what was recorded (cosim's "the client has
// been told everything"). Follows kube-apiserver's watch cache and its watchers
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go, cache_watcher.go) and the
// watch handler (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go, get.go
// ListResource for the query parameters).
#include <algorithm>
#include <limits>

#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/request_path.hpp"
#include "api/selector.hpp"
#include "api/table.hpp"
#include "core/parse_number.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

// An open watch: what it selects and how far it has read the log.
struct Watch {
  std::uint8_t resource = 0;
  std::string ns;  // empty: every namespace
  Selection selection;
  bool send_initial = false;  // resourceVersion "" or "0": first the current objects as ADDED
  std::size_t cursor = 0;     // the next log index to read
  bool bookmarks = false;
  bool table = false;
  bool first_event = true;
  bool expired = false;  // fell behind the log's eviction: ended with a 410 ERROR event
  std::size_t released_end = 0;  // with the gate's `all`: the log's end this watch may send up to
  TableObjects include = TableObjects::Metadata;
  std::chrono::steady_clock::time_point deadline;
  std::chrono::steady_clock::time_point next_bookmark;
};

namespace {

// staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go: bookmarks go out every minute
// and 2 s before the watch's deadline.
constexpr auto kBookmarkFrequency = std::chrono::minutes(1);
constexpr auto kBookmarkBeforeDeadline = std::chrono::seconds(2);
// The apiserver's --min-request-timeout (1800 s) is the default watch timeout.
constexpr int kDefaultWatchTimeoutSeconds = 1800;

bool in_namespace(const Watch& w, const Snapshot& s) {
  return w.ns.empty() ||
         (s.key.size() > w.ns.size() && s.key.compare(0, w.ns.size(), w.ns) == 0 && s.key[w.ns.size()] == '/');
}

}  // namespace

ApiResponse ApiServer::start_watch(const ResourcePath& t, const ApiRequest& r, std::shared_ptr<Watch>* watch) {
  auto w = std::make_shared<Watch>();
  w->resource = t.resource;
  w->ns = t.ns;
  std::string error;
  std::string field_selector = r.param("fieldSelector") ? *r.param("fieldSelector") : std::string();
  if (!t.name.empty()) field_selector += (field_selector.empty() ? "" : ",") + std::string("metadata.name=") + t.name;
  if (!w->selection.parse(t.info().plural, r.param("labelSelector"), &field_selector, &error))
    return status_response(400, "BadRequest", error);
  const std::string* rv = r.param("resourceVersion");
  if (!rv || rv->empty() || *rv == "0") {
    w->send_initial = true;
  } else {
    const auto parsed = parse_int(*rv);
    if (!parsed || *parsed < 0) return status_response(400, "BadRequest", "invalid resourceVersion: " + *rv);
    const auto from = static_cast<std::uint64_t>(*parsed);
    // cacher.go (watchCache.waitUntilFreshAndBlock): a version the cache has not reached is
    // 504 "Too large resource version" with a retry hint. The apiserver first waits up to 3 s
    // for it; here no write can arrive while the request holds the lock, so it answers at once.
    if (from > cache_.latest_resource_version()) {
      ApiResponse late = status_response(504, "Timeout", "Too large resource version: " + std::to_string(from) +
                                                             ", current: " + std::to_string(cache_.latest_resource_version()));
      Json body = Json::parse(late.body);
      body["details"] = {{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                         {"retryAfterSeconds", 1}};
      return json_response(504, body);
    }
    if (!cache_.covers(from))
      return status_response(410, "Expired", "too old resource version: " + *rv + " (" + std::to_string(cache_.latest_resource_version()) + ")");
    w->cursor = cache_.position(from);
  }
  w->bookmarks = query_flag(r, "allowWatchBookmarks");
  w->table = wants_table(r.accept);
  if (w->table) {
    const auto include = include_object_param(r);
    if (!include) return status_response(400, "BadRequest", "unrecognized includeObject value");
    w->include = *include;
  }
  std::int64_t timeout = kDefaultWatchTimeoutSeconds;
  if (const std::string* ts = r.param("timeoutSeconds")) timeout = parse_int(*ts).value_or(timeout);
  const auto now = std::chrono::steady_clock::now();
  if (!options_.wall_clock_watch_timers) {
    timeout = std::numeric_limits<std::int32_t>::max();  // about 68 years: never in a run
    w->bookmarks = false;
  }
  w->deadline = now + std::chrono::seconds(timeout);
  w->next_bookmark = std::min(now + kBookmarkFrequency, w->deadline - kBookmarkBeforeDeadline);
  watches_.push_back(w);
  *watch = std::move(w);
  // The apiserver's watch media type (endpoints/handlers/watch.go); it also keeps the
  // HTTP layer from compressing (and so buffering) the stream.
  return ApiResponse{200, {}, "application/json;stream=watch"};
}

bool ApiServer::watches_delivered() {
  if (watch_writes_.load() != 0) return false;
  std::erase_if(watches_, [](const std::weak_ptr<Watch>& w) { return w.expired(); });
  for (const auto& weak : watches_)
    if (const auto w = weak.lock(); w && !w->expired && (w->send_initial || w->cursor < sendable_end(*w))) return false;
  return true;
}

bool ApiServer::poll_watch(Watch& w, std::string& out, std::chrono::milliseconds wait) {
  WatchLines lines;
  const bool alive = poll_watch(w, lines, wait);
  out += lines.text();
  return alive;
}

bool ApiServer::poll_watch(Watch& w, WatchLines& out, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  const ResourceInfo& info = resources_[w.resource];
  // The event lines of a stored state are shared by every watcher (Snapshot::event_line);
  // a table row, or a state made for this watcher alone, gets a line of its own.
  auto emit_own = [&](const char* type, const Snapshot& s) {
    if (w.resource == pods_resource_) cosim_.on_delivered(s.model_id);
    std::string line = R"({"type":")";
    line += type;
    line += R"(","object":)";
    if (w.table) {
      line += to_table_row_object(info.plural, s.object, time_.epoch_unix_micros + sim_.now().micros(), w.include,
                                  w.first_event)
                  .dump();
      w.first_event = false;
    } else {
      line += s.text;
    }
    line += "}\n";
    out.lines.push_back(std::make_shared<const std::string>(std::move(line)));
  };
  auto emit = [&](WatchEventType type, const Snapshot& s) {
    if (w.table) return emit_own(to_string(type), s);
    if (w.resource == pods_resource_) cosim_.on_delivered(s.model_id);
    out.lines.push_back(s.event_line(type));
  };
  auto drain = [&] {
    if (w.send_initial) {
      w.send_initial = false;
      w.cursor = cache_.end_index();
      for (const auto& [key, snap] : cache_.live(w.resource))
        if (in_namespace(w, *snap) && w.selection.matches(snap->object)) emit(WatchEventType::kAdded, *snap);
    }
    if (w.cursor < cache_.begin_index() && !w.expired) {
      // Events this watch had not read were evicted (a burst, or large objects: the log's byte
      // budget). As the cacher ends a watcher it cannot keep up (cache_watcher.go), the watch
      // ends with an ERROR event holding 410 Expired; client-go relists and watches anew.
      w.expired = true;
      std::string line = R"({"type":"ERROR","object":)";
      line += status_response(410, "Expired", "too old resource version: the watch fell behind").body;
      line += "}\n";
      out.lines.push_back(std::make_shared<const std::string>(std::move(line)));
      return;
    }
    if (w.expired) return;
    for (const std::size_t end = sendable_end(w); w.cursor < end; ++w.cursor) {
      const LoggedEvent& e = cache_.at(w.cursor);
      if (e.resource != w.resource || !in_namespace(w, *e.object)) continue;
      // cacher.go convertToWatchEvent: filter the new and the previous state; an object that
      // stops matching is DELETED (with its previous content), one that starts is ADDED.
      const bool current = e.type != WatchEventType::kDeleted && w.selection.matches(e.object->object);
      const bool previous = e.previous && w.selection.matches(e.previous->object);
      if (e.type == WatchEventType::kDeleted) {
        if (previous || w.selection.matches(e.object->object)) emit(WatchEventType::kDeleted, *e.object);
      } else if (current) {
        emit(previous ? WatchEventType::kModified : WatchEventType::kAdded, *e.object);
      } else if (previous) {
        Json old = e.previous->object;
        old["metadata"]["resourceVersion"] = std::to_string(e.resource_version);
        Snapshot s{std::move(old), {}, e.object->key, e.resource_version, e.object->model_id, {}};
        s.text = s.object.dump();
        emit_own("DELETED", s);
      }
    }
  };
  drain();
  if (w.expired && out.empty()) return false;
  // Events handed out count as undelivered until the HTTP layer has written them.
  if (!out.empty()) {
    ++watch_writes_;
    return true;
  }
  if (stopping_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now >= w.deadline) return false;
  if (w.bookmarks && now >= w.next_bookmark) {
    const Json bookmark = {{"kind", info.kind}, {"apiVersion", info.api_version()},
                           {"metadata", {{"resourceVersion", std::to_string(cache_.latest_resource_version())},
                                         {"annotations", {{"k8s.io/initial-events-end", "true"}}}}}};
    emit_own("BOOKMARK", Snapshot{bookmark, bookmark.dump(), {}, 0, UINT32_MAX, {}});
    w.next_bookmark = std::min(now + kBookmarkFrequency, w.deadline - kBookmarkBeforeDeadline);
    if (w.next_bookmark <= now) w.next_bookmark = w.deadline;
    ++watch_writes_;
    return true;
  }
  auto until = now + wait;
  if (w.bookmarks) until = std::min(until, w.next_bookmark);
  until = std::min(until, w.deadline);
  events_cv_.wait_until(lock, until);
  drain();
  if (!out.empty()) ++watch_writes_;
  return !stopping_ || !out.empty();
}

void ApiServer::notify_watchers() {
  // Only when something was recorded: waking every watch thread on every request (most are
  // reads, or writes the scheduler's own watch already saw) cost serve about half its CPU
  // under a real scheduler's load, CPU the scheduler then lacked on a small machine.
  if (notified_end_ == cache_.end_index()) return;
  notified_end_ = cache_.end_index();
  events_cv_.notify_all();
}

// Whether the change makes a line on the watch: its selector matches the object's new or
// previous state (drain above: a match of either gives ADDED, MODIFIED or DELETED).
bool ApiServer::carries(const Watch& w, const LoggedEvent& e) {
  return w.selection.matches(e.object->object) || (e.previous && w.selection.matches(e.previous->object));
}

std::size_t ApiServer::sendable_end(const Watch& w) const {
  return hold_ ? std::max(visible_end_, w.released_end) : cache_.end_index();
}

void ApiServer::release_to_next_watch() {
  // The first open watch (in the order they were opened) yet to send the change at `i`.
  const auto next_watch = [&](std::size_t i) -> std::shared_ptr<Watch> {
    const LoggedEvent& e = cache_.at(i);
    for (const auto& weak : watches_)
      if (auto w = weak.lock(); w && !w->expired && w->resource == e.resource && in_namespace(*w, *e.object) &&
                                w->cursor <= i && w->released_end <= i && carries(*w, e))
        return w;
    return nullptr;
  };
  for (; visible_end_ < cache_.end_index(); ++visible_end_)
    if (const auto w = next_watch(visible_end_)) {
      w->released_end = visible_end_ + 1;
      break;
    }
  // Visible to all once no watch is left to send it.
  while (visible_end_ < cache_.end_index() && !next_watch(visible_end_)) ++visible_end_;
}

void ApiServer::hold_request_changes() {
  hold_ = true;
  visible_end_ = cache_.end_index();
}

void ApiServer::release_watch_events() {
  if (!hold_ || visible_end_ == cache_.end_index()) return;
  if (gate_one_ && gate_reads_)
    release_to_next_watch();
  else
    visible_end_ = cache_.end_index();
  notified_end_ = visible_end_;
  events_cv_.notify_all();
}

}  // namespace kubesim::api
