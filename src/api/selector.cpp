#include "api/selector.hpp"

#include <algorithm>
#include <cctype>

#include "core/parse_number.hpp"
#include "core/yaml_input.hpp"

namespace kubesim::api {

using nlohmann::json;

// ---- label selectors (apimachinery/pkg/labels/selector.go) ---------------------------

bool LabelRequirement::matches(const Labels& labels) const {
  const std::string* v = find_label(labels, key);
  auto in_values = [&] { return v && std::binary_search(values.begin(), values.end(), *v); };
  switch (op) {
    case Op::kExists: return v != nullptr;
    case Op::kDoesNotExist: return v == nullptr;
    case Op::kEquals:
    case Op::kIn: return in_values();
    case Op::kNotEquals:
    case Op::kNotIn: return !in_values();
    case Op::kGt:
    case Op::kLt: {
      if (!v) return false;
      auto have = parse_int(*v);
      auto want = parse_int(values.front());
      if (!have || !want) return false;
      return op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

bool LabelQuery::matches(const Labels& labels) const {
  return std::all_of(requirements.begin(), requirements.end(), [&](const auto& r) { return r.matches(labels); });
}

bool LabelQuery::matches_object(const json& object) const {
  if (empty()) return true;
  Labels labels;
  if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
    const json& md = object["metadata"];
    if (md.contains("labels") && md["labels"].is_object())
      for (const auto& [k, v] : md["labels"].items())
        if (v.is_string()) set_label(labels, k, v.get<std::string>());
  }
  return matches(labels);
}

namespace {

// The lexer's tokens (selector.go Token): identifiers are runs of characters that are not
// whitespace or one of ! , = ( ) < >; "in" and "notin" are keywords.
enum class Tok { kEnd, kIdent, kIn, kNotIn, kBang, kNotEqual, kEqual, kDoubleEqual, kGt, kLt, kOpen, kClose, kComma };

struct Token {
  Tok tok;
  std::string text;
};

bool special(char c) { return c == '!' || c == ',' || c == '=' || c == '(' || c == ')' || c == '<' || c == '>'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && space(s[i])) ++i;
    if (i >= s.size()) break;
    const char c = s[i];
    if (special(c)) {
      std::string_view two = s.substr(i, 2);
      if (two == "!=") out.push_back({Tok::kNotEqual, "!="}), i += 2;
      else if (two == "==") out.push_back({Tok::kDoubleEqual, "=="}), i += 2;
      else {
        const Tok t = c == '!' ? Tok::kBang : c == ',' ? Tok::kComma : c == '=' ? Tok::kEqual : c == '(' ? Tok::kOpen
                      : c == ')' ? Tok::kClose : c == '<' ? Tok::kLt : Tok::kGt;
        out.push_back({t, std::string(1, c)});
        ++i;
      }
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && !space(s[j]) && !special(s[j])) ++j;
    std::string word(s.substr(i, j - i));
    out.push_back({word == "in" ? Tok::kIn : word == "notin" ? Tok::kNotIn : Tok::kIdent, word});
    i = j;
  }
  out.push_back({Tok::kEnd, ""});
  return out;
}

// k8s.io/apimachinery/pkg/util/validation: IsQualifiedName (label keys) and IsValidLabelValue,
// both through core's is_qualified_name_part.
void validate_key(const std::string& key) {
  std::string_view name = key;
  if (const auto slash = name.find('/'); slash != std::string_view::npos) {
    const std::string_view prefix = name.substr(0, slash);
    name = name.substr(slash + 1);
    bool ok = !prefix.empty() && prefix.size() <= 253;
    for (char c : prefix) ok = ok && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.');
    if (!ok) throw SelectorError("invalid label key \"" + key + "\": prefix part must be a lowercase RFC 1123 subdomain");
  }
  if (!is_qualified_name_part(name))
    throw SelectorError("invalid label key \"" + key +
                        "\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                        "end with an alphanumeric character");
}

void validate_value(const std::string& v) {
  if (!v.empty() && !is_qualified_name_part(v))
    throw SelectorError("invalid label value: \"" + v +
                        "\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                        "or '.', and must start and end with an alphanumeric character");
}

class LabelParser {
 public:
  explicit LabelParser(std::string_view text) : tokens_(lex(text)) {}

  LabelQuery parse() {
    LabelQuery q;
    if (peek().tok == Tok::kEnd) return q;
    while (true) {
      q.requirements.push_back(requirement());
      const Token& t = next();
      if (t.tok == Tok::kEnd) break;
      if (t.tok != Tok::kComma) throw SelectorError("found '" + t.text + "', expected: ',' or 'end of string'");
      if (peek().tok == Tok::kEnd) throw SelectorError("found '', expected: identifier after ','");
    }
    std::stable_sort(q.requirements.begin(), q.requirements.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    return q;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }

  LabelRequirement requirement() {
    using Op = LabelRequirement::Op;
    LabelRequirement r;
    bool bang = false;
    if (peek().tok == Tok::kBang) {
      next();
      bang = true;
    }
    const Token& key = next();
    if (key.tok != Tok::kIdent)
      throw SelectorError("unable to parse requirement: found '" + key.text + "', expected: identifier");
    r.key = key.text;
    validate_key(r.key);
    if (bang) {
      r.op = Op::kDoesNotExist;
      if (peek().tok != Tok::kComma && peek().tok != Tok::kEnd)
        throw SelectorError("unable to parse requirement: found '" + peek().text + "', expected: ',' or 'end of string'");
      return r;
    }
    if (peek().tok == Tok::kComma || peek().tok == Tok::kEnd) {
      r.op = Op::kExists;
      return r;
    }
    const Token op = next();
    switch (op.tok) {
      case Tok::kEqual:
      case Tok::kDoubleEqual: r.op = Op::kEquals; break;
      case Tok::kNotEqual: r.op = Op::kNotEquals; break;
      case Tok::kIn: r.op = Op::kIn; break;
      case Tok::kNotIn: r.op = Op::kNotIn; break;
      case Tok::kGt: r.op = Op::kGt; break;
      case Tok::kLt: r.op = Op::kLt; break;
      default:
        throw SelectorError("unable to parse requirement: found '" + op.text +
                            "', expected: in, notin, =, ==, !=, gt, lt");
    }
    if (r.op == Op::kIn || r.op == Op::kNotIn) {
      const Token& open = next();
      if (open.tok != Tok::kOpen) throw SelectorError("found '" + open.text + "', expected: '('");
      while (true) {
        if (peek().tok == Tok::kIdent) r.values.push_back(next().text);
        else if (peek().tok == Tok::kComma || peek().tok == Tok::kClose) r.values.push_back("");  // "in (a,)"
        else throw SelectorError("found '" + peek().text + "', expected: ',', ')' or identifier");
        const Token& sep = next();
        if (sep.tok == Tok::kClose) break;
        if (sep.tok != Tok::kComma) throw SelectorError("found '" + sep.text + "', expected: ',' or ')'");
      }
      // "in ()" lexes as one empty value: NewRequirement wants at least one.
      if (r.values.size() == 1 && r.values[0].empty() && tokens_[pos_ - 2].tok == Tok::kOpen)
        throw SelectorError("for 'in', 'notin' operators, values set can't be empty");
    } else {
      if (peek().tok == Tok::kIdent) r.values.push_back(next().text);
      else r.values.push_back("");  // "a=" selects an empty value
    }
    for (const auto& v : r.values) validate_value(v);
    if (r.op == Op::kGt || r.op == Op::kLt) {
      if (!parse_int(r.values[0]))
        throw SelectorError("for 'Gt', 'Lt' operators, the value must be an integer");
    }
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
    return r;
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

}  // namespace

LabelQuery parse_label_selector(std::string_view text) { return LabelParser(text).parse(); }

// ---- field selectors (apimachinery/pkg/fields/selector.go) ---------------------------

std::optional<std::string> FieldQuery::unsupported_field(const FieldGetter& get) const {
  for (const auto& r : requirements)
    if (!get(r.field)) return r.field;
  return std::nullopt;
}

bool FieldQuery::matches(const FieldGetter& get) const {
  for (const auto& r : requirements) {
    const std::string v = get(r.field).value_or("");
    if ((v == r.value) != r.equal) return false;
  }
  return true;
}

namespace {

// splitTerms: split on commas not escaped by a backslash.
std::vector<std::string> split_terms(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool escaped = false;
  for (char c : s) {
    if (escaped) {
      cur += '\\';
      cur += c;
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (escaped) cur += '\\';
  out.push_back(std::move(cur));
  return out;
}

// UnescapeValue.
std::string unescape(std::string_view s) {
  std::string out;
  bool escaped = false;
  for (char c : s) {
    if (escaped) {
      if (c != '\\' && c != ',' && c != '=')
        throw SelectorError(std::string("invalid field selector: invalid escape sequence: \\") + c);
      out += c;
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == ',' || c == '=') {
      throw SelectorError(std::string("invalid field selector: unescaped character in value: ") + c);
    } else {
      out += c;
    }
  }
  if (escaped) throw SelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

}  // namespace

FieldQuery parse_field_selector(std::string_view text) {
  FieldQuery q;
  for (const std::string& term : split_terms(text)) {
    if (term.empty()) continue;
    // splitTerm: the first position holding one of !=, ==, = (in that preference).
    bool found = false;
    for (std::size_t i = 0; i < term.size() && !found; ++i) {
      for (std::string_view op : {"!=", "==", "="}) {
        if (std::string_view(term).substr(i, op.size()) == op) {
          FieldRequirement r;
          r.field = term.substr(0, i);
          r.equal = op != "!=";
          r.value = unescape(std::string_view(term).substr(i + op.size()));
          q.requirements.push_back(std::move(r));
          found = true;
          break;
        }
      }
    }
    if (!found)
      throw SelectorError("invalid selector: '" + std::string(text) + "'; can't understand '" + term + "'");
  }
  return q;
}

// ---- selectable fields ---------------------------------------------------------------

namespace {

// The string at a dotted path of a JSON object; "" when absent (Go's zero value).
std::string at(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* p : path) {
    if (!cur->is_object()) return "";
    const auto it = cur->find(p);
    if (it == cur->end()) return "";
    cur = &*it;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_boolean()) return cur->get<bool>() ? "true" : "false";
  if (cur->is_number_integer()) return std::to_string(cur->get<std::int64_t>());
  return "";
}

bool boolean_at(const json& obj, std::initializer_list<const char*> path) { return at(obj, path) == "true"; }

}  // namespace

std::optional<std::string> object_meta_field(const json& obj, std::string_view field) {
  if (field == "metadata.name") return at(obj, {"metadata", "name"});
  if (field == "metadata.namespace") return at(obj, {"metadata", "namespace"});
  return std::nullopt;
}

// pkg/registry/core/pod/strategy.go ToSelectableFields.
std::optional<std::string> pod_field(const json& pod, std::string_view f) {
  if (auto m = object_meta_field(pod, f)) return m;
  if (f == "spec.nodeName") return at(pod, {"spec", "nodeName"});
  if (f == "spec.restartPolicy") return at(pod, {"spec", "restartPolicy"});
  if (f == "spec.schedulerName") return at(pod, {"spec", "schedulerName"});
  if (f == "spec.serviceAccountName") return at(pod, {"spec", "serviceAccountName"});
  if (f == "spec.hostNetwork") return boolean_at(pod, {"spec", "hostNetwork"}) ? "true" : "false";
  if (f == "status.phase") return at(pod, {"status", "phase"});
  if (f == "status.podIP") return at(pod, {"status", "podIP"});
  if (f == "status.nominatedNodeName") return at(pod, {"status", "nominatedNodeName"});
  return std::nullopt;
}

// pkg/registry/core/node/strategy.go NodeToSelectableFields.
std::optional<std::string> node_field(const json& node, std::string_view f) {
  if (auto m = object_meta_field(node, f)) return m;
  if (f == "spec.unschedulable") return boolean_at(node, {"spec", "unschedulable"}) ? "true" : "false";
  return std::nullopt;
}

// pkg/registry/core/namespace/strategy.go NamespaceToSelectableFields.
std::optional<std::string> namespace_field(const json& ns, std::string_view f) {
  if (auto m = object_meta_field(ns, f)) return m;
  if (f == "status.phase") return at(ns, {"status", "phase"});
  return std::nullopt;
}

// pkg/registry/batch/job/strategy.go JobToSelectableFields.
std::optional<std::string> job_field(const json& job, std::string_view f) {
  if (auto m = object_meta_field(job, f)) return m;
  if (f == "status.successful") {
    const std::string s = at(job, {"status", "succeeded"});
    return s.empty() ? "0" : s;
  }
  return std::nullopt;
}

// pkg/registry/core/event/strategy.go ToSelectableFields.
std::optional<std::string> event_field(const json& e, std::string_view f) {
  if (auto m = object_meta_field(e, f)) return m;
  const bool core = e.is_object() && e.contains("involvedObject");
  const char* obj = core ? "involvedObject" : "regarding";
  static const char* const kInvolved[] = {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"};
  for (const char* k : kInvolved)
    if (f == std::string("involvedObject.") + k) return at(e, {obj, k});
  if (f == "reason") return at(e, {"reason"});
  if (f == "type") return at(e, {"type"});
  if (f == "reportingComponent") return core ? at(e, {"reportingComponent"}) : at(e, {"reportingController"});
  if (f == "source") return core ? at(e, {"source", "component"}) : at(e, {"deprecatedSource", "component"});
  return std::nullopt;
}

FieldGetter field_getter(std::string_view resource, const json& object) {
  const json* o = &object;
  if (resource == "pods") return [o](std::string_view f) { return pod_field(*o, f); };
  if (resource == "nodes") return [o](std::string_view f) { return node_field(*o, f); };
  if (resource == "namespaces") return [o](std::string_view f) { return namespace_field(*o, f); };
  if (resource == "jobs") return [o](std::string_view f) { return job_field(*o, f); };
  if (resource == "events") return [o](std::string_view f) { return event_field(*o, f); };
  return [o](std::string_view f) { return object_meta_field(*o, f); };
}

bool Selection::parse(std::string_view resource, const std::string* labels, const std::string* fields,
                      std::string* error) {
  resource_ = resource;
  try {
    if (labels) labels_ = parse_label_selector(*labels);
    if (fields) fields_ = parse_field_selector(*fields);
  } catch (const SelectorError& e) {
    *error = e.what();
    return false;
  }
  const nlohmann::json none = nlohmann::json::object();
  if (auto bad = fields_.unsupported_field(field_getter(resource_, none))) {
    *error = "field label not supported: " + *bad;
    return false;
  }
  return true;
}

}  // namespace kubesim::api
