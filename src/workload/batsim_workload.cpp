#include "workload/batsim_workload.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/read_file.hpp"
#include "core/quantity.hpp"

namespace kubesim {
namespace {

using nlohmann::json;

constexpr double kMaxSeconds = 1e12;  // ~31,700 years: larger values are corrupt input
const std::string kDefaultScheduler = "default-scheduler";

// Records where each element of the top-level "jobs" array and each member of the top-level
// "profiles" object starts, so that semantic errors found on the parsed DOM (which keeps no
// positions) can name a line. Runs on text nlohmann already accepted, so it only needs to be
// string-aware and robust, not validating. Like nlohmann, the last duplicate key wins.
class JsonLineScanner {
 public:
  explicit JsonLineScanner(std::string_view text) : t_(text) {}

  void scan(std::vector<int>& job_lines, std::map<std::string, int>& profile_lines) {
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") p_ = 3;  // nlohmann skips a UTF-8 BOM too
    ws();
    if (!eat('{')) return;
    while (more()) {
      ws();
      if (eat('}') || peek() != '"') return;
      const std::string key = decode(string_token());
      ws();
      if (!eat(':')) return;
      ws();
      if (key == "jobs" && peek() == '[') {
        job_lines.clear();
        ++p_;
        while (more()) {
          ws();
          if (eat(']')) break;
          job_lines.push_back(line_);
          if (!skip_value()) return;
          ws();
          eat(',');
        }
      } else if (key == "profiles" && peek() == '{') {
        profile_lines.clear();
        ++p_;
        while (more()) {
          ws();
          if (eat('}')) break;
          if (peek() != '"') return;
          const int at = line_;
          profile_lines[decode(string_token())] = at;
          ws();
          if (!eat(':')) return;
          if (!skip_value()) return;
          ws();
          eat(',');
        }
      } else if (!skip_value()) {
        return;
      }
      ws();
      eat(',');
    }
  }

 private:
  bool more() const { return p_ < t_.size(); }
  char peek() const { return more() ? t_[p_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++p_;
    return true;
  }
  void ws() {
    while (more()) {
      const char c = t_[p_];
      if (c == '\n') ++line_;
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') break;
      ++p_;
    }
  }
  // At an opening quote; returns the token including its quotes.
  std::string_view string_token() {
    const std::size_t start = p_++;
    while (more() && t_[p_] != '"') p_ += t_[p_] == '\\' ? 2 : 1;
    p_ = std::min(p_ + 1, t_.size());
    return t_.substr(start, p_ - start);
  }
  static std::string decode(std::string_view token) {
    try {
      return json::parse(token).get<std::string>();
    } catch (const json::exception&) {
      return std::string(token);
    }
  }
  // Skips one value; false if the text ended first.
  bool skip_value() {
    ws();
    if (!more()) return false;
    const char c = t_[p_];
    if (c == '"') {
      string_token();
      return true;
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      while (more()) {
        const char d = t_[p_];
        if (d == '"') {
          string_token();
          continue;
        }
        if (d == '\n') ++line_;
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') --depth;
        ++p_;
        if (depth == 0) return true;
      }
      return false;
    }
    const std::size_t start = p_;
    while (more() && std::string_view(",}] \t\r\n").find(t_[p_]) == std::string_view::npos) ++p_;
    return p_ > start;
  }

  std::string_view t_;
  std::size_t p_ = 0;
  int line_ = 1;
};

struct Profile {
  int line = 0;
  std::string type;
  Duration delay;
  std::int32_t ret = 0;
  std::optional<std::int64_t> cpu_milli;
  std::optional<std::int64_t> memory_bytes;
  std::string scheduler = kDefaultScheduler;
};

// Go's fmt.Sprintf("%f", x), which Batkube applied to numeric cpu values before parsing them.
std::string format_percent_f(double v) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "%f", v);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "inf";
}

class BatsimReader {
 public:
  BatsimReader(const std::string& path, std::map<std::string, int> profile_lines)
      : path_(path), profile_lines_(std::move(profile_lines)) {}

