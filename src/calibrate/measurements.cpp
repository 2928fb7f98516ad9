#include "calibrate/measurements.hpp"

#include <algorithm>
#include <map>

#include "api/json_codec.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"

#include "core/split.hpp"

namespace kubesim::calibrate {

using Json = nlohmann::json;

namespace {

void sort_by_id(std::vector<PodTimeline>& pods) {
  // Numeric ids in numeric order, then names: the same rows in any order give one order.
  std::sort(pods.begin(), pods.end(), [](const PodTimeline& a, const PodTimeline& b) {
    const auto na = parse_int(a.id), nb = parse_int(b.id);
    if (na && nb) return *na < *nb;
    if (na != nb) return na.has_value();
    return a.id < b.id;
  });
}

}  // namespace

double parse_go_duration(std::string_view text) {
  // time.ParseDuration's units; a sequence of <number><unit>.
  if (text.empty()) return kUnknown;
  double total = 0.0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    const auto number = parse_double(text.substr(i, j - i));
    if (!number || j == i) return kUnknown;
    std::size_t k = j;
    while (k < text.size() && !std::isdigit(static_cast<unsigned char>(text[k])) && text[k] != '.') ++k;
    const std::string_view unit = text.substr(j, k - j);
    double scale;
    if (unit == "h") scale = 3600;
    else if (unit == "m") scale = 60;
    else if (unit == "s") scale = 1;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "µs" || unit == "us") scale = 1e-6;
    else if (unit == "ns") scale = 1e-9;
    else return kUnknown;
    total += *number * scale;
    i = k;
  }
  return total;
}

MeasuredRun read_measured_jobs_csv(const std::string& path, const Workload& workload) {
  const std::string text = read_input_file(path);
  MeasuredRun run;
  run.source = path;
  run.submission_watch_hops = 2;
  run.finish_meaning = "the Job's status.succeeded == 1 seen by the submitter";
  // The real-cluster columns are the Batkube submitter's (real-cluster-experiment/main.go).
  run.stamped_by_batkube_submitter = true;
  std::map<std::string, const WorkloadJob*> jobs_by_id;
  for (const auto& j : workload.jobs) jobs_by_id.emplace(j.id, &j);

  std::vector<std::string> header;
  std::map<std::string, std::size_t> column;
  static constexpr const char* kRequired[] = {"job_id",       "submission_time", "starting_time", "finish_time",
                                              "scheduled",    "pulling",         "pulled",        "created",
                                              "requested_number_of_resources",   "profile"};
  std::map<std::string, int> seen_ids;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty() || line == "\r") continue;
    auto fields = split_csv_record(line);
    if (header.empty()) {
      header = fields;
      for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
      for (const char* c : kRequired)
        if (!column.count(c))
          throw InputError(path, line_no,
                           std::string("missing column \"") + c +
                               "\" (expected a Batsim jobs.csv with the real-cluster columns scheduled, pulling, "
                               "pulled, created)");
      continue;
    }
    if (fields.size() != header.size())
      throw InputError(path, line_no,
                       "expected " + std::to_string(header.size()) + " fields, got " + std::to_string(fields.size()));
    auto cell = [&](const char* name) -> const std::string& { return fields[column.at(name)]; };
    auto number = [&](const char* name) -> double {
      const std::string& v = cell(name);
      if (v.empty()) {
        run.skipped.add(std::string("blank ") + name);
        return kUnknown;
      }
      const auto x = parse_double(v);
      if (!x || !std::isfinite(*x))
        throw InputError(path, line_no, std::string("expected a number of seconds in column ") + name + ", got \"" + v + "\"");
      return *x;
    };
    PodTimeline pod;
    pod.id = cell("job_id");
    // Batsim writes "<workload>!<id>" for some workloads; the real files write the bare id.
    if (const auto bang = pod.id.find('!'); bang != std::string::npos) pod.id = pod.id.substr(bang + 1);
    if (const auto [it, fresh] = seen_ids.emplace(pod.id, line_no); !fresh)
      throw InputError(path, line_no, "job " + pod.id + " appears twice (first on line " + std::to_string(it->second) + ")");
    const auto job = jobs_by_id.find(pod.id);
    if (job == jobs_by_id.end())
      throw InputError(path, line_no,
                       "job " + pod.id + " is not in workload " + workload.source + " (measurements of another workload?)");
    const WorkloadJob& j = *job->second;
    if (cell("profile") != j.profile)
      throw InputError(path, line_no,
                       "job " + pod.id + " ran profile \"" + cell("profile") + "\", the workload's is \"" + j.profile +
                           "\" (measurements of another workload?)");
    const auto res = parse_int(cell("requested_number_of_resources"));
    if (!res || *res != j.requested_resources)
      throw InputError(path, line_no,
                       "job " + pod.id + " requested " + cell("requested_number_of_resources") +
                           " resources, the workload's asks " + std::to_string(j.requested_resources) +
                           " (measurements of another workload?)");
    pod.submitted = number("submission_time");
    if (known(pod.submitted) && pod.submitted + 1e-9 < j.submit.to_seconds())
      throw InputError(path, line_no,
                       "job " + pod.id + " was submitted at " + cell("submission_time") +
                           " s, before its workload submission time (measurements of another workload?)");
    pod.scheduled = number("scheduled");
    pod.pulling = number("pulling");
    pod.pulled = number("pulled");
    pod.created = number("created");
    pod.started = number("starting_time");
    pod.finished = number("finish_time");
    pod.run_time = j.run_time.to_seconds();
    // Optional column (the real-k3s files have it): the node index in order of first use,
    // blank when the Scheduled event was missed.
    if (const auto col = column.find("allocated_resources"); col != column.end()) pod.node = fields[col->second];
    run.pods.push_back(std::move(pod));
  }
  if (header.empty()) throw InputError(path, 1, "empty file: expected a jobs.csv header");
  if (run.pods.empty()) throw InputError(path, 2, "no jobs in the file");
  if (run.pods.size() < workload.jobs.size())
    for (std::size_t i = run.pods.size(); i < workload.jobs.size(); ++i) run.skipped.add("workload jobs missing from the file");
  sort_by_id(run.pods);
  return run;
}

