#include "setups/policy_setup.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace kubesim {

SchedulerSetup policy_setup(const std::string& name, PolicyFactory make, const std::string& description) {
  return SchedulerSetup{
      name, description, name, true, nullptr, [name, make = std::move(make)](SimulationInputs& in, const SetupOptions& o) {
        if (!o.config_file.empty()) throw InputError(o.config_file, 0, "the policy " + name + " takes no configuration file");
        in.other_schedulers.push_back(SchedulerFactory{
            [name, make](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
              return std::make_unique<PolicyScheduler>(store, host, name, make(), options.model.scheduler.bind, options.seed);
            },
            Duration()});
      }};
}

std::vector<SetupChoice> with_policies(std::vector<SetupChoice> given, const std::vector<SchedulerSetup>& policies) {
  const auto is_policy = [&](const SetupChoice& c) {
    return std::any_of(policies.begin(), policies.end(), [&](const SchedulerSetup& p) { return p.name == c.setup; });
  };
  if (policies.empty() || std::any_of(given.begin(), given.end(), is_policy)) return given;
  std::vector<SetupChoice> out;
  for (const SchedulerSetup& p : policies) out.push_back(SetupChoice{p.name, "", Duration()});
  return out;
}

}  // namespace kubesim
