// The API's view of every object: the latest serialized state of each live object per
// resource (served by GET and LIST), and a bounded log of recent changes (served by WATCH),
// as kube-apiserver's watch cache (staging/src/k8s.io/apiserver/pkg/storage/cacher). Each
// change is serialized once and shared by the log, the lists and every watcher.
//
// Not thread-safe: the ApiServer calls it under its lock.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kubesim::api {

enum class WatchEventType : std::uint8_t { kAdded, kModified, kDeleted };
const char* to_string(WatchEventType t);

using SharedText = std::shared_ptr<const std::string>;

// One state of one object.
struct Snapshot {
  nlohmann::json object;
  std::string text;  // object.dump()
  std::string key;   // "<namespace>/<name>" or "<name>": the list order, as etcd's keys
  std::uint64_t resource_version = 0;
  std::uint32_t model_id = 0;  // the index of the simulation's object (model-backed resources)
  // This state as a watch event line ({"type":T,"object":text}\n), made once on first use
  // (under the ApiServer's lock) and shared, immutable, by every watcher it goes to, as the
  // cacher's cachingObject serializes an event once for all watchers
  // (staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go).
  mutable SharedText event_lines[3];
  const SharedText& event_line(WatchEventType type) const;
};
using SnapshotPtr = std::shared_ptr<const Snapshot>;

// A watch's next events for the HTTP layer: whole lines, most shared with other watchers.
struct WatchLines {
  std::vector<SharedText> lines;
  bool empty() const { return lines.empty(); }
  std::string text() const;  // the lines concatenated
};

struct LoggedEvent {
  std::uint64_t resource_version;
  std::uint8_t resource;
  WatchEventType type;
  SnapshotPtr object;    // the new state (the last state for kDeleted)
  SnapshotPtr previous;  // the state before (null for kAdded)
};

class WatchCache {
 public:
  // The log keeps at most `log_capacity` events and, beyond its newest event, at most
  // `log_byte_budget` bytes of serialized objects: large objects (a 3 MiB pod's every state)
  // leave the log, and the memory, sooner; a watch resuming from before them gets 410.
  WatchCache(std::size_t resources, std::size_t log_capacity, std::size_t log_byte_budget = kLogByteBudget);
  static constexpr std::size_t kLogByteBudget = 16 * 1024 * 1024;

  // Records a change of `resource` at snapshot->resource_version; `type` kDeleted removes it.
  void record(std::uint8_t resource, WatchEventType type, SnapshotPtr snapshot);
  // The same for an object state as JSON: serialized once here, keyed and versioned by its
  // metadata (namespace, name, resourceVersion); `model_id` as Snapshot::model_id.
  void record_object(std::uint8_t resource, WatchEventType type, nlohmann::json object, std::uint32_t model_id = 0);

  // The live objects of a resource by key.
  const std::map<std::string, SnapshotPtr>& live(std::uint8_t resource) const { return live_[resource]; }
  SnapshotPtr find(std::uint8_t resource, const std::string& key) const;

  // The logged events after `resource_version`, oldest first, starting at index `from` of
  // the log (see position()). False (410 Gone) when events after it were already evicted.
  bool covers(std::uint64_t resource_version) const { return resource_version >= evicted_up_to_; }
  // Index in the log of the first event newer than `resource_version`.
  std::size_t position(std::uint64_t resource_version) const;
  const LoggedEvent& at(std::size_t index) const { return log_[index - first_index_]; }
  std::size_t end_index() const { return first_index_ + log_.size(); }
  std::size_t begin_index() const { return first_index_; }  // the oldest event still logged
  std::uint64_t latest_resource_version() const { return latest_; }

 private:
  std::vector<std::map<std::string, SnapshotPtr>> live_;
  std::deque<LoggedEvent> log_;
  std::size_t capacity_;
  std::size_t byte_budget_;
  std::size_t log_bytes_ = 0;  // the log's events' text sizes
  std::size_t first_index_ = 0;       // the absolute index of log_.front()
  std::uint64_t evicted_up_to_ = 0;   // resourceVersion of the newest evicted event
  std::uint64_t latest_ = 0;
};

}  // namespace kubesim::api
