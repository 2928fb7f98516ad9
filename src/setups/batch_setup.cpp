#include "setups/batch_setup.hpp"

#include <memory>

#include "core/error.hpp"
#include "sched/batch/batch_scheduler.hpp"

namespace kubesim {

SchedulerSetup batch_setup(const std::string& name, std::uint32_t depth, const std::string& description) {
  return SchedulerSetup{
      name, description, name, true, nullptr, [name, depth](SimulationInputs& in, const SetupOptions& o) {
        if (!o.config_file.empty())
          throw InputError(o.config_file, 0, "the " + name + " setup takes no configuration file");
        // Batsim's submitter knows its workload: how many rigid parallel jobs it submits.
        std::uint32_t batsim_jobs = 0;
        for (const WorkloadJob& j : in.workload.jobs) batsim_jobs += j.machines > 0 ? 1 : 0;
        in.other_schedulers.push_back(SchedulerFactory{
            [name, depth, batsim_jobs](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) {
              // batsched's default rjms_delay, added to every walltime; Batsim's message
              // latencies when the model has them.
              return std::make_unique<BatchScheduler>(store, host, name, depth, Duration(), 2,
                                                      BatchScheduler::kBatschedRjmsDelay,
                                                      options.model.batsim_server_latency,
                                                      options.model.batsim_node_latency, batsim_jobs);
            },
            Duration()});
      }};
}

}  // namespace kubesim
