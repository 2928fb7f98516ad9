#include "api/manifest_apply.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "core/parse_number.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

// A plain YAML scalar as YAML 1.2's core schema types it (what kubectl's YAML-to-JSON
// conversion, sigs.k8s.io/yaml, gives); quoted scalars stay strings.
Json scalar_json(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (const auto i = parse_int(s)) return *i;
  try {
    std::size_t used = 0;
    const double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

// Iterative (no recursion on the input's structure): a stack of (node, where its JSON goes).
Json yaml_to_json(const YAML::Node& root) {
  Json out;
  std::vector<std::pair<YAML::Node, Json*>> stack{{root, &out}};
  while (!stack.empty()) {
    auto [node, target] = stack.back();
    stack.pop_back();
    if (node.IsMap()) {
      *target = Json::object();
      for (const auto& kv : node) stack.emplace_back(kv.second, &(*target)[kv.first.as<std::string>()]);
    } else if (node.IsSequence()) {
      *target = Json::array();
      for (std::size_t i = 0; i < node.size(); ++i) target->push_back(nullptr);
      for (std::size_t i = 0; i < node.size(); ++i) stack.emplace_back(node[i], &(*target)[i]);
    } else if (node.IsScalar()) {
      *target = scalar_json(node);
    } else {
      *target = nullptr;
    }
  }
  return out;
}

struct Document {
  std::string file;
  int line;
  Json object;
};

std::vector<std::string> manifest_files(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(path)) return {path};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(path)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(path, 0, "expected a YAML file or a directory of *.yaml files");
  return files;
}

}  // namespace

void apply_manifests(ApiServer& server, const std::string& path) {
  std::vector<Document> docs;
  for (const std::string& file : manifest_files(path)) {
    std::vector<YAML::Node> nodes;
    try {
      nodes = YAML::LoadAllFromFile(file);
    } catch (const YAML::BadFile&) {
      throw InputError(file, 0, "cannot read the file");
    } catch (const YAML::Exception& e) {
      throw InputError(file, e.mark.line + 1, "expected YAML: " + e.msg);
    }
    for (const YAML::Node& n : nodes)
      if (n.IsMap()) docs.push_back({file, n.Mark().line + 1, yaml_to_json(n)});
  }
  // CRDs first: the objects of their kinds may come in any file.
  std::stable_partition(docs.begin(), docs.end(), [](const Document& d) {
    return d.object.value("kind", Json()) == "CustomResourceDefinition";
  });
  for (const Document& d : docs) {
    const ApiResponse r = server.create_object(d.object);
    if (r.status != 201) {
      std::string message = r.body;
      try {
        message = Json::parse(r.body).value("message", r.body);
      } catch (const std::exception&) {
      }
      throw InputError(d.file, d.line, "expected an object the API accepts, got " + std::to_string(r.status) + ": " + message);
    }
  }
}

}  // namespace kubesim::api
