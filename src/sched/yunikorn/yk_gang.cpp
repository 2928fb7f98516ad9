#include "sched/yunikorn/yk_gang.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <string_view>

#include "core/parse_number.hpp"
#include "core/quantity.hpp"
#include "core/split.hpp"

namespace kubesim::yunikorn {

namespace {

using Json = nlohmann::ordered_json;  // keys in document order, as Go's decoder sees them

// The error Go's encoding/json returns for a value of the wrong type (UnmarshalTypeError).
struct TypeError {
  std::string message;
};

// UnmarshalTypeError.Value: the JSON kind, and a number's literal.
std::string json_kind(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object: return "object";
    case Json::value_t::array: return "array";
    case Json::value_t::string: return "string";
    case Json::value_t::boolean: return "bool";
    case Json::value_t::null: return "null";
    default: return "number " + v.dump();
  }
}

[[noreturn]] void type_error(const Json& v, const std::string& field, const char* go_type) {
  throw TypeError{"json: cannot unmarshal " + json_kind(v) + " into Go struct field " + field +
                  " of type " + go_type};
}

bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// encoding/json's field matching: the exact key, else a case-insensitive one. Returns the
// index of the field in `fields`, or -1 for a key no field takes (ignored).
int field_of(std::string_view key, std::initializer_list<std::string_view> fields) {
  int i = 0, folded = -1;
  for (std::string_view f : fields) {
    if (f == key) return i;
    if (folded < 0 && equal_fold(f, key)) folded = i;
    ++i;
  }
  return folded;
}

// A JSON string into a Go string (null leaves it as it was).
void read_string(const Json& v, std::string& out, const std::string& field) {
  if (v.is_null()) return;
  if (!v.is_string()) type_error(v, field, "string");
  out = v.get<std::string>();
}

// map[string]string (null: nil map).
void read_string_map(const Json& v, Labels& out, const std::string& field) {
  if (v.is_null()) return;
  if (!v.is_object()) type_error(v, field, "map[string]string");
  for (const auto& [k, x] : v.items()) {
    std::string s;
    read_string(x, s, field);
    set_label(out, k, std::move(s));
  }
}

// An integer of `bits` bits from a JSON number literal (Go parses the literal: 4.0 and 4e0
// are not integers).
std::int64_t read_int(const Json& v, const std::string& field, const char* go_type, int bits) {
  const std::int64_t lo = bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
  const std::int64_t hi = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    const std::int64_t x = v.get<std::int64_t>();
    if (x >= lo && x <= hi) return x;
  } else if (v.is_number_unsigned()) {
    const std::uint64_t x = v.get<std::uint64_t>();
    if (x <= static_cast<std::uint64_t>(hi)) return static_cast<std::int64_t>(x);
  }
  type_error(v, field, go_type);
}

std::vector<std::string> read_string_list(const Json& v, const std::string& field) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) type_error(v, field, "[]string");
  for (const Json& x : v) {
    std::string s;
    read_string(x, s, field);
    out.push_back(std::move(s));
  }
  return out;
}

// core/v1 NodeSelectorRequirement; `invalid` collects what ValidateNodeSelectorRequirement
// (pkg/apis/core/validation/validation.go) would refuse.
NodeSelectorRequirement read_requirement(const Json& v, const std::string& field, std::string& invalid) {
  NodeSelectorRequirement r;
  if (v.is_null()) return r;
  if (!v.is_object()) type_error(v, field, "v1.NodeSelectorRequirement");
  std::string op;
  for (const auto& [k, x] : v.items()) {
    switch (field_of(k, {"key", "operator", "values"})) {
      case 0: read_string(x, r.key, field + ".key"); break;
      case 1: read_string(x, op, field + ".operator"); break;
      case 2: r.values = read_string_list(x, field + ".values"); break;
      default: break;
    }
  }
  using Op = NodeSelectorRequirement::Operator;
  std::size_t want = 0;  // 0: none, 1: at least one, 2: exactly one
  if (op == "In") r.op = Op::kIn, want = 1;
  else if (op == "NotIn") r.op = Op::kNotIn, want = 1;
  else if (op == "Exists") r.op = Op::kExists;
  else if (op == "DoesNotExist") r.op = Op::kDoesNotExist;
  else if (op == "Gt") r.op = Op::kGt, want = 2;
  else if (op == "Lt") r.op = Op::kLt, want = 2;
  else if (invalid.empty()) invalid = field + ".operator: Invalid value: \"" + op + "\": not a valid selector operator";
  if (invalid.empty() && ((want == 0 && !r.values.empty()) || (want == 1 && r.values.empty()) ||
                          (want == 2 && r.values.size() != 1)))
    invalid = field + ".values: Invalid value: the number of values does not fit operator \"" + op + "\"";
  return r;
}

