#include "bsp/gang_spec.hpp"

#include <yaml-cpp/yaml.h>

#include "core/parse_number.hpp"
#include "core/yaml_input.hpp"
#include "scenario/scenario.hpp"

namespace kubesim::bsp {

std::string_view gang_scheduler_name(GangScheduler g) {
  switch (g) {
    case GangScheduler::kCoscheduling:
      return "coscheduling";
    case GangScheduler::kYuniKorn:
      return "yunikorn";
    case GangScheduler::kKueue:
      return "kueue";
    case GangScheduler::kVolcano:
      return "volcano";
  }
  return "coscheduling";
}

GangSpec read_gang_spec(const YamlInput& in, const YAML::Node& node, const std::filesystem::path& scenario_dir) {
  in.require_map(node, "bsp");
  in.check_keys(node,
                {"data", "namespace", "start", "steps", "plan", "execute", "controller", "window", "horizon",
                 "checkpointPenalty", "gangScheduler", "schedulerName", "podGroup", "queue", "priorityClassName",
                 "terminationGracePeriodSeconds"},
                "bsp");
  GangSpec spec;
  spec.source = in.path();
  spec.line = line_of(node);
  auto seconds = [&](const YAML::Node& n, const std::string& where) {
    const auto v = parse_double(in.scalar(n, where));
    if (!v || !(*v >= 0) || *v > 1e9) in.fail(n, "expected " + where + " to be a non-negative number of seconds");
    return *v;
  };
  auto one_of = [&](const YAML::Node& n, const std::string& where, std::initializer_list<const char*> allowed) {
    const std::string v = in.scalar(n, where);
    std::string list;
    for (const char* a : allowed) {
      if (v == a) return v;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    in.fail(n, "expected " + where + " to be one of " + list + ", got \"" + v + "\"");
  };
  const YAML::Node data = node["data"];
  if (!data) in.fail(node, "expected bsp.data: the study's data folder (config.ini, workload_profiling.csv, actual/, forecasts/)");
  std::filesystem::path dir(in.scalar(data, "bsp.data"));
  if (dir.is_relative()) dir = (scenario_dir / dir).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) in.fail(data, "expected bsp.data to be a folder (looked for " + dir.string() + ")");
  spec.data_dir = dir.string();
  if (const auto n = node["namespace"]) {
    spec.namespace_name = in.scalar(n, "bsp.namespace");
    if (!is_dns1123_label(spec.namespace_name)) in.fail(n, "expected bsp.namespace to be a DNS-1123 label");
  }
  if (const auto n = node["start"]) spec.start_seconds = seconds(n, "bsp.start");
  if (const auto n = node["steps"]) spec.steps = static_cast<int>(in.integer(n, "bsp.steps", 1, 1'000'000));
  if (const auto n = node["plan"]) spec.plan = one_of(n, "bsp.plan", {"forecasts", "actual"});
  if (const auto n = node["execute"]) spec.execute = one_of(n, "bsp.execute", {"actual", "forecasts"});
  if (const auto n = node["controller"]) spec.controller = one_of(n, "bsp.controller", {"exppo", "static-window", "dynamic-mpc"});
  if (const auto n = node["window"]) spec.window = static_cast<int>(in.integer(n, "bsp.window", 1, 1000));
  if (const auto n = node["horizon"]) spec.horizon = static_cast<int>(in.integer(n, "bsp.horizon", 1, 1000));
  if (const auto n = node["checkpointPenalty"]) spec.penalty = seconds(n, "bsp.checkpointPenalty");
  if (const auto n = node["gangScheduler"]) {
    const std::string name = one_of(n, "bsp.gangScheduler", {"coscheduling", "yunikorn", "kueue", "volcano"});
    if (name == "yunikorn") {
      spec.gang_scheduler = GangScheduler::kYuniKorn;
      spec.scheduler_name = "yunikorn";
    } else if (name == "kueue") {
      spec.gang_scheduler = GangScheduler::kKueue;
      spec.scheduler_name = "default-scheduler";
    } else if (name == "volcano") {
      spec.gang_scheduler = GangScheduler::kVolcano;
      spec.scheduler_name = "volcano";
    }
  }
  if (const auto n = node["schedulerName"]) spec.scheduler_name = in.scalar(n, "bsp.schedulerName");
  if (const auto n = node["podGroup"]) {
    spec.pod_group = in.string_or_null(n, "bsp.podGroup");
    if (!spec.pod_group.empty() && !is_dns1123_label(spec.pod_group)) in.fail(n, "expected bsp.podGroup to be a DNS-1123 label");
  }
  if (const auto n = node["queue"]) {
    if (spec.gang_scheduler == GangScheduler::kCoscheduling)
      in.fail(n, "bsp.queue is YuniKorn's queue, Kueue's LocalQueue or Volcano's Queue: it needs gangScheduler: yunikorn, kueue or volcano");
    spec.queue = in.scalar(n, "bsp.queue");
  }
  if (spec.gang_scheduler == GangScheduler::kKueue && spec.queue.empty())
    in.fail(node, "bsp.gangScheduler kueue needs bsp.queue: the LocalQueue of the task pods (label kueue.x-k8s.io/queue-name)");
  if (const auto n = node["priorityClassName"]) spec.priority_class_name = in.string_or_null(n, "bsp.priorityClassName");
  if (const auto n = node["terminationGracePeriodSeconds"])
    spec.termination_grace_period_seconds = in.integer(n, "bsp.terminationGracePeriodSeconds", 0, 1'000'000);
  return spec;
}

std::optional<GangSpec> read_gang_spec(const Scenario& scenario) {
  if (!scenario.bsp_section) return std::nullopt;
  const ScenarioSection& section = *scenario.bsp_section;
  return read_gang_spec(YamlInput(section.source), *section.node, section.dir);
}

}  // namespace kubesim::bsp
