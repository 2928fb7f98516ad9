#include "cli/openb_run.hpp"

#include <chrono>
#include <cstdio>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/output_dir.hpp"
#include "study/openb/openb_results.hpp"

namespace kubesim {

void add_openb_options(CLI::App* cmd, RunArgs& a) {
  auto* nodes = cmd->add_option("--openb-nodes", a.openb_nodes, "openb node CSV (sn,cpu_milli,memory_mib,gpu,model)")
                    ->check(CLI::ExistingFile);
  auto* pods = cmd->add_option("--openb-pods", a.openb_pods, "openb pod CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli,...)")
                   ->check(CLI::ExistingFile);
  nodes->needs(pods);
  pods->needs(nodes);
  for (const char* other : {"--scenario", "--platform", "--cluster", "--workload", "--swf"})
    if (CLI::Option* o = cmd->get_option_no_throw(other)) nodes->excludes(o), pods->excludes(o);
  auto* protocol = cmd->add_flag("--openb-protocol", a.openb_protocol,
                                 "the FGD paper's protocol on the openb trace: arrivals only, one pod at a time, a pod that "
                                 "fits nowhere dropped, inflated to --tune x the cluster's GPUs; writes the authors' "
                                 "analysis_*.csv files and report.html");
  protocol->needs(nodes);
  cmd->add_option("--openb-policy", a.policy, "openb protocol: placement policy (" + openb::policy_names() + ")")
      ->capture_default_str()
      ->needs(protocol);
  cmd->add_option("--tune", a.tune, "openb protocol: inflate the workload to this many times the cluster's GPUs (0: as is)")
      ->capture_default_str()
      ->needs(protocol);
}

int run_openb_protocol(const RunArgs& a) {
  const auto wall_start = std::chrono::steady_clock::now();
  openb::ProtocolOptions options;
  if (!openb::parse_policy(a.policy, options.policy))
    throw InputError("", 0, "--openb-policy: expected one of " + openb::policy_names() + ", got \"" + a.policy + "\"");
  if (!(a.tune >= 0 && a.tune <= 100)) throw InputError("", 0, "--tune: expected a ratio from 0 to 100");
  options.seed = a.seed;
  options.tune = a.tune;
  const OpenbTrace trace = read_openb_trace(a.openb_nodes, a.openb_pods);
  OutputDirectory out(a.out);
  const openb::ProtocolResult result = openb::run_protocol(trace, options);
  const openb::RunLabels labels{openb_workload_name(a.openb_pods), std::string(openb::policy_label(options.policy)),
                                openb::tune_label(options.tune), std::to_string(a.seed)};
  write_file_atomically(out.staging() + "/analysis_allo.csv", openb::allo_steps_csv(result));
  write_file_atomically(out.staging() + "/analysis_frag.csv", openb::frag_steps_csv(result));
  const std::vector<std::string> headers = openb::discrete_headers();
  const std::vector<std::string> rows = openb::discrete_rows(result, labels);
  for (std::size_t i = 0; i < rows.size(); ++i)
    write_file_atomically(out.staging() + "/" + openb::kDiscreteFiles[i], headers[i] + rows[i]);
  write_file_atomically(out.staging() + "/report.html", openb::protocol_report_html(result, labels));
  out.commit();
  if (!a.quiet) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const openb::ProtocolStep& last = result.steps.back();
    std::printf("openb protocol %s %s tune %s seed %s: %zu pods arrived, %zu placed, %zu dropped; %.2f%% of %lld GPUs "
                "allocated at %.1f%% arrived; %.3f s wall\n",
                labels.workload.c_str(), labels.policy.c_str(), labels.tune.c_str(), labels.seed.c_str(), result.pods,
                result.placed, result.dropped, static_cast<double>(last.used_gpu_milli) / static_cast<double>(result.total_gpus) / 10,
                static_cast<long long>(result.total_gpus),
                static_cast<double>(last.arrived_gpu_milli) / static_cast<double>(result.total_gpus) / 10, wall);
    std::printf("outputs: %s/analysis_{allo,frag}.csv, %s/analysis_{allo,frag,frag_ratio}_discrete.csv, %s/report.html\n",
                a.out.c_str(), a.out.c_str(), a.out.c_str());
  }
  return 0;
}

}  // namespace kubesim
