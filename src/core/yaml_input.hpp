// Reading YAML input files with kubesim's error messages, shared by the cluster, manifest,
// scenario and scheduler-configuration readers.
//
// Contract: every check either returns the value it read or throws InputError(path, line, what)
// with `path` the file given to the constructor and `line` the 1-based line of the offending
// node (0 when yaml-cpp has no position, e.g. for a node built in memory). The messages are
// part of kubesim's interface (tests/bad/*.expect and the unit tests compare them): "expected
// <where> to be a map, got a list", "duplicate key \"k\" in <where>", and so on. Nothing here
// catches yaml-cpp's own exceptions; callers turn them into InputError with yaml_error().
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/quantity.hpp"

namespace kubesim {

// The 1-based line of a node or of a yaml-cpp error position; 0 when there is none.
int line_of(const YAML::Mark& m);
int line_of(const YAML::Node& n);

// "null", "a scalar", "a list", "a map" or "nothing" (an undefined node), for messages.
const char* type_name(const YAML::Node& n);

// k8s.io/apimachinery/pkg/util/validation/validation.go: IsDNS1123Label.
bool is_dns1123_label(std::string_view s);
// validation.go IsQualifiedName's name part (a label key without its prefix, a label value,
// a resource group): at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends.
bool is_qualified_name_part(std::string_view s);

// The InputError for a yaml-cpp exception: `prefix` + yaml-cpp's message (without its
// "yaml-cpp: error at line..." prefix) at the error's line.
InputError yaml_error(const std::string& path, const YAML::Exception& e,
                      const std::string& prefix = "malformed YAML: ");

// Loads the first document, or all documents, of a file: "cannot open file" (line 0) when it
// cannot be read, yaml_error(path, e, syntax_prefix) when it is not YAML.
YAML::Node load_yaml_file(const std::string& path, const std::string& syntax_prefix = "malformed YAML: ");
std::vector<YAML::Node> load_yaml_documents(const std::string& path);
// YAML::LoadAll(text), except that an input on which yaml-cpp 0.7 would loop forever throws a
// YAML::ParserException at the offending token instead. Use it instead of YAML::LoadAll.
std::vector<YAML::Node> load_all_yaml(const std::string& text);

// The checks of one input file. Readers derive from it (privately) or hold one.
class YamlInput {
 public:
  explicit YamlInput(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& what) const;

  // "expected <where> to be a map|a list|a scalar, got <type_name>".
  void require_map(const YAML::Node& n, const std::string& where) const;
  void require_list(const YAML::Node& n, const std::string& where) const;
  std::string scalar(const YAML::Node& n, const std::string& where) const;
  // A scalar, or "" for null.
  std::string string_or_null(const YAML::Node& n, const std::string& where) const;
  // An integer in lo..hi written in decimal.
  std::int64_t integer(const YAML::Node& n, const std::string& where, std::int64_t lo, std::int64_t hi) const;
  // true/True/TRUE or false/False/FALSE.
  bool boolean(const YAML::Node& n, const std::string& where) const;
  // A non-negative Kubernetes quantity (parse_resource_quantity's messages).
  Quantity quantity(const YAML::Node& n, const std::string& where) const;

  // Rejects duplicate keys, which yaml-cpp keeps silently, and keys outside `allowed` (the
  // message lists `allowed`). With `ignored` and `unsupported`: keys in `ignored` are accepted
  // and skipped, keys in `unsupported` are "<where>.<key> is not supported by kubesim".
  void check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                  const std::string& where) const;
  void check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                  std::initializer_list<std::string_view> ignored, std::initializer_list<std::string_view> unsupported,
                  const std::string& where) const;

 private:
  std::string path_;
};

}  // namespace kubesim
