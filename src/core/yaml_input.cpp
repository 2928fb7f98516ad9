#include "core/yaml_input.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "core/parse_number.hpp"

namespace kubesim {

int line_of(const YAML::Mark& m) { return m.is_null() ? 0 : m.line + 1; }

int line_of(const YAML::Node& n) { return line_of(n.Mark()); }

const char* type_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "?";
}

bool is_dns1123_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

bool is_qualified_name_part(std::string_view s) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

InputError yaml_error(const std::string& path, const YAML::Exception& e, const std::string& prefix) {
  // yaml-cpp 0.7's parser stops at 500 nested collections (src/singledocparser.cpp,
  // DepthGuard<500>) with the message "bad file", which names neither the cause nor the limit.
  if (dynamic_cast<const YAML::DeepRecursion*>(&e) != nullptr)
    return InputError(path, line_of(e.mark), prefix + "lists and maps nested too deep (the limit is 500 levels)");
  return InputError(path, line_of(e.mark), prefix + e.msg);
}

YAML::Node load_yaml_file(const std::string& path, const std::string& syntax_prefix) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError(path, 0, "cannot open file");
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e, syntax_prefix);
  }
}

namespace {

// yaml-cpp 0.7's LoadAll loops forever, piling up null documents, when a document begins with a
// token no node can start with (a ',' outside [ ] or { }): SingleDocParser::HandleNode emits a
// null without consuming the token, and Parser::HandleNextDocument then starts the next document
// at the same token. This event handler only checks progress: a document that starts where the
// previous one started is that loop, reported as a syntax error at the token.
class DocumentProgressCheck final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (started_ && mark.pos == last_start_.pos)
      throw YAML::ParserException(mark, "expected a YAML node, found a token that cannot start one (a ',' outside [ ] or { }?)");
    started_ = true;
    last_start_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  bool started_ = false;
  YAML::Mark last_start_;
};

}  // namespace

std::vector<YAML::Node> load_all_yaml(const std::string& text) {
  std::istringstream events_in(text);
  YAML::Parser parser(events_in);
  DocumentProgressCheck check;
  while (parser.HandleNextDocument(check)) {
  }
  return YAML::LoadAll(text);
}

std::vector<YAML::Node> load_yaml_documents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return load_all_yaml(text.str());
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e);
  }
}

void YamlInput::fail(const YAML::Node& n, const std::string& what) const { throw InputError(path_, line_of(n), what); }

void YamlInput::require_map(const YAML::Node& n, const std::string& where) const {
  if (!n.IsMap()) fail(n, "expected " + where + " to be a map, got " + type_name(n));
}

void YamlInput::require_list(const YAML::Node& n, const std::string& where) const {
  if (!n.IsSequence()) fail(n, "expected " + where + " to be a list, got " + type_name(n));
}

std::string YamlInput::scalar(const YAML::Node& n, const std::string& where) const {
  if (!n.IsScalar()) fail(n, "expected " + where + " to be a scalar, got " + type_name(n));
  return n.Scalar();
}

std::string YamlInput::string_or_null(const YAML::Node& n, const std::string& where) const {
  return n.IsNull() ? std::string() : scalar(n, where);
}

std::int64_t YamlInput::integer(const YAML::Node& n, const std::string& where, std::int64_t lo, std::int64_t hi) const {
  const std::string s = scalar(n, where);
  auto v = parse_int(s);
  if (!v || *v < lo || *v > hi)
    fail(n, "expected " + where + " to be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                ", got \"" + s + "\"");
  return *v;
}

bool YamlInput::boolean(const YAML::Node& n, const std::string& where) const {
  const std::string s = scalar(n, where);
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  fail(n, "expected " + where + " to be true or false, got \"" + s + "\"");
}

Quantity YamlInput::quantity(const YAML::Node& n, const std::string& where) const {
  return parse_resource_quantity(scalar(n, where), path_, line_of(n), where);
}

void YamlInput::check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                           const std::string& where) const {
  check_keys(map, allowed, {}, {}, where);
}

void YamlInput::check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                           std::initializer_list<std::string_view> ignored,
                           std::initializer_list<std::string_view> unsupported, const std::string& where) const {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = scalar(kv.first, "a key of " + where);
    if (!seen.insert(key).second) fail(kv.first, "duplicate key \"" + key + "\" in " + where);
    auto in = [&](std::initializer_list<std::string_view> l) {
      return std::any_of(l.begin(), l.end(), [&](std::string_view a) { return a == key; });
    };
    if (in(allowed) || in(ignored)) continue;
    if (in(unsupported)) fail(kv.first, where + "." + key + " is not supported by kubesim");
    std::string expected;
    for (std::string_view a : allowed) expected += (expected.empty() ? "" : ", ") + std::string(a);
    fail(kv.first, "unknown key \"" + key + "\" in " + where + " (expected one of: " + expected + ")");
  }
}

}  // namespace kubesim