  Workload read(const json& root, const std::vector<int>& job_lines) {
    if (!root.is_object()) throw InputError(path_, 1, "expected a JSON object with \"jobs\" and \"profiles\"");
    auto profiles_it = root.find("profiles");
    if (profiles_it == root.end()) throw InputError(path_, 1, "expected a \"profiles\" object");
    if (!profiles_it->is_object()) throw InputError(path_, 1, "expected \"profiles\" to be an object");
    auto jobs_it = root.find("jobs");
    if (jobs_it == root.end()) throw InputError(path_, 1, "expected a \"jobs\" array");
    if (!jobs_it->is_array()) throw InputError(path_, 1, "expected \"jobs\" to be an array");

    // Every profile needs a type; delay profiles are checked up front (an unused profile with a
    // bad cpu is still a typo). Other types are only an error when a job uses them.
    for (const auto& [name, p] : profiles_it->items()) profiles_.emplace(name, read_profile(name, p));

    Workload w;
    w.source = path_;
    const json& jobs = *jobs_it;
    w.jobs.reserve(jobs.size());
    std::map<std::string, int> id_lines;
    std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::uint32_t> template_of;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const int at = i < job_lines.size() ? job_lines[i] : 0;
      const json& j = jobs[i];
      std::string who = "job at index " + std::to_string(i);
      if (!j.is_object()) throw InputError(path_, at, who + ": expected an object");

      WorkloadJob job;
      auto id = j.find("id");
      if (id == j.end()) throw InputError(path_, at, who + ": expected an \"id\"");
      if (id->is_string()) {
        job.id = id->get<std::string>();
      } else if (id->is_number_unsigned()) {
        job.id = std::to_string(id->get<std::uint64_t>());
      } else if (id->is_number_integer()) {
        job.id = std::to_string(id->get<std::int64_t>());
      } else {
        throw InputError(path_, at, who + ": expected \"id\" to be a string or an integer");
      }
      who = "job \"" + job.id + "\"";
      if (auto [it, inserted] = id_lines.emplace(job.id, at); !inserted)
        throw InputError(path_, at, who + ": duplicate id (first defined at line " + std::to_string(it->second) + ")");

      auto subtime = seconds(j, "subtime");
      if (!subtime || *subtime < 0)
        throw InputError(path_, at, who + ": expected \"subtime\" to be a non-negative number");
      job.submit = SimTime::from_seconds(*subtime);

      auto res = j.find("res");
      auto res_value = res == j.end() ? std::nullopt : integer(*res);
      if (!res_value || *res_value < 1 || *res_value > 1'000'000'000'000)
        throw InputError(path_, at,
                         who + ": expected \"res\" to be an integer >= 1 (a job needs resources to run as a pod)");
      job.requested_resources = *res_value;

      auto walltime = j.find("walltime");
      if (walltime != j.end()) {
        auto wt = seconds(j, "walltime");
        if (!wt || !(*wt == -1 || *wt > 0))
          throw InputError(path_, at, who + ": expected \"walltime\" to be -1 (none) or a positive number of seconds");
        if (*wt > 0) job.walltime = Duration::from_seconds(*wt);
      }

      auto profile_name = j.find("profile");
      if (profile_name == j.end() || !profile_name->is_string())
        throw InputError(path_, at, who + ": expected \"profile\" to be a string");
      job.profile = profile_name->get<std::string>();
      auto pit = profiles_.find(job.profile);
      if (pit == profiles_.end()) throw InputError(path_, at, who + ": profile \"" + job.profile + "\" does not exist");
      const Profile& prof = pit->second;
      if (prof.type != "delay")
        throw InputError(
            path_, prof.line,
            "profile \"" + job.profile + "\" has type " + prof.type + "; only delay profiles can run as pods");
      job.run_time = prof.delay;
      job.exit_code = prof.ret;

      // The effective request: the profile's cpu (one pod); else Batsim's semantics, res
      // machines, one pod of one core on each (see the header).
      if (!prof.cpu_milli) {
        if (job.requested_resources > 1'000'000)
          throw InputError(path_, at, who + ": expected \"res\" to be at most 1000000 machines");
        job.machines = static_cast<std::uint32_t>(job.requested_resources);
      }
      const std::int64_t cpu = prof.cpu_milli ? *prof.cpu_milli : 1000;
      const auto key = std::make_tuple(job.profile, cpu, prof.memory_bytes.value_or(-1));
      auto [tit, inserted] = template_of.emplace(key, static_cast<std::uint32_t>(w.templates.size()));
      if (inserted) w.templates.push_back(make_template(prof, cpu));
      job.pod_template = tit->second;
      w.jobs.push_back(std::move(job));
    }
    std::stable_sort(w.jobs.begin(), w.jobs.end(),
                     [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit < b.submit; });
    return w;
  }