NodeSelectorTerm read_term(const Json& v, const std::string& field, std::string& invalid) {
  NodeSelectorTerm t;
  if (v.is_null()) return t;
  if (!v.is_object()) type_error(v, field, "v1.NodeSelectorTerm");
  for (const auto& [k, x] : v.items()) {
    const int f = field_of(k, {"matchExpressions", "matchFields"});
    if (f < 0) continue;
    if (x.is_null()) continue;
    if (!x.is_array()) type_error(x, field + "." + k, "[]v1.NodeSelectorRequirement");
    auto& list = f == 0 ? t.match_expressions : t.match_fields;
    list.clear();
    for (const Json& r : x) list.push_back(read_requirement(r, field + "." + k, invalid));
  }
  return t;
}

// affinity.nodeAffinity; podAffinity and podAntiAffinity are not modelled (kubesim's
// YuniKorn predicates check the node name, node selector and affinity, and taints).
void read_affinity(const Json& v, TaskGroupSpec& g, const std::string& field) {
  if (v.is_null()) return;
  if (!v.is_object()) type_error(v, field, "v1.Affinity");
  for (const auto& [k, na] : v.items()) {
    if (field_of(k, {"nodeAffinity"}) != 0 || na.is_null()) continue;
    if (!na.is_object()) type_error(na, field + ".nodeAffinity", "v1.NodeAffinity");
    g.has_node_affinity = true;
    for (const auto& [k2, x] : na.items()) {
      const std::string w = field + ".nodeAffinity." + k2;
      const int f = field_of(k2, {"requiredDuringSchedulingIgnoredDuringExecution",
                                  "preferredDuringSchedulingIgnoredDuringExecution"});
      if (f < 0 || x.is_null()) continue;
      if (f == 0) {
        if (!x.is_object()) type_error(x, w, "v1.NodeSelector");
        for (const auto& [k3, terms] : x.items()) {
          if (field_of(k3, {"nodeSelectorTerms"}) != 0 || terms.is_null()) continue;
          if (!terms.is_array()) type_error(terms, w + ".nodeSelectorTerms", "[]v1.NodeSelectorTerm");
          g.node_affinity.required_terms.clear();
          for (const Json& t : terms) g.node_affinity.required_terms.push_back(read_term(t, w + ".nodeSelectorTerms", g.invalid));
        }
      } else {
        if (!x.is_array()) type_error(x, w, "[]v1.PreferredSchedulingTerm");
        g.node_affinity.preferred.clear();
        for (const Json& p : x) {
          PreferredSchedulingTerm pt;
          if (!p.is_null() && !p.is_object()) type_error(p, w, "v1.PreferredSchedulingTerm");
          if (p.is_object())
            for (const auto& [k3, y] : p.items()) {
              const int f3 = field_of(k3, {"weight", "preference"});
              if (f3 == 0 && !y.is_null()) pt.weight = static_cast<std::int32_t>(read_int(y, w + ".weight", "int32", 32));
              if (f3 == 1) pt.preference = read_term(y, w + ".preference", g.invalid);
            }
          g.node_affinity.preferred.push_back(std::move(pt));
        }
      }
    }
  }
}

// core/v1 Toleration; `invalid` as ValidateTolerations would refuse it.
void read_tolerations(const Json& v, TaskGroupSpec& g, const std::string& field) {
  if (v.is_null()) return;
  if (!v.is_array()) type_error(v, field, "[]v1.Toleration");
  g.tolerations.clear();
  for (const Json& x : v) {
    Toleration t;
    if (!x.is_null() && !x.is_object()) type_error(x, field, "v1.Toleration");
    std::string op, effect;
    bool has_seconds = false;
    if (x.is_object())
      for (const auto& [k, y] : x.items()) {
        switch (field_of(k, {"key", "operator", "value", "effect", "tolerationSeconds"})) {
          case 0: read_string(y, t.key, field + ".key"); break;
          case 1: read_string(y, op, field + ".operator"); break;
          case 2: read_string(y, t.value, field + ".value"); break;
          case 3: read_string(y, effect, field + ".effect"); break;
          case 4:
            if (!y.is_null()) {
              read_int(y, field + ".tolerationSeconds", "int64", 64);
              has_seconds = true;
            }
            break;
          default: break;
        }
      }
    if (op == "Exists") {
      t.op = Toleration::Operator::kExists;
    } else if (op != "Equal" && !op.empty() && g.invalid.empty()) {
      g.invalid = field + ".operator: Unsupported value: \"" + op + "\"";
    }
    if (!effect.empty()) {
      if (auto e = parse_taint_effect(effect)) t.effect = *e;
      else if (g.invalid.empty()) g.invalid = field + ".effect: Unsupported value: \"" + effect + "\"";
    }
    if (g.invalid.empty()) {
      if (t.key.empty() && t.op != Toleration::Operator::kExists)
        g.invalid = field + ".operator: Invalid value: \"" + op + "\": operator must be Exists when `key` is empty";
      else if (t.op == Toleration::Operator::kExists && !t.value.empty())
        g.invalid = field + ".operator: Invalid value: \"Exists\": value must be empty when `operator` is 'Exists'";
      else if (has_seconds && effect != "NoExecute")
        g.invalid = field + ".effect: Invalid value: \"" + effect +
                    "\": effect must be 'NoExecute' when `tolerationSeconds` is set";
    }
    g.tolerations.push_back(std::move(t));
  }
}

