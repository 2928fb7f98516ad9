// The three PATCH flavours of the apiserver (staging/src/k8s.io/apiserver/pkg/endpoints/
// handlers/patch.go), applied to an object's JSON:
//   application/merge-patch+json           merge_patch (RFC 7386)
//   application/strategic-merge-patch+json strategic_merge_patch (apimachinery
//                                          pkg/util/strategicpatch/patch.go, StrategicMergePatch)
//   application/json-patch+json            json_patch (RFC 6902)
// Server-side apply (application/apply-patch+yaml) is treated as a merge patch by the server.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::api {

// A patch that cannot be applied; the message is what the server returns (upstream answers
// 422 for a patch that does not apply to the object and 400 for a malformed one).
class PatchError : public std::runtime_error {
 public:
  explicit PatchError(const std::string& message) : std::runtime_error(message) {}
};

// RFC 7386 JSON merge patch: objects merge recursively, null deletes a key, everything else
// (lists included) replaces.
nlohmann::json merge_patch(const nlohmann::json& target, const nlohmann::json& patch);

// Strategic merge patch for the core/v1, batch/v1, policy/v1 and meta/v1 types kubesim
// serves. Lists merge by their patchMergeKey (see strategic_list_key), other lists are
// replaced; directives: $patch (replace | delete in maps and list items), $setElementOrder/<f>,
// $deleteFromPrimitiveList/<f>, $retainKeys; null deletes a key.
nlohmann::json strategic_merge_patch(const nlohmann::json& target, const nlohmann::json& patch);

// The patch metadata of a field, from the struct tags of staging/src/k8s.io/api/core/v1/types.go,
// batch/v1/types.go, policy/v1/types.go and apimachinery/pkg/apis/meta/v1/types.go.
// `path` is the chain of field names from the object root (list indexes left out), e.g.
// {"spec", "containers", "ports"}. Returns nullopt for a list that is replaced, "" for a
// list of primitives merged as a set (finalizers), else the merge key ("name", "type", ...).
std::optional<std::string> strategic_list_key(const std::vector<std::string>& path);

// RFC 6902 JSON patch: add, remove, replace, move, copy, test.
nlohmann::json json_patch(const nlohmann::json& target, const nlohmann::json& operations);

}  // namespace kubesim::api