 private:
  // A JSON integer that fits int64 (nlohmann stores non-negative integers as unsigned).
  static std::optional<std::int64_t> integer(const json& v) {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
      return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer()) return v.get<std::int64_t>();
    return std::nullopt;
  }

  // A finite number <= 1e12 (callers check the sign rules), or nullopt.
  static std::optional<double> seconds(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    if (!std::isfinite(v) || v > kMaxSeconds) return std::nullopt;
    return v;
  }

  Profile read_profile(const std::string& name, const json& p) {
    Profile prof;
    auto line_it = profile_lines_.find(name);
    prof.line = line_it == profile_lines_.end() ? 0 : line_it->second;
    const std::string who = "profile \"" + name + "\"";
    auto fail = [&](const std::string& what) -> InputError { return InputError(path_, prof.line, who + ": " + what); };
    if (!p.is_object()) throw fail("expected an object");
    auto type = p.find("type");
    if (type == p.end() || !type->is_string()) throw fail("expected \"type\" to be a string");
    prof.type = type->get<std::string>();
    if (prof.type != "delay") return prof;

    auto delay = seconds(p, "delay");
    if (!delay || *delay < 0) throw fail("expected \"delay\" to be a non-negative number of seconds");
    prof.delay = Duration::from_seconds(*delay);

    if (auto ret = p.find("ret"); ret != p.end()) {
      auto v = integer(*ret);
      if (!v || *v < INT32_MIN || *v > INT32_MAX) throw fail("expected \"ret\" to be a 32-bit integer exit code");
      prof.ret = static_cast<std::int32_t>(*v);
    }

    if (auto cpu = p.find("cpu"); cpu != p.end()) {
      std::string text;
      if (cpu->is_string()) {
        text = cpu->get<std::string>();
      } else if (cpu->is_number()) {
        text = format_percent_f(cpu->get<double>());
      } else {
        throw fail("expected \"cpu\" to be a quantity string or a number");
      }
      prof.cpu_milli = parse_resource_quantity(text, path_, prof.line, who + " cpu").milli_value();
    }

    if (auto mem = p.find("memory"); mem != p.end()) {
      if (mem->is_string()) {
        prof.memory_bytes = parse_resource_quantity(mem->get<std::string>(), path_, prof.line, who + " memory").value();
      } else if (mem->is_number_unsigned()) {
        if (mem->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) throw fail("\"memory\" is out of range");
        prof.memory_bytes = mem->get<std::int64_t>();
      } else if (mem->is_number()) {
        prof.memory_bytes =
            parse_resource_quantity(format_percent_f(mem->get<double>()), path_, prof.line, who + " memory").value();
      } else {
        throw fail("expected \"memory\" to be a quantity string or a number of bytes");
      }
    }

    if (auto sched = p.find("scheduler"); sched != p.end()) {
      if (!sched->is_string()) throw fail("expected \"scheduler\" to be a string");
      const std::string s = sched->get<std::string>();
      // Batkube's kube-scheduler ran with --scheduler-name=default; Kubernetes defaults "" too.
      prof.scheduler = (s == "default" || s.empty()) ? kDefaultScheduler : s;
    }
    return prof;
  }

  static PodTemplate make_template(const Profile& prof, std::int64_t cpu_milli) {
    return batch_job_template(cpu_milli, prof.memory_bytes, prof.scheduler);
  }

  std::string path_;
  std::map<std::string, int> profile_lines_;
  std::map<std::string, Profile> profiles_;
};

}  // namespace

Workload read_batsim_workload(const std::string& path, ResourceNames& /*names*/) {
  // Only cpu and memory are requested, and both have fixed slots.
  const std::string text = read_input_file(path);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based index of the last byte read; count the newlines before it.
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line L, column C: " prefix.
    if (auto col = what.find(", column "); col != std::string::npos) {
      if (auto colon = what.find(": ", col); colon != std::string::npos) what = what.substr(colon + 2);
    } else if (auto bracket = what.find("] "); bracket != std::string::npos) {
      what = what.substr(bracket + 2);
    }
    throw InputError(path, line, "malformed JSON: " + what);
  } catch (const json::exception& e) {
    // out_of_range.406 "number overflow parsing '1e400'": the only other error json::parse
    // throws. It carries no position, so the line is that of the first occurrence of the
    // number it quotes.
    std::string what = e.what();
    if (auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    int line = 0;
    if (auto open = what.find('\''), close = what.rfind('\''); open != std::string::npos && close > open) {
      const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
      if (at != std::string::npos)
        line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    }
    throw InputError(path, line, "malformed JSON: " + what + " (expected a number within the range of a double)");
  }
  std::vector<int> job_lines;
  std::map<std::string, int> profile_lines;
  JsonLineScanner(text).scan(job_lines, profile_lines);
  return BatsimReader(path, std::move(profile_lines)).read(root, job_lines);
}

}  // namespace kubesim