namespace {

double unix_seconds(const Json& v) {
  if (!v.is_string()) return kUnknown;
  const auto micros = api::parse_rfc3339_micros(v.get<std::string>());
  return micros ? static_cast<double>(*micros) / 1e6 : kUnknown;
}

const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json null;
  const Json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return null;
    const auto it = cur->find(k);
    if (it == cur->end()) return null;
    cur = &*it;
  }
  return *cur;
}

// A string member, or "" (a member of another type, a list element that is no object).
std::string text_at(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at(j, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}

}  // namespace

MeasuredRun timelines_from_cluster(const Json& pods, const Json& events, const std::string& source, double since_unix,
                                   double until_unix) {
  MeasuredRun run;
  run.source = source;
  run.scheduled_resolution = 1e-6;  // events.k8s.io eventTime (MicroTime)
  run.kubelet_resolution = 1.0;     // core/v1 Event timestamps and pod statuses (metav1.Time)
  run.finish_meaning = "the pod's Ready condition turning False (status reported after the container exited)";
  // Whatever the server answered: every member is read through at() and text_at(), never by
  // nlohmann's const operator[], whose missing key is undefined behaviour.
  if (!at(pods, {"items"}).is_array()) throw InputError(source, 0, "expected a PodList");
  if (!at(events, {"items"}).is_array()) throw InputError(source, 0, "expected an EventList");
  struct Absolute {
    double created = kUnknown, scheduled = kUnknown, pulling = kUnknown, pulled = kUnknown, container_created = kUnknown,
           started = kUnknown, finished = kUnknown, exited = kUnknown, pull = kUnknown;
    bool job = false;
    std::string node;
  };
  std::map<std::string, Absolute> by_name;  // pod name
  for (const Json& p : at(pods, {"items"})) {
    const std::string name = text_at(p, {"metadata", "name"});
    Absolute a;
    a.created = unix_seconds(at(p, {"metadata", "creationTimestamp"}));
    if (!known(a.created) || (known(since_unix) && a.created < since_unix) || (known(until_unix) && a.created > until_unix)) {
      run.skipped.add("pods created outside the time window");
      continue;
    }
    if (const Json& node = at(p, {"spec", "nodeName"}); node.is_string()) a.node = node.get<std::string>();
    for (const Json& o : at(p, {"metadata", "ownerReferences"}).is_array() ? at(p, {"metadata", "ownerReferences"}) : Json::array())
      if (text_at(o, {"kind"}) == "Job") a.job = true;
    const Json& statuses = at(p, {"status", "containerStatuses"});
    if (statuses.is_array() && !statuses.empty()) {
      const Json& term = at(statuses[0], {"state", "terminated"});
      if (const Json& code = at(term, {"exitCode"}); code.is_number_integer() && code.get<std::int64_t>() == 0)
        a.exited = unix_seconds(at(term, {"finishedAt"}));
    }
    const Json& conditions = at(p, {"status", "conditions"});
    if (conditions.is_array())
      for (const Json& c : conditions)
        if (text_at(c, {"type"}) == "Ready" && text_at(c, {"status"}) == "False" && known(a.exited))
          a.finished = unix_seconds(at(c, {"lastTransitionTime"}));
    by_name.emplace(name, a);
  }
  for (const Json& e : at(events, {"items"})) {
    const Json& regarding = at(e, {"regarding"}).is_null() ? at(e, {"involvedObject"}) : at(e, {"regarding"});
    if (text_at(regarding, {"kind"}) != "Pod") continue;
    const auto it = by_name.find(text_at(regarding, {"name"}));
    if (it == by_name.end()) continue;
    Absolute& a = it->second;
    const std::string reason = text_at(e, {"reason"});
    double t = unix_seconds(at(e, {"eventTime"}));
    if (!known(t))
      t = unix_seconds(at(e, {"deprecatedFirstTimestamp"}).is_null() ? at(e, {"firstTimestamp"}) : at(e, {"deprecatedFirstTimestamp"}));
    if (!known(t)) continue;
    // The first occurrence of each reason (a restarted container repeats them).
    auto first = [&](double& slot) {
      if (!known(slot) || t < slot) slot = t;
    };
    if (reason == "Scheduled") first(a.scheduled);
    else if (reason == "Pulling") first(a.pulling);
    else if (reason == "Pulled") {
      first(a.pulled);
      const std::string note = at(e, {"note"}).is_null() ? text_at(e, {"message"}) : text_at(e, {"note"});
      // image_manager.go: `Successfully pulled image "<image>" in <duration>` (newer
      // kubelets append " (<duration> including waiting)").
      if (const auto in = note.rfind("\" in "); in != std::string::npos) {
        std::string d = note.substr(in + 5);
        if (const auto sp = d.find(' '); sp != std::string::npos) d = d.substr(0, sp);
        a.pull = parse_go_duration(d);
      }
    } else if (reason == "Created") first(a.container_created);
    else if (reason == "Started") first(a.started);
  }
  double origin = kUnknown;
  for (const auto& [name, a] : by_name)
    if (!known(origin) || a.created < origin) origin = a.created;
  int jobs = 0;
  for (const auto& [name, a] : by_name) {
    PodTimeline pod;
    pod.id = name;
    auto rel = [&](double t) { return known(t) ? t - origin : kUnknown; };
    pod.submitted = rel(a.created);
    pod.scheduled = rel(a.scheduled);
    pod.pulling = rel(a.pulling);
    pod.pulled = rel(a.pulled);
    pod.created = rel(a.container_created);
    pod.started = rel(a.started);
    pod.finished = rel(a.finished);
    pod.pull_duration = a.pull;
    pod.node = a.node;
    if (known(a.exited) && known(a.started)) pod.run_time = a.exited - a.started;
    if (!known(pod.scheduled)) run.skipped.add("pods without a Scheduled Event");
    if (!known(pod.started)) run.skipped.add("pods without a Started Event");
    jobs += a.job;
    run.pods.push_back(std::move(pod));
  }
  if (run.pods.empty()) throw InputError(source, 0, "no pods in the namespace and time window");
  // Pods of Jobs go through the Job controller's watch before the scheduler's.
  run.submission_watch_hops = jobs * 2 >= static_cast<int>(run.pods.size()) ? 2 : 1;
  sort_by_id(run.pods);
  return run;
}

}  // namespace kubesim::calibrate