// map[string]resource.Quantity: a quantity is a JSON string or number (Quantity.UnmarshalJSON
// parses the literal); null is the zero quantity. nil map: `present` stays false.
void read_min_resource(const Json& v, TaskGroupSpec& g, bool& present, ResourceNames& names) {
  if (v.is_null()) return;
  if (!v.is_object()) type_error(v, "TaskGroup.minResource", "map[string]resource.Quantity");
  present = true;
  g.min_resource = Resources{};
  for (const auto& [name, q] : v.items()) {
    std::string text;
    if (q.is_string()) text = q.get<std::string>();
    else if (q.is_number()) text = q.dump();
    else if (!q.is_null()) type_error(q, "TaskGroup.minResource", "resource.Quantity");
    std::int64_t amount = 0;
    if (!q.is_null()) {
      std::string why;
      // Quantity.UnmarshalJSON trims spaces before ParseQuantity.
      const std::string trimmed(trim(text));
      const auto parsed = Quantity::parse(trimmed, &why);
      if (!parsed) throw TypeError{why};
      if (parsed->negative() && !parsed->is_zero() && g.invalid.empty())
        g.invalid = "spec.containers[0].resources.requests[" + name + "]: Invalid value: \"" + trimmed +
                    "\": must be greater than or equal to 0";
      amount = name == "cpu" ? parsed->milli_value() : parsed->value();
    }
    // k8shim GetPlaceholderResourceRequests skips an empty name.
    if (name.empty()) continue;
    const int slot = names.slot(name);
    if (slot < 0) {
      if (g.invalid.empty()) g.invalid = "resource \"" + name + "\": kubesim models at most 8 resource types";
      continue;
    }
    g.min_resource[static_cast<std::size_t>(slot)] = amount;
  }
}

TaskGroupSpec read_group(const Json& v, bool& has_min_resource, ResourceNames& names) {
  TaskGroupSpec g;
  has_min_resource = false;
  if (v.is_null()) return g;
  if (!v.is_object()) throw TypeError{"json: cannot unmarshal " + json_kind(v) +
                                      " into Go value of type TaskGroup"};
  for (const auto& [k, x] : v.items()) {
    switch (field_of(k, {"name", "minMember", "labels", "annotations", "minResource", "nodeSelector", "tolerations",
                         "affinity", "topologySpreadConstraints"})) {
      case 0: read_string(x, g.name, "TaskGroup.name"); break;
      case 1:
        if (!x.is_null()) g.min_member = static_cast<std::int32_t>(read_int(x, "TaskGroup.minMember", "int32", 32));
        break;
      case 2: read_string_map(x, g.labels, "TaskGroup.labels"); break;
      case 3: read_string_map(x, g.annotations, "TaskGroup.annotations"); break;
      case 4: read_min_resource(x, g, has_min_resource, names); break;
      case 5: read_string_map(x, g.node_selector, "TaskGroup.nodeSelector"); break;
      case 6: read_tolerations(x, g, "TaskGroup.tolerations"); break;
      case 7: read_affinity(x, g, "TaskGroup.affinity"); break;
      default: break;  // topologySpreadConstraints (not modelled) and unknown keys
    }
  }
  return g;
}

// strconv.ParseInt(s, 10, 64): the value, with *ok false on a syntax error (value 0) or a
// range error (value saturated, as Go returns it).
std::int64_t parse_int64(std::string_view s, bool* ok) {
  *ok = false;
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return 0;
  unsigned __int128 v = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > (static_cast<unsigned __int128>(1) << 63)) overflow = true, v = static_cast<unsigned __int128>(1) << 63;
  }
  if (neg) {
    if (overflow) return std::numeric_limits<std::int64_t>::min();
    *ok = true;
    return v == (static_cast<unsigned __int128>(1) << 63) ? std::numeric_limits<std::int64_t>::min()
                                                         : -static_cast<std::int64_t>(v);
  }
  if (overflow || v > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()))
    return std::numeric_limits<std::int64_t>::max();
  *ok = true;
  return static_cast<std::int64_t>(v);
}

