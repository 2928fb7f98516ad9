#include "cli/cli_bounds.hpp"
#include "cli/compare_command.hpp"

#include <chrono>
#include <cstdio>

#include "cli/policy_option.hpp"
#include "cli/version.hpp"
#include "core/error.hpp"
#include "core/output_dir.hpp"
#include "core/task_progress.hpp"
#include "study/compare.hpp"
#include "study/compare_report.hpp"

namespace kubesim {
namespace {

// The comparison of `a`'s inputs: every setup's configuration checked by run_comparison
// before anything runs.
CompareSpec compare_spec(const RunArgs& a, RunInputs in) {
  CompareSpec spec;
  spec.options.max_pods = a.max_pods;
  Scenario& sc = in.scenario;
  if (in.from_scenario) {
    if (sc.each_tenant_alone)
      throw InputError(a.scenario, 0, "compare runs the tenants together: a scenario with eachTenantAlone needs `kubesim run`");
    if (in.gang) throw InputError(a.scenario, in.gang->line, "compare does not drive a bsp: job; use `kubesim run`");
  }
  spec.options.model = ModelConfig::load(in.model(a.model_given ? a.model : std::string()));
  if (sc.duration) spec.options.until = SimTime::at(*sc.duration);
  if (a.until >= 0) spec.options.until = SimTime::from_seconds(a.until);
  spec.report = in.report();
  spec.report.measured = in.read_measured();
  spec.title = sc.name;
  spec.source = in.source;
  spec.scheduler_config = sc.scheduler_config;
  spec.inputs = std::move(sc.inputs);
  return spec;
}

// `kubesim compare`: the scenario (or platform + workload) under every contender of
// --schedulers and seeds 1..N (study/compare.hpp); all input is read and every setup
// installed before anything runs, and nothing is written before every run succeeded.
int compare_command(const RunArgs& a, const std::string& schedulers, std::uint64_t seeds, unsigned threads) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (seeds < 1) throw InputError("", 0, "--seeds must be at least 1");
  std::vector<SchedulerSetup> policies = load_policies(a.policies);
  std::vector<Contender> contenders = parse_contenders(schedulers, policies);
  CompareSpec spec = compare_spec(a, read_run_inputs(input_files(a)));
  spec.contenders = std::move(contenders);
  spec.extra_setups = std::move(policies);
  spec.seeds = seeds;
  spec.threads = threads;
  spec.version = KUBESIM_VERSION;
  for (const auto& [reason, count] : spec.inputs.workload.skipped.by_reason)
    std::fprintf(stderr, "kubesim: skipped %llu job(s) of %s: %s\n", static_cast<unsigned long long>(count),
                 spec.inputs.workload.source.c_str(), reason.c_str());
  OutputDirectory out(a.out);
  TaskProgress progress("compare", "runs", a.quiet);
  spec.on_run_done = [&progress](std::size_t total) { progress.done_one(total); };
  const Comparison cmp = run_comparison(std::move(spec));
  progress.finish();
  const std::vector<ReportFile> files = build_comparison_files(cmp);
  write_report_files(out.staging(), files);
  out.commit();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!a.quiet) {
    std::printf("kubesim %s compare: %s, %zu scheduler(s) x %llu seed(s) = %zu runs on %u thread(s) in %.3f s wall\n",
                KUBESIM_VERSION, cmp.title.c_str(), cmp.contenders.size(), static_cast<unsigned long long>(cmp.seeds),
                cmp.runs.size(), cmp.threads_used, wall);
    for (const std::string& line : what_differed(cmp)) std::printf("- %s\n", line.c_str());
    std::printf("outputs: %s/compare.html, %s/{summary,queue_times}.csv, %s/*.svg, %s/<scheduler>/seed-<k>/\n",
                a.out.c_str(), a.out.c_str(), a.out.c_str(), a.out.c_str());
  }
  return 0;
}

}  // namespace

