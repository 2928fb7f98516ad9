#include "platform/simgrid_platform.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/read_file.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"

namespace kubesim {
namespace {

// Batkube's nodes always had status.allocatable.pods = "110" (pkg/broker/resources.go).
constexpr std::int64_t kBatkubeAllowedPods = 110;

// Maps pugixml byte offsets to 1-based line numbers.
class LineMap {
 public:
  explicit LineMap(const std::string& text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }
  int line_of(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;  // offset_debug() is -1 when unknown
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(it - line_starts_.begin());
  }

 private:
  std::vector<std::size_t> line_starts_;
};

// The props that matter for a node; "set" fields come from <prop> children.
struct HostProps {
  std::optional<std::string> core;
  std::optional<std::string> memory;
  std::optional<std::string> role;
  int core_line = 0;
  int memory_line = 0;
  int role_line = 0;
};

class PlatformReader {
 public:
  PlatformReader(const std::string& path, const std::string& text) : path_(path), lines_(text) {}

  ClusterSpec read(const pugi::xml_document& doc) {
    pugi::xml_node root = doc.document_element();
    if (std::string_view(root.name()) != "platform")
      throw InputError(path_, line(root), "expected a <platform> root element, got <" + std::string(root.name()) + ">");
    walk_zone(root);
    if (spec_.nodes.empty())
      throw InputError(path_, 0,
                       "expected at least one compute host (hosts with role master or storage are not nodes)");
    spec_.source = path_;
    return std::move(spec_);
  }

 private:
  int line(const pugi::xml_node& n) const { return lines_.line_of(n.offset_debug()); }

  // <platform>, <zone> and <AS> (SimGrid's pre-3.16 name for zones) may nest to any depth:
  // walked in document order with an explicit stack, so a deep nesting costs memory
  // proportional to the depth, never the thread's stack.
  void walk_zone(const pugi::xml_node& root) {
    std::vector<pugi::xml_node> next_sibling;  // where to resume in each enclosing zone
    pugi::xml_node child = root.first_child();
    for (;;) {
      if (!child) {
        if (next_sibling.empty()) return;
        child = next_sibling.back();
        next_sibling.pop_back();
        continue;
      }
      pugi::xml_node after = child.next_sibling();
      if (child.type() == pugi::node_element) {
        std::string_view name = child.name();
        if (name == "zone" || name == "AS") {
          next_sibling.push_back(after);
          child = child.first_child();
          continue;
        }
        if (name == "host") {
          read_host(child);
        } else if (name == "cluster" || name == "cabinet") {
          read_cluster(child);
        }
        // Links, routes, config, zoneRoute, ... describe the network: nothing for Kubernetes.
      }
      child = after;
    }
  }

  HostProps read_props(const pugi::xml_node& element, HostProps props) const {
    for (pugi::xml_node prop : element.children("prop")) {
      std::string_view id = prop.attribute("id").value();
      pugi::xml_attribute value = prop.attribute("value");
      if (id != "core" && id != "memory" && id != "role") continue;
      if (!value)
        throw InputError(path_, line(prop), "expected a value attribute on <prop id=\"" + std::string(id) + "\">");
      if (id == "core") {
        props.core = value.value();
        props.core_line = line(prop);
      } else if (id == "memory") {
        props.memory = value.value();
        props.memory_line = line(prop);
      } else {
        props.role = value.value();
        props.role_line = line(prop);
      }
    }
    return props;
  }

  // SimGrid's core attribute: a positive integer, 1 when absent (simgrid.dtd).
  std::int64_t core_attribute(const pugi::xml_node& element) const {
    pugi::xml_attribute attr = element.attribute("core");
    if (!attr) return 1;
    auto v = parse_int(attr.value());
    if (!v || *v < 1)
      throw InputError(path_, line(element),
                       "expected core to be a positive integer, got \"" + std::string(attr.value()) + "\"");
    return *v;
  }

