#include "api/api_responses.hpp"

#include "core/error_text.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

ApiResponse json_response(int status, const Json& body) {
  return ApiResponse{status, body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json"};
}

ApiResponse status_response(int code, std::string_view reason, const std::string& message, const std::string& name,
                            std::string_view kind, std::string_view group) {
  Json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", Json::object()}, {"status", "Failure"},
                 {"message", one_line_message(message)}, {"reason", reason}, {"code", code}};
  if (!name.empty() || !kind.empty()) {
    Json details = Json::object();
    if (!name.empty()) details["name"] = name;
    if (!group.empty()) details["group"] = group;
    if (!kind.empty()) details["kind"] = kind;
    status["details"] = details;
  }
  return json_response(code, status);
}

ApiResponse success_status(int code) {
  return json_response(code, Json{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", Json::object()},
                                  {"status", "Success"}, {"code", code}});
}

ApiResponse not_found_path() {
  return status_response(404, "NotFound", "the server could not find the requested resource");
}

ApiResponse object_not_found(const ResourceInfo& info, const std::string& name) {
  return status_response(404, "NotFound", std::string(info.plural) + " \"" + name + "\" not found", name, info.plural,
                         info.group);
}

ApiResponse method_not_allowed() {
  return status_response(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

Json parse_body(const std::string& body) {
  return Json::parse(body, [](int depth, Json::parse_event_t event, Json&) {
    if (depth >= kMaxJsonDepth && (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start))
      throw BodyTooDeep();
    return true;
  });
}

const std::string& string_at(const Json& object, const char* a, const char* b) {
  static const std::string kEmpty;
  const auto ia = object.find(a);
  if (ia == object.end() || !ia->is_object()) return kEmpty;
  const auto ib = ia->find(b);
  return ib != ia->end() && ib->is_string() ? ib->get_ref<const std::string&>() : kEmpty;
}

std::string json_string_of(const Json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

}  // namespace kubesim::api