CompareCommand::CompareCommand(CLI::App& app) {
  RunArgs& cmp = args_;
  cmp.out = "results/compare";
  std::string& cmp_schedulers = schedulers_;
  std::uint64_t& cmp_seeds = seeds_;
  unsigned& cmp_threads = threads_;
  cmd_ = app.add_subcommand(
      "compare", "run one scenario under several scheduler setups and seeds; write one side-by-side report");
  CLI::App* cmp_cmd = cmd_;
  add_input_options(cmp_cmd, cmp,
                    {"scenario YAML (as for run)", "SimGrid/Batsim platform XML", "kubesim cluster YAML",
                     "Batsim v4 JSON workload", "SWF trace"});
  cmp_cmd->add_option("--schedulers", cmp_schedulers,
                      "comma-separated scheduler setups, each NAME or NAME=CONFIGFILE (" + setup_names() + ")")
      ->required();
  add_policy_option(cmp_cmd, cmp.policies);
  cmp_cmd->add_option("--seeds", cmp_seeds, "runs per scheduler, with seeds 1..N (N at most 100000)")
      ->check(CLI::Range(std::uint64_t{1}, static_cast<std::uint64_t>(kMaxSeeds)))
      ->capture_default_str();
  cmp_cmd->add_option("--jobs,-j", cmp_threads, "worker threads (0: one per hardware thread); outputs do not depend on it")
      ->capture_default_str();
  model_ = cmp_cmd->add_option("--model", cmp.model, "latency model: realistic, ideal or a YAML file")
                      ->capture_default_str();
  cmp_cmd->add_option("--out", cmp.out, "output directory")->capture_default_str();
  cmp_cmd->add_option("--until", cmp.until, "stop each run at this simulated time (seconds, at most 1e8)")->check(simulated_seconds());
  cmp_cmd->add_option("--swf-cpu-per-processor", cmp.swf_cpu, "cpu request per SWF processor (a quantity)")
      ->capture_default_str();
  cmp_cmd->add_option("--swf-memory", cmp.swf_memory, "SWF memory request: none, requested or used")
      ->check(CLI::IsMember({"none", "requested", "used"}))
      ->capture_default_str();
  cmp_cmd->add_option("--swf-processors", cmp.swf_processors, "what an SWF processor is: machines or cores")
      ->check(CLI::IsMember({"machines", "cores"}))
      ->capture_default_str();
  cmp_cmd->add_flag("--quiet", cmp.quiet, "print no summary");
  cmp_cmd->footer(
      "Writes <out>/compare.html (what differed, side-by-side tables, charts), summary.csv (mean, min, max over\n"
      "seeds per scheduler and tenant), queue_times.csv, the charts, and each run's outputs in\n"
      "<out>/<scheduler>/seed-<k>/ (as run writes them). NAME=CONFIGFILE passes the setup its configuration file\n"
      "(as run --scheduler NAME --scheduler-config CONFIGFILE) and labels it NAME+<file stem>.\n"
      "Examples:\n"
      "  kubesim compare --scenario examples/multitenant/e3.yaml \\\n"
      "      --schedulers default-scheduler,default-scheduler=examples/scheduler-config/most-allocated.yaml \\\n"
      "      --seeds 5 --out results/e3-compare\n"
      "  kubesim compare --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "      --workload data/batkube/spaced_200_delay170.json --schedulers default-scheduler --seeds 3");
}

int CompareCommand::run() {
  RunArgs& cmp = args_;
  cmp.model_given = model_->count() > 0;
  if (cmp.scenario.empty()) {
    if (cmp.platform.empty() && cmp.cluster.empty())
      throw InputError("", 0, "compare needs --scenario FILE, or a cluster (--platform/--cluster) and a workload");
    if (cmp.workload.empty() && cmp.swf.empty())
      throw InputError("", 0, "compare needs a workload: --workload FILE or --swf FILE");
  }
  return compare_command(cmp, schedulers_, seeds_, threads_);
}

}  // namespace kubesim
