// What every request handler of the ApiServer answers with and reads its body with: JSON
// responses, metav1.Status failures as kube-apiserver writes them
// (staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go, apiserver/pkg/endpoints/handlers/
// responsewriters/status.go), the request body decoder's depth limit, and small accessors of
// JSON fields. Internal to the api/ handlers (api_server*.cpp, *_handlers.cpp, watch_stream.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/api_server.hpp"
#include "api/resources.hpp"

namespace kubesim::api {

// error_handler_t::replace: a string kubesim echoes (a name, a path, a message) may hold
// bytes that are not UTF-8; they become U+FFFD instead of throwing while answering.
ApiResponse json_response(int status, const nlohmann::json& body);

// metav1.Status with status Failure; `details` only when a name or kind is given.
ApiResponse status_response(int code, std::string_view reason, const std::string& message,
                            const std::string& name = {}, std::string_view kind = {}, std::string_view group = {});
// metav1.Status with status Success.
ApiResponse success_status(int code);
// 404 for a path that names no served resource.
ApiResponse not_found_path();
// 404 for an object of `info` named `name` (errors.NewNotFound).
ApiResponse object_not_found(const ResourceInfo& info, const std::string& name);
// 405 for a verb the resource or subresource does not serve.
ApiResponse method_not_allowed();

// A request body nested deeper than this is refused before it is stored: the apiserver's
// JSON decoder (sigs.k8s.io/json, from Go's encoding/json) stops at a nesting depth of 10000
// ("exceeded max depth"). nlohmann parses and destroys iteratively, but serializing and
// patching recurse, so the bound also keeps those within a thread's stack.
constexpr int kMaxJsonDepth = 10000;
struct BodyTooDeep : std::runtime_error {
  BodyTooDeep() : std::runtime_error("exceeded max depth " + std::to_string(kMaxJsonDepth)) {}
};
// Throws nlohmann::json::exception on malformed JSON, BodyTooDeep beyond kMaxJsonDepth.
nlohmann::json parse_body(const std::string& body);

// object[a][b] when both are there and it is a string, else "".
const std::string& string_at(const nlohmann::json& object, const char* a, const char* b);
// The string a JSON value holds, else "".
std::string json_string_of(const nlohmann::json& v);

}  // namespace kubesim::api
