#include "workload/batsim_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/limits.hpp"
#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/read_file.hpp"
#include "workload/json_cursor.hpp"

namespace kubesim {
namespace {

const std::string kDefaultScheduler = "default-scheduler";

// The members of a job object that kubesim reads, as they appear in the file (the last of
// duplicate keys wins, as with nlohmann).
struct JobRecord {
  JsonValue id, subtime, res, walltime, profile;
};

// The members of a profile object, and the line of its key.
struct ProfileRecord {
  int line = 0;
  JsonValue::Kind kind = JsonValue::Kind::kObject;
  JsonValue type, delay, ret, cpu, memory, scheduler;
};

// The document's top level, from a first pass over the text that checks all of it. The jobs
// array is only located and counted then: the second pass reads its elements straight into
// the workload, with the profiles known, and keeps no per-job record.
struct Document {
  bool root_is_object = false;
  JsonValue::Kind jobs = JsonValue::Kind::kAbsent;
  JsonValue::Kind profiles = JsonValue::Kind::kAbsent;
  std::size_t jobs_offset = 0;  // where the (last) "jobs" array starts
  int jobs_line = 1;
  std::size_t job_count = 0;
  std::map<std::string, ProfileRecord, std::less<>> profile_records;  // name order, as nlohmann's
};

// `field` if `key` (a member name, possibly escaped) is one of `names`, else nullptr.
template <typename Record, std::size_t N>
JsonValue* field_of(Record& r, const JsonValue& key, std::string& scratch,
                    const std::pair<std::string_view, JsonValue Record::*> (&names)[N]) {
  const std::string_view k = JsonCursor::text_of(key, scratch);
  for (const auto& [name, member] : names)
    if (k == name) return &(r.*member);
  return nullptr;
}

constexpr std::pair<std::string_view, JsonValue JobRecord::*> kJobFields[] = {
    {"id", &JobRecord::id},           {"subtime", &JobRecord::subtime}, {"res", &JobRecord::res},
    {"walltime", &JobRecord::walltime}, {"profile", &JobRecord::profile}};
constexpr std::pair<std::string_view, JsonValue ProfileRecord::*> kProfileFields[] = {
    {"type", &ProfileRecord::type}, {"delay", &ProfileRecord::delay},   {"ret", &ProfileRecord::ret},
    {"cpu", &ProfileRecord::cpu},   {"memory", &ProfileRecord::memory}, {"scheduler", &ProfileRecord::scheduler}};

// Reads the members of an object at the cursor into `r`'s fields, skipping (and checking)
// the others.
template <typename Record, std::size_t N>
void read_fields(JsonCursor& in, Record& r, const std::pair<std::string_view, JsonValue Record::*> (&names)[N]) {
  JsonValue key;
  std::string scratch;
  in.begin_object();
  while (in.next_member(key)) {
    JsonValue* f = field_of(r, key, scratch, names);
    const JsonValue v = in.value();
    if (f) *f = v;
  }
}

// Throws JsonCursor::Malformed on any syntax error.
Document scan_document(std::string_view text) {
  Document doc;
  JsonCursor in(text);
  if (in.peek() != '{') {
    in.value();
    in.end();
    return doc;
  }
  doc.root_is_object = true;
  in.begin_object();
  JsonValue key;
  std::string scratch;
  while (in.next_member(key)) {
    const std::string_view k = JsonCursor::text_of(key, scratch);
    if (k == "jobs" && in.peek() == '[') {
      doc.jobs = JsonValue::Kind::kArray;
      doc.jobs_offset = in.offset();
      doc.jobs_line = in.line();
      doc.job_count = 0;
      in.begin_array();
      for (; in.next_element(); ++doc.job_count) in.value();
    } else if (k == "profiles" && in.peek() == '{') {
      doc.profiles = JsonValue::Kind::kObject;
      doc.profile_records.clear();
      in.begin_object();
      JsonValue name;
      while (in.next_member(name)) {
        ProfileRecord r;
        r.line = in.key_line();
        if (in.peek() == '{') {
          read_fields(in, r, kProfileFields);
        } else {
          r.kind = in.value().kind;
        }
        doc.profile_records.insert_or_assign(JsonCursor::decode(name), r);
      }
    } else {
      const JsonValue::Kind kind = in.value().kind;
      if (k == "jobs") doc.jobs = kind;
      if (k == "profiles") doc.profiles = kind;
    }
  }
  in.end();
  return doc;
}

// The diagnostic for text that JsonCursor refused: nlohmann's own message, with the line of
// the byte where it stopped, as the reader always reported it. Only runs on malformed input.
[[noreturn]] void throw_syntax_error(const std::string& path, const std::string& text) {
  using nlohmann::json;
  try {
    [[maybe_unused]] const json parsed = json::parse(text);
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
  // JsonCursor accepts what nlohmann accepts (json_cursor_test, batsim_json_fuzz); should the two
  // ever disagree, the input is still refused.
  throw InputError(path, 0, "malformed JSON");
}

struct Profile {
  int line = 0;
  std::string type;
  Duration delay;
  std::int32_t ret = 0;
  std::optional<std::int64_t> cpu_milli;
  std::optional<std::int64_t> memory_bytes;
  std::string scheduler = kDefaultScheduler;
  // Index into Workload::templates of this profile's pod template, once a job used it: jobs
  // with the same profile have the same effective request, so they share one.
  std::optional<std::uint32_t> pod_template;
};

// Go's fmt.Sprintf("%f", x), which Batkube applied to numeric cpu values before parsing them.
std::string format_percent_f(double v) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "%f", v);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "inf";
}

// A JSON integer that fits int64 (nlohmann stores non-negative integers as unsigned).
std::optional<std::int64_t> integer(const JsonValue& v) {
  if (v.is_number_unsigned()) {
    if (v.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(v.u);
  }
  if (v.is_number_integer()) return v.i;
  return std::nullopt;
}

// A finite number <= kMaxSimulatedSeconds (callers check the sign rules), or nullopt.
std::optional<double> seconds(const JsonValue& v) {
  if (!v.is_number()) return std::nullopt;
  const double s = v.as_double();
  if (!std::isfinite(s) || s > kMaxSimulatedSeconds) return std::nullopt;
  return s;
}

class BatsimReader {
 public:
  explicit BatsimReader(const std::string& path) : path_(path) {}

  Workload read(std::string_view text, const Document& doc) {
    if (!doc.root_is_object) throw InputError(path_, 1, "expected a JSON object with \"jobs\" and \"profiles\"");
    if (doc.profiles == JsonValue::Kind::kAbsent) throw InputError(path_, 1, "expected a \"profiles\" object");
    if (doc.profiles != JsonValue::Kind::kObject) throw InputError(path_, 1, "expected \"profiles\" to be an object");
    if (doc.jobs == JsonValue::Kind::kAbsent) throw InputError(path_, 1, "expected a \"jobs\" array");
    if (doc.jobs != JsonValue::Kind::kArray) throw InputError(path_, 1, "expected \"jobs\" to be an array");

    // Every profile needs a type; delay profiles are checked up front (an unused profile with a
    // bad cpu is still a typo). Other types are only an error when a job uses them.
    profiles_.reserve(doc.profile_records.size());
    for (const auto& [name, p] : doc.profile_records) profiles_.emplace(name, read_profile(name, p));

    Workload w;
    w.source = path_;
    const std::size_t n = doc.job_count;
    w.jobs.reserve(n);
    // Views of the ids of w.jobs, which does not reallocate while they are in use.
    std::unordered_map<std::string_view, int> id_lines;
    id_lines.reserve(n);
    std::string scratch;
    JsonCursor in(text, doc.jobs_offset, doc.jobs_line);  // the first pass checked this part
    in.begin_array();
    for (std::size_t i = 0; in.next_element(); ++i) {
      const bool is_object = in.peek() == '{';
      const int at = in.line();  // where the element starts
      JobRecord j;
      if (is_object) {
        read_fields(in, j, kJobFields);
      } else {
        in.value();
      }
      // Error messages name the job by its id once it has one; built only when needed.
      const WorkloadJob* named = nullptr;
      const auto fail = [&](const std::string& what) {
        const std::string who = named ? "job \"" + named->id + "\"" : "job at index " + std::to_string(i);
        return InputError(path_, at, who + ": " + what);
      };
      if (!is_object) throw fail("expected an object");
      if (!j.id.present()) throw fail("expected an \"id\"");

      WorkloadJob& job = w.jobs.emplace_back();
      if (j.id.is_string()) {
        job.id = JsonCursor::text_of(j.id, scratch);
      } else if (j.id.is_number_unsigned()) {
        job.id = std::to_string(j.id.u);
      } else if (j.id.is_number_integer()) {
        job.id = std::to_string(j.id.i);
      } else {
        throw fail("expected \"id\" to be a string or an integer");
      }
      named = &job;
      if (auto [it, inserted] = id_lines.emplace(job.id, at); !inserted)
        throw fail("duplicate id (first defined at line " + std::to_string(it->second) + ")");

      auto subtime = seconds(j.subtime);
      if (!subtime || *subtime < 0) throw fail("expected \"subtime\" to be a non-negative number of seconds, at most 1e8 (the simulated span's limit)");
      job.submit = SimTime::from_seconds(*subtime);

      auto res_value = integer(j.res);
      if (!res_value || *res_value < 1 || *res_value > 1'000'000'000'000)
        throw fail("expected \"res\" to be an integer >= 1 (a job needs resources to run as a pod)");
      job.requested_resources = *res_value;

      if (j.walltime.present()) {
        auto wt = seconds(j.walltime);
        if (!wt || !(*wt == -1 || *wt > 0))
          throw fail("expected \"walltime\" to be -1 (none) or a positive number of seconds, at most 1e8 (the simulated span's limit)");
        if (*wt > 0) job.walltime = Duration::from_seconds(*wt);
      }

      if (!j.profile.is_string()) throw fail("expected \"profile\" to be a string");
      const std::string_view profile_name = JsonCursor::text_of(j.profile, scratch);
      auto pit = profiles_.find(profile_name);
      if (pit == profiles_.end()) throw fail("profile \"" + std::string(profile_name) + "\" does not exist");
      job.profile = pit->first;
      Profile& prof = pit->second;
      if (prof.type != "delay")
        throw InputError(path_, prof.line,
                         "profile \"" + job.profile + "\" has type " + prof.type + "; only delay profiles can run as pods");
      job.run_time = prof.delay;
      job.exit_code = prof.ret;

      // The effective request: the profile's cpu (one pod); else Batsim's semantics, res
      // machines, one pod of one core on each (see the header).
      if (!prof.cpu_milli) {
        if (job.requested_resources > 1'000'000) throw fail("expected \"res\" to be at most 1000000 machines");
        job.machines = static_cast<std::uint32_t>(job.requested_resources);
      }
      if (!prof.pod_template) {
        prof.pod_template = static_cast<std::uint32_t>(w.templates.size());
        w.templates.push_back(
            batch_job_template(prof.cpu_milli ? *prof.cpu_milli : 1000, prof.memory_bytes, prof.scheduler));
      }
      job.pod_template = *prof.pod_template;
    }
    const auto by_submit = [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit < b.submit; };
    if (!std::is_sorted(w.jobs.begin(), w.jobs.end(), by_submit)) std::stable_sort(w.jobs.begin(), w.jobs.end(), by_submit);
    return w;
  }

 private:
  Profile read_profile(const std::string& name, const ProfileRecord& p) {
    Profile prof;
    prof.line = p.line;
    const std::string who = "profile \"" + name + "\"";
    auto fail = [&](const std::string& what) -> InputError { return InputError(path_, prof.line, who + ": " + what); };
    if (p.kind != JsonValue::Kind::kObject) throw fail("expected an object");
    if (!p.type.is_string()) throw fail("expected \"type\" to be a string");
    prof.type = JsonCursor::decode(p.type);
    if (prof.type != "delay") return prof;

    auto delay = seconds(p.delay);
    if (!delay || *delay < 0) throw fail("expected \"delay\" to be a non-negative number of seconds, at most 1e8 (the simulated span's limit)");
    prof.delay = Duration::from_seconds(*delay);

    if (p.ret.present()) {
      auto v = integer(p.ret);
      if (!v || *v < INT32_MIN || *v > INT32_MAX) throw fail("expected \"ret\" to be a 32-bit integer exit code");
      prof.ret = static_cast<std::int32_t>(*v);
    }

    if (p.cpu.present()) {
      std::string text;
      if (p.cpu.is_string()) {
        text = JsonCursor::decode(p.cpu);
      } else if (p.cpu.is_number()) {
        text = format_percent_f(p.cpu.as_double());
      } else {
        throw fail("expected \"cpu\" to be a quantity string or a number");
      }
      prof.cpu_milli = parse_resource_quantity(text, path_, prof.line, who + " cpu").milli_value();
    }

    if (const JsonValue& mem = p.memory; mem.present()) {
      if (mem.is_string()) {
        prof.memory_bytes = parse_resource_quantity(JsonCursor::decode(mem), path_, prof.line, who + " memory").value();
      } else if (mem.is_number_unsigned()) {
        if (mem.u > static_cast<std::uint64_t>(INT64_MAX)) throw fail("\"memory\" is out of range");
        prof.memory_bytes = static_cast<std::int64_t>(mem.u);
      } else if (mem.is_number()) {
        prof.memory_bytes =
            parse_resource_quantity(format_percent_f(mem.as_double()), path_, prof.line, who + " memory").value();
      } else {
        throw fail("expected \"memory\" to be a quantity string or a number of bytes");
      }
    }

    if (p.scheduler.present()) {
      if (!p.scheduler.is_string()) throw fail("expected \"scheduler\" to be a string");
      const std::string s = JsonCursor::decode(p.scheduler);
      // Batkube's kube-scheduler ran with --scheduler-name=default; Kubernetes defaults "" too.
      prof.scheduler = (s == "default" || s.empty()) ? kDefaultScheduler : s;
    }
    return prof;
  }

  std::string path_;
  // By name (views of the Document's keys); only looked up, never iterated.
  std::unordered_map<std::string_view, Profile> profiles_;
};

}  // namespace

Workload read_batsim_workload(const std::string& path, ResourceNames& /*names*/) {
  // Only cpu and memory are requested, and both have fixed slots.
  const std::string text = read_input_file(path);
  Document doc;
  try {
    doc = scan_document(text);
  } catch (const JsonCursor::Malformed&) {
    throw_syntax_error(path, text);
  }
  return BatsimReader(path).read(text, doc);
}

}  // namespace kubesim