  void add_host(const std::string& name, std::int64_t core_attr, const HostProps& props, int host_line) {
    if (props.role) {
      if (*props.role == "master" || *props.role == "storage") return;
      if (*props.role != "compute_node")
        throw InputError(path_, props.role_line,
                         "expected role to be master, storage or compute_node, got \"" + *props.role + "\"");
    }
    if (name.empty()) throw InputError(path_, host_line, "expected a non-empty host id");
    if (auto [it, inserted] = host_lines_.emplace(name, host_line); !inserted)
      throw InputError(path_, host_line,
                       "duplicate host id \"" + name + "\" (first defined at line " + std::to_string(it->second) + ")");
    Node node;
    node.name = name;
    set_label(node.labels, "kubernetes.io/hostname", name);
    if (props.core) {
      Quantity q = parse_resource_quantity(*props.core, path_, props.core_line, "core");
      if (q.is_zero())
        throw InputError(path_, props.core_line, "expected core to be positive, got \"" + *props.core + "\"");
      node.allocatable[kCpu] = q.milli_value();
    } else {
      if (core_attr > std::numeric_limits<std::int64_t>::max() / 1000)
        throw InputError(path_, host_line, "core count " + std::to_string(core_attr) + " is too large");
      node.allocatable[kCpu] = core_attr * 1000;
    }
    if (props.memory) {
      node.allocatable[kMemory] = parse_resource_quantity(*props.memory, path_, props.memory_line, "memory").value();
    }
    // Without a memory prop the node has 0 bytes (see the header).
    node.allowed_pods = kBatkubeAllowedPods;
    node.capacity = node.allocatable;
    spec_.nodes.push_back(std::move(node));
  }

  void read_host(const pugi::xml_node& host) {
    pugi::xml_attribute id = host.attribute("id");
    if (!id) throw InputError(path_, line(host), "expected an id attribute on <host>");
    add_host(id.value(), core_attribute(host), read_props(host, HostProps{}), line(host));
  }

  // SimGrid's radical syntax (src/kernel/routing/ClusterZone.cpp / sg_platf.cpp): a comma-separated
  // list of "N" or "A-B" (inclusive) items.
  std::vector<std::int64_t> parse_radical(const std::string& radical, int at) const {
    std::vector<std::int64_t> out;
    std::string_view rest = radical;
    auto fail = [&]() -> InputError {
      return InputError(path_, at,
                        "expected radical to be a list like \"0-511\" or \"0-3,5,7-9\", got \"" + radical + "\"");
    };
    if (trim(rest).empty()) throw fail();
    while (true) {
      std::size_t comma = rest.find(',');
      std::string_view item = trim(rest.substr(0, comma));
      std::size_t dash = item.find('-', 1);  // a leading '-' would be a sign, which is invalid anyway
      auto lo = parse_int(item.substr(0, dash));
      auto hi = dash == std::string_view::npos ? lo : parse_int(item.substr(dash + 1));
      if (!lo || !hi || *lo < 0 || *hi < *lo) throw fail();
      if (*hi - *lo >= 10'000'000) throw InputError(path_, at, "radical \"" + radical + "\" expands to too many hosts");
      for (std::int64_t i = *lo; i <= *hi; ++i) out.push_back(i);
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    return out;
  }

  void read_cluster(const pugi::xml_node& cluster) {
    const int at = line(cluster);
    pugi::xml_attribute radical = cluster.attribute("radical");
    if (!radical) throw InputError(path_, at, "expected a radical attribute on <" + std::string(cluster.name()) + ">");
    const std::string prefix = cluster.attribute("prefix").value();
    const std::string suffix = cluster.attribute("suffix").value();
    const std::int64_t core = core_attribute(cluster);
    const HostProps props = read_props(cluster, HostProps{});
    for (std::int64_t i : parse_radical(radical.value(), at))
      add_host(prefix + std::to_string(i) + suffix, core, props, at);
  }

  std::string path_;
  LineMap lines_;
  ClusterSpec spec_;
  std::map<std::string, int> host_lines_;  // host id -> line, to report duplicates
};

}  // namespace

ClusterSpec read_simgrid_platform(const std::string& path, [[maybe_unused]] ResourceNames& names) {
  // Only cpu and memory (pre-registered slots) come from a platform, so `names` is untouched.
  const std::string text = read_input_file(path);
  pugi::xml_document doc;
  pugi::xml_parse_result result = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  LineMap lines(text);
  if (!result)
    throw InputError(path, lines.line_of(result.offset), std::string("malformed XML: ") + result.description());
  return PlatformReader(path, text).read(doc);
}

}  // namespace kubesim
