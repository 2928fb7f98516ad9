// Server-side printing for the HTTP API facade: meta.k8s.io/v1 Table responses.
//
// kubectl asks for tables (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...`) and prints
// the cells the server computed. The columns and cell values follow the apiserver's printers at
// Kubernetes v1.26:
//   - pkg/printers/internalversion/printers.go (pods, nodes, jobs, namespaces, events,
//     resourcequotas, priorityclasses, leases, poddisruptionbudgets); the apiserver always prints
//     with GenerateOptions{Wide: true} (pkg/printers/storage/storage.go), so the priority-1
//     ("wide") cells are always present and kubectl hides them unless `-o wide`;
//   - staging/src/k8s.io/apiserver/pkg/registry/rest/table.go (defaultTableConvertor: Name,
//     Created At) for every other resource;
//   - staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable: includeObject
//     None / Metadata (PartialObjectMetadata) / Object) and handlers/watch.go (serveWatch Fixup:
//     a watch sends one single-row Table per event and only the first carries the column
//     definitions, later ones have TableOptions.NoHeaders = true, i.e. "columnDefinitions": null);
//   - staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go (HumanDuration: the Age
//     column).
//
// Everything works on the objects' Kubernetes JSON (as the codec emits it), so this file is
// independent of the model. Timestamps are RFC 3339 strings; "now" is given by the caller in
// unix microseconds (in `serve` this is the simulated clock mapped to wall-clock time).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::api {

// metav1.IncludeObjectPolicy (TableOptions.includeObject): what each row's "object" holds.
enum class TableObjects {
  None,      // "object": null
  Metadata,  // a meta.k8s.io/v1 PartialObjectMetadata (the default)
  Object,    // the full object
};

// The `includeObject` query parameter: "" and "Metadata" -> Metadata, "None", "Object".
// nullopt for anything else; the apiserver then answers 400 BadRequest with the message
// `unrecognized includeObject value: "<value>"` (response.go asTable).
std::optional<TableObjects> parse_include_object(std::string_view value);

// True when the Accept header's preferred media type that this JSON-only server can produce is
// a meta.k8s.io Table (`application/json;as=Table;g=meta.k8s.io;v=v1` or v1beta1; also with
// `*/*` or `application/*`). Clauses are taken in descending q order (ties keep header order);
// clauses for other encodings (protobuf, yaml) or other `as=` kinds (PartialObjectMetadata...)
// are skipped; a plain `application/json` (or `*/*`) clause ranked first gives false.
// Note: a v1beta1-only Accept header also gives true, and the table is still meta.k8s.io/v1.
bool wants_table(std::string_view accept_header);

// duration.HumanDuration of a length of time in microseconds: "<invalid>" below -1 s, "0s" for
// (-2 s, 0), "5s", "119s", "2m3s", "10m", "179m", "3h5m", "8h", "47h", "2d3h", "8d", "729d",
// "2y3d", "8y".
std::string human_duration(std::int64_t micros);


// The column definitions of a resource's table: a JSON array of
// {name, type, format, description, priority}.
// `resource` is the plural resource name: "pods", "nodes", "jobs", "namespaces", "events" (core/v1
// and events.k8s.io/v1 objects alike), "resourcequotas", "priorityclasses", "leases",
// "poddisruptionbudgets"; any other name gets the default columns (Name, Created At).
nlohmann::json table_column_definitions(std::string_view resource);

// One row ({cells, object[, conditions]}) for one object.
nlohmann::json table_row(std::string_view resource, const nlohmann::json& object, std::int64_t now_unix_micros,
                         TableObjects include = TableObjects::Metadata);

// The Table for a list (or a get: one object). `list_metadata` is the list's metadata; its
// resourceVersion, continue and remainingItemCount are copied (omitted when empty, as ListMeta's
// omitempty does). Rows follow `objects`' order.
nlohmann::json to_table(std::string_view resource, const std::vector<const nlohmann::json*>& objects,
                        std::int64_t now_unix_micros, TableObjects include = TableObjects::Metadata,
                        const nlohmann::json& list_metadata = nlohmann::json::object());

// The "object" of one watch event when the watch asked for tables: a Table with one row for
// `object` and metadata.resourceVersion = the object's. Upstream (watch.go serveWatch Fixup)
// sends the column definitions with the first event of a watch only (including a BOOKMARK or
// any other first event) and "columnDefinitions": null afterwards: pass `first_event` = true for
// the first event the watch sends, false for every later one.
nlohmann::json to_table_row_object(std::string_view resource, const nlohmann::json& object,
                                   std::int64_t now_unix_micros, TableObjects include, bool first_event);

}  // namespace kubesim::api
