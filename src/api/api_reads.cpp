// Reads: GET of one object and LIST with selectors, pagination (limit/continue) and
// server-side tables, served from the watch cache as kube-apiserver's cacher does
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go GetResource and ListResource,
// apiserver/pkg/storage/cacher/cacher.go GetList; the continue token of storage.EncodeContinue).
#include <stdexcept>

#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/request_path.hpp"
#include "api/selector.hpp"
#include "api/table.hpp"
#include "core/parse_number.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

// The continue token is base64 (RFC 4648, padded) of a small JSON document, as the
// apiserver's storage.EncodeContinue.
std::string encode_base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Throws std::invalid_argument on characters outside the alphabet.
std::string decode_base64(std::string_view in) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (const char c : in) {
    if (c == '=') break;
    int d = -1;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    if (c >= '0' && c <= '9') d = c - '0' + 52;
    if (c == '+' || c == '-') d = 62;
    if (c == '/' || c == '_') d = 63;
    if (d < 0) throw std::invalid_argument("illegal base64 data");
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xff);
    }
  }
  return out;
}

}  // namespace

ApiResponse ApiServer::get(const ResourcePath& t, const ApiRequest& r) {
  const SnapshotPtr snap = cache_.find(t.resource, t.key());
  if (!snap) return object_not_found(t.info(), t.name);
  if (wants_table(r.accept)) {
    const auto include = include_object_param(r);
    if (!include) return status_response(400, "BadRequest", "unrecognized includeObject value");
    return json_response(200, to_table(t.info().plural, {&snap->object}, time_.epoch_unix_micros + sim_.now().micros(), *include));
  }
  return ApiResponse{200, snap->text, "application/json"};
}

ApiResponse ApiServer::list(const ResourcePath& t, const ApiRequest& r) {
  std::string error;
  Selection sel;
  if (!sel.parse(t.info().plural, r.param("labelSelector"), r.param("fieldSelector"), &error))
    return status_response(400, "BadRequest", error);
  const auto& live = cache_.live(t.resource);
  auto it = t.ns.empty() ? live.begin() : live.lower_bound(t.ns + "/");
  const std::string ns_prefix = t.ns.empty() ? std::string() : t.ns + "/";
  std::uint64_t list_rv = cache_.latest_resource_version();
  // limit/continue (apiserver's pagination). A list with resourceVersion=0 is served from
  // the watch cache, which ignores limit (staging/src/k8s.io/apiserver/pkg/storage/cacher).
  std::int64_t limit = 0;
  const std::string* rv_param = r.param("resourceVersion");
  if (const std::string* l = r.param("limit"); l && !l->empty()) {
    // metav1.ListOptions decoding (runtime.Convert_Slice_string_To_int64 via strconv.ParseInt):
    // a limit that is no integer is a 400 before anything is listed.
    const auto parsed = parse_int(*l);
    if (!parsed) return status_response(400, "BadRequest", "limit: Invalid value: \"" + l->substr(0, 80) + "\": must be an integer");
    if (!(rv_param && *rv_param == "0")) limit = *parsed;
  }
  if (const std::string* c = r.param("continue"); c && !c->empty()) {
    Json token;
    try {
      token = Json::parse(decode_base64(*c));
    } catch (const std::exception&) {
      return status_response(400, "BadRequest", "continue key is not valid: illegal base64 data");
    }
    if (!token.contains("start") || !token["start"].is_string() || !token.contains("rv"))
      return status_response(400, "BadRequest", "continue key is not valid");
    if (!cache_.covers(token["rv"].get<std::uint64_t>()))
      return status_response(410, "Expired",
                             "The provided continue parameter is too old to display a consistent list result. You "
                             "can start a new list without the continue parameter.");
    list_rv = token["rv"].get<std::uint64_t>();
    it = live.lower_bound(token["start"].get<std::string>());
  }
  const bool table = wants_table(r.accept);
  std::vector<const Json*> table_objects;
  std::string items;
  std::int64_t count = 0;
  std::string next_key;
  std::int64_t remaining = 0;
  for (; it != live.end(); ++it) {
    if (!ns_prefix.empty() && it->first.compare(0, ns_prefix.size(), ns_prefix) != 0) break;
    const Snapshot& s = *it->second;
    if (!sel.matches(s.object)) continue;
    if (limit > 0 && count == limit) {
      if (next_key.empty()) next_key = it->first;
      ++remaining;
      continue;
    }
    ++count;
    if (table) {
      table_objects.push_back(&s.object);
    } else {
      if (!items.empty()) items += ',';
      items += s.text;
    }
  }
  Json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (!next_key.empty()) {
    meta["continue"] = encode_base64(Json{{"v", "meta.k8s.io/v1"}, {"rv", list_rv}, {"start", next_key}}.dump());
    meta["remainingItemCount"] = remaining;
  }
  if (table) {
    const auto include = include_object_param(r);
    if (!include) return status_response(400, "BadRequest", "unrecognized includeObject value");
    return json_response(200, to_table(t.info().plural, table_objects, time_.epoch_unix_micros + sim_.now().micros(), *include, meta));
  }
  std::string body;
  body.reserve(items.size() + 200);
  body += R"({"kind":")";
  body += t.info().kind;
  body += R"(List","apiVersion":")";
  body += t.info().api_version();
  body += R"(","metadata":)";
  body += meta.dump();
  body += R"(,"items":[)";
  body += items;
  body += "]}";
  return ApiResponse{200, std::move(body), "application/json"};
}

}  // namespace kubesim::api
