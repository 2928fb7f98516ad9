#include "workload/swf.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "core/limits.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"

namespace kubesim {
namespace {


constexpr std::array<const char*, 18> kFieldNames = {
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average cpu time used",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time from preceding job",
};

// Which fields are counts or identifiers (stored as int64 and required to be integral).
constexpr std::array<bool, 18> kIntegerField = {true,  false, false, false, true, false, false, true, false,
                                                false, true,  true,  true,  true, true,  true,  true, false};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// "; Key: value": a key is an identifier directly followed by ':' and then blank or the end,
// so that a continuation line such as ";    http://host/path" is not taken for a key "http".
std::optional<std::pair<std::string, std::string>> parse_header_line(std::string_view text) {
  text = trim(text);
  std::size_t i = 0;
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return std::nullopt;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '-'))
    ++i;
  if (i >= text.size() || text[i] != ':') return std::nullopt;
  if (i + 1 < text.size() && !is_space(text[i + 1])) return std::nullopt;
  return std::make_pair(std::string(text.substr(0, i)), std::string(trim(text.substr(i + 1))));
}

std::string format_number(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form: "1451", "12.5"
  return std::string(buf, r.ptr);
}

void check_seconds(double v, const SwfTrace& trace, const SwfRecord& rec, int field) {
  if (v > kMaxSimulatedSeconds)
    throw InputError(trace.source, rec.line,
                     "field " + std::to_string(field) + " (" + kFieldNames[field - 1] +
                         ") is out of range: " + format_number(v) + " s > 1e8 s (the simulated span's limit)");
}

}  // namespace

SwfTrace read_swf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  SwfTrace trace;
  trace.source = path;
  std::string raw;
  int line = 0;
  bool in_header = false;  // the previous line was a header line or its continuation
  while (std::getline(in, raw)) {
    ++line;
    std::string_view text = trim(raw);
    if (text.empty()) {
      in_header = false;
      continue;
    }
    if (text.front() == ';') {
      std::string_view body = text.substr(1);
      if (auto kv = parse_header_line(body)) {
        trace.header.push_back(std::move(*kv));
        in_header = true;
      } else if (!trim(body).empty() && in_header) {
        std::string& value = trace.header.back().second;
        if (!value.empty()) value += ' ';
        value += trim(body);
      } else {
        in_header = false;  // ";" alone or a free comment ends a header value
      }
      continue;
    }
    in_header = false;

    std::array<std::string_view, 18> fields;
    std::size_t n = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
      while (pos < text.size() && is_space(text[pos])) ++pos;
      if (pos >= text.size()) break;
      std::size_t start = pos;
      while (pos < text.size() && !is_space(text[pos])) ++pos;
      if (n < fields.size()) fields[n] = text.substr(start, pos - start);
      ++n;
    }
    if (n != 18) throw InputError(path, line, "expected 18 numeric fields, got " + std::to_string(n));

    std::array<double, 18> v{};
    for (std::size_t i = 0; i < 18; ++i) {
      auto d = parse_double(fields[i]);
      const std::string where = "field " + std::to_string(i + 1) + " (" + kFieldNames[i] + ")";
      if (!d || !std::isfinite(*d))
        throw InputError(path, line, where + " is not a number: \"" + std::string(fields[i]) + "\"");
      if (kIntegerField[i] && (*d != std::trunc(*d) || std::fabs(*d) > 9e18))
        throw InputError(path, line, where + " is not an integer: \"" + std::string(fields[i]) + "\"");
      v[i] = *d;
    }
    auto as_int = [&](std::size_t i) { return static_cast<std::int64_t>(v[i]); };
    SwfRecord r;
    r.job_number = as_int(0);
    r.submit_time = v[1];
    r.wait_time = v[2];
    r.run_time = v[3];
    r.allocated_processors = as_int(4);
    r.average_cpu_time_used = v[5];
    r.used_memory = v[6];
    r.requested_processors = as_int(7);
    r.requested_time = v[8];
    r.requested_memory = v[9];
    r.status = as_int(10);
    r.user_id = as_int(11);
    r.group_id = as_int(12);
    r.executable_number = as_int(13);
    r.queue_number = as_int(14);
    r.partition_number = as_int(15);
    r.preceding_job_number = as_int(16);
    r.think_time_from_preceding_job = v[17];
    r.line = line;
    trace.records.push_back(r);
  }
  if (in.bad()) throw InputError(path, line, "read error");
  return trace;
}

