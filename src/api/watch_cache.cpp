#include "api/watch_cache.hpp"

#include <algorithm>

#include "api/api_responses.hpp"
#include "core/parse_number.hpp"

namespace kubesim::api {

const char* to_string(WatchEventType t) {
  switch (t) {
    case WatchEventType::kAdded: return "ADDED";
    case WatchEventType::kModified: return "MODIFIED";
    case WatchEventType::kDeleted: return "DELETED";
  }
  return "";
}

const SharedText& Snapshot::event_line(WatchEventType type) const {
  SharedText& line = event_lines[static_cast<std::size_t>(type)];
  if (!line) {
    const char* name = to_string(type);
    std::string out;
    out.reserve(text.size() + 32);
    out += R"({"type":")";
    out += name;
    out += R"(","object":)";
    out += text;
    out += "}\n";
    line = std::make_shared<const std::string>(std::move(out));
  }
  return line;
}

std::string WatchLines::text() const {
  std::string out;
  for (const SharedText& l : lines) out += *l;
  return out;
}

WatchCache::WatchCache(std::size_t resources, std::size_t log_capacity, std::size_t log_byte_budget)
    : live_(resources), capacity_(log_capacity), byte_budget_(log_byte_budget) {}

SnapshotPtr WatchCache::find(std::uint8_t resource, const std::string& key) const {
  const auto& m = live_[resource];
  const auto it = m.find(key);
  return it == m.end() ? nullptr : it->second;
}

void WatchCache::record(std::uint8_t resource, WatchEventType type, SnapshotPtr snapshot) {
  auto& m = live_[resource];
  SnapshotPtr previous;
  if (auto it = m.find(snapshot->key); it != m.end()) {
    previous = it->second;
    if (type == WatchEventType::kDeleted) {
      m.erase(it);
    } else {
      it->second = snapshot;
    }
  } else if (type != WatchEventType::kDeleted) {
    m.emplace(snapshot->key, snapshot);
  }
  // A re-created key (an object deleted, then added again) is an ADDED event.
  if (type == WatchEventType::kModified && !previous) type = WatchEventType::kAdded;
  latest_ = std::max(latest_, snapshot->resource_version);
  log_bytes_ += snapshot->text.size();
  log_.push_back(LoggedEvent{snapshot->resource_version, resource, type, std::move(snapshot), std::move(previous)});
  while (log_.size() > capacity_ || (log_.size() > 1 && log_bytes_ > byte_budget_)) {
    evicted_up_to_ = log_.front().resource_version;
    log_bytes_ -= log_.front().object->text.size();
    log_.pop_front();
    ++first_index_;
  }
}

void WatchCache::record_object(std::uint8_t resource, WatchEventType type, nlohmann::json object, std::uint32_t model_id) {
  auto snap = std::make_shared<Snapshot>();
  const nlohmann::json& meta = object["metadata"];
  const std::string& ns = string_at(object, "metadata", "namespace");
  snap->key = ns.empty() ? json_string_of(meta["name"]) : ns + "/" + json_string_of(meta["name"]);
  snap->resource_version = static_cast<std::uint64_t>(parse_int(json_string_of(meta["resourceVersion"])).value_or(0));
  snap->model_id = model_id;
  snap->text = object.dump();
  snap->object = std::move(object);
  record(resource, type, std::move(snap));
}

std::size_t WatchCache::position(std::uint64_t resource_version) const {
  const auto it = std::upper_bound(log_.begin(), log_.end(), resource_version,
                                   [](std::uint64_t rv, const LoggedEvent& e) { return rv < e.resource_version; });
  return first_index_ + static_cast<std::size_t>(it - log_.begin());
}

}  // namespace kubesim::api