// The first `n` characters (UTF-8 code points, as Go's %.Ns counts runes) of `s`.
std::string prefix_runes(const std::string& s, std::size_t n) {
  std::size_t i = 0, runes = 0;
  while (i < s.size() && runes < n) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    ++runes;
  }
  return s.substr(0, i);
}

}  // namespace

TaskGroupsResult parse_task_groups(const std::string& text, ResourceNames& names) {
  TaskGroupsResult out;
  if (text.empty()) return out;  // GetPodAnnotationValue "": no task groups
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    out.error = std::string("invalid JSON: ") + e.what();
    return out;
  }
  std::vector<bool> has_min_resource;
  try {
    if (doc.is_null()) return out;  // null into a slice: no groups, no error
    if (!doc.is_array())
      throw TypeError{"json: cannot unmarshal " + json_kind(doc) + " into Go value of type []TaskGroup"};
    for (const Json& v : doc) {
      bool has = false;
      out.groups.push_back(read_group(v, has, names));
      has_min_resource.push_back(has);
    }
  } catch (const TypeError& e) {
    out.groups.clear();
    out.error = e.message;
    return out;
  }
  // json.Unmarshal does not check these; GetTaskGroupsFromAnnotation does, in this order.
  for (std::size_t i = 0; i < out.groups.size(); ++i) {
    const TaskGroupSpec& g = out.groups[i];
    if (g.name.empty()) out.error = "can't get taskGroup Name from pod annotation, " + text;
    else if (!has_min_resource[i]) out.error = "can't get taskGroup MinResource from pod annotation, " + text;
    else if (g.min_member == 0) out.error = "can't get taskGroup MinMember from pod annotation, " + text;
    else if (g.min_member < 0) out.error = "minMember cannot be negative, " + text;
    if (!out.error.empty()) {
      out.groups.clear();
      return out;
    }
  }
  return out;
}

std::int64_t SchedulingPolicy::timeout_millis() const {
  // Go: placeholderTimeoutInSec * 1000 on int64 wraps around.
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(timeout_seconds) * 1000u);
}

SchedulingPolicy parse_scheduling_policy(const std::string& text) {
  SchedulingPolicy p;
  if (text.empty()) return p;
  for (std::string_view entry : split(text, ' ')) {
    const std::vector<std::string> kv = split(entry, '=');
    if (kv.size() != 2) continue;  // "Skipping malformed scheduling policy parameter"
    if (kv[0] == "placeholderTimeoutInSeconds") {
      bool ok = false;
      p.timeout_seconds = parse_int64(kv[1], &ok);  // Go assigns even on error
    } else if (kv[0] == "gangSchedulingStyle") {
      p.hard = kv[1] == "Hard";  // SchedulingPolicyStyleParamValues; unknown: Soft
    }
  }
  return p;
}

Duration placeholder_timeout(std::int64_t millis) {
  // ConvertSITimeout: <= 0 means none; a value whose nanoseconds overflow int64 also none.
  if (millis <= 0) return kDefaultPlaceholderTimeout;
  const __int128 ns = static_cast<__int128>(millis) * 1'000'000;
  if (ns > std::numeric_limits<std::int64_t>::max()) return kDefaultPlaceholderTimeout;
  const std::int64_t us = millis > Duration::max().micros() / 1000 ? Duration::max().micros() : millis * 1000;
  return Duration::micros(us);
}

std::string placeholder_name(const std::string& app_id, const std::string& group, RandomStream& rng) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string nonce(10, 'a');
  for (char& c : nonce) c = kLetters[rng.uniform_below(36)];
  return "tg-" + prefix_runes(app_id, 28) + "-" + prefix_runes(group, 20) + "-" + nonce;
}

bool is_placeholder(const PodTemplate& spec) {
  // strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False.
  auto parse = [](const std::string& v, bool* out) {
    if (v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "true" || v == "True") return *out = true, true;
    if (v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "false" || v == "False") return *out = false, true;
    return false;
  };
  bool b = false;
  if (const std::string* v = find_label(spec.annotations, kAnnotationPlaceholder); v && !v->empty() && parse(*v, &b))
    return b;
  if (const std::string* v = find_label(spec.labels, kLabelPlaceholder); v && !v->empty() && parse(*v, &b)) return b;
  return false;
}

}  // namespace kubesim::yunikorn