Workload swf_to_workload(const SwfTrace& trace, const SwfOptions& options, ResourceNames& /*names*/) {
  // Only cpu and memory are requested, and both have fixed slots.
  Quantity cpu_q = parse_resource_quantity(options.cpu_per_processor, "", 0, "cpu per processor");
  if (cpu_q.is_zero())
    throw InputError("", 0, "cpu per processor must be positive, got \"" + options.cpu_per_processor + "\"");
  const std::int64_t cpu_per_proc = cpu_q.milli_value();

  Workload w;
  w.source = trace.source;

  struct Used {
    const SwfRecord* rec;
    std::int64_t procs;
    std::optional<std::int64_t> memory;
  };
  std::vector<Used> used;
  used.reserve(trace.records.size());
  double min_submit = std::numeric_limits<double>::infinity();
  std::set<std::int64_t> used_numbers;
  for (const SwfRecord& r : trace.records) {
    if (!(r.run_time > 0)) {
      w.skipped.add("run time <= 0 or unknown");
      continue;
    }
    const std::int64_t procs = r.allocated_processors > 0 ? r.allocated_processors : r.requested_processors;
    if (procs <= 0) {
      w.skipped.add("no processors (fields 5 and 8 unknown or <= 0)");
      continue;
    }
    if (r.submit_time < 0) {
      w.skipped.add("negative submit time");
      continue;
    }
    std::optional<std::int64_t> memory;
    if (options.memory != SwfOptions::Memory::kNone) {
      const bool requested = options.memory == SwfOptions::Memory::kRequested;
      const double kb = requested ? r.requested_memory : r.used_memory;
      if (kb < 0) {
        w.skipped.add("memory unknown");
        continue;
      }
      // Per pod: one processor's memory on each machine, or all P on one node.
      const bool machines = options.processors == SwfOptions::Processors::kMachines;
      const double bytes = std::ceil(static_cast<double>(machines ? 1 : procs) * kb * 1024.0);
      if (bytes > 9e18)
        throw InputError(trace.source, r.line,
                         std::string("field ") + (requested ? "10 (requested memory)" : "7 (used memory)") +
                             " times the processors is out of range");
      memory = static_cast<std::int64_t>(bytes);
    }
    check_seconds(r.run_time, trace, r, 4);
    check_seconds(r.submit_time, trace, r, 2);
    check_seconds(r.requested_time, trace, r, 9);
    if (procs > std::numeric_limits<std::int64_t>::max() / cpu_per_proc)
      throw InputError(trace.source, r.line, "processors times cpu per processor is out of range");
    if (options.processors == SwfOptions::Processors::kMachines && procs > 1'000'000)
      throw InputError(trace.source, r.line, "expected at most 1000000 processors (machines), got " + std::to_string(procs));
    // Job numbers become pod names, which must be unique; SWF logs may repeat a number for the
    // partial-execution records (status 2-4) of one checkpointed job. The first record wins.
    if (!used_numbers.insert(r.job_number).second) {
      w.skipped.add("duplicate job number");
      continue;
    }
    min_submit = std::min(min_submit, r.submit_time);
    used.push_back({&r, procs, memory});
  }

  // One template per distinct request (cpu millicores, memory bytes or -1 when not requested).
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> template_of;
  w.jobs.reserve(used.size());
  for (const Used& u : used) {
    const SwfRecord& r = *u.rec;
    const bool machines = options.processors == SwfOptions::Processors::kMachines;
    const std::int64_t cpu = machines ? cpu_per_proc : u.procs * cpu_per_proc;
    const auto key = std::make_pair(cpu, u.memory.value_or(-1));
    auto [it, inserted] = template_of.emplace(key, static_cast<std::uint32_t>(w.templates.size()));
    if (inserted) {
      w.templates.push_back(batch_job_template(cpu, u.memory));
    }
    WorkloadJob job;
    job.id = std::to_string(r.job_number);
    job.profile = "swf" + format_number(r.run_time);
    job.submit = SimTime::from_seconds(r.submit_time - min_submit);
    job.run_time = Duration::from_seconds(r.run_time);
    job.walltime = r.requested_time > 0 ? Duration::from_seconds(r.requested_time) : Duration();
    job.requested_resources = u.procs;
    if (machines) job.machines = static_cast<std::uint32_t>(u.procs);
    job.pod_template = it->second;
    job.exit_code = 0;
    w.jobs.push_back(std::move(job));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit < b.submit; });
  return w;
}

}  // namespace kubesim
