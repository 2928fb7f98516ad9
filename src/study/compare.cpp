#include "study/compare.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "core/split.hpp"
#include "report/tenant_report.hpp"
#include "scenario/scenario.hpp"
#include "setups/scheduler_setup.hpp"

namespace kubesim {

std::vector<Contender> parse_contenders(const std::string& list, std::span<const SchedulerSetup> extra) {
  std::vector<Contender> out;
  for (const std::string& entry : split(list, ',')) {
    if (entry.empty()) throw InputError("", 0, "--schedulers: empty entry in \"" + list + "\" (expected A,B,... or A=CONFIGFILE)");
    Contender c;
    c.setups = parse_setup_choices(entry, "--schedulers", extra);
    c.label = setups_label(c.setups);
    for (const Contender& other : out)
      if (other.label == c.label) throw InputError("", 0, "--schedulers: \"" + c.label + "\" is listed twice");
    out.push_back(std::move(c));
  }
  return out;
}

Duration comparison_sample_interval(const Workload& workload) {
  SimTime last = SimTime::zero();
  for (const WorkloadJob& j : workload.jobs) last = std::max(last, j.submit);
  const std::int64_t per_sample = (last - SimTime::zero()).micros() / 2000;
  const std::int64_t second = Duration::seconds(1).micros();
  return Duration::seconds(std::max<std::int64_t>(1, (per_sample + second - 1) / second));
}

namespace {

RunRecord run_one(SimulationInputs inputs, SimulationOptions options, const CompareSpec& spec, std::size_t contender,
                  std::uint64_t seed) {
  RunRecord r;
  r.contender = contender;
  r.seed = seed;
  options.seed = seed;
  const Contender& c = spec.contenders[contender];
  ReportSettings report = spec.report;
  report.parameters = setup_parameters(c.setups);
  report.setup = c.setups.size() == 1 ? c.setups[0].setup : "";
  if (c.setups.size() > 1) report.measured = {};  // several schedulers side by side: no real counterpart
  RunPipeline pipeline(std::move(inputs), options, &report, spec.version);
  pipeline.sim().run();
  std::vector<ReportFile> files = pipeline.finish();
  if (spec.keep_run_files) r.files = std::move(files);
  r.summary = pipeline.summary();
  r.scheduling_attempts = pipeline.sim().scheduling_attempts();
  r.never_scheduled = pipeline.sim().pending_pods();
  r.job_times = pipeline.job_times();
  const TenantTimeSeries& s = pipeline.tenants()->series();
  r.running_cores.reserve(s.times.size());
  for (std::size_t t = 0; t < s.times.size(); ++t) {
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < s.tenants.size(); ++k) sum += s.at(t, k).running;
    r.running_cores.push_back(static_cast<double>(sum) / 1000.0);
  }
  if (seed == 1) {
    TenantReportInput in{s, r.summary, pipeline.sim().store(), c.label, spec.title, seed, options.model.name};
    r.cores_chart = cores_running_chart(in);
  }
  return r;
}

}  // namespace

Comparison run_comparison(CompareSpec spec) {
  Comparison cmp;
  cmp.title = spec.title;
  cmp.source = spec.source;
  cmp.model = spec.options.model.name;
  cmp.contenders = spec.contenders;
  cmp.seeds = spec.seeds;
  cmp.interval = spec.report.sample_interval;
  cmp.capacity_milli = spec.report.capacity_milli;
  cmp.measured = spec.report.measured;
  std::mutex install_mutex;
  const auto install = [&](std::size_t contender) {
    const std::lock_guard<std::mutex> lock(install_mutex);
    SimulationInputs in = copy_inputs(spec.inputs, spec.scheduler_config);
    install_setups(spec.contenders[contender].setups, in, spec.extra_setups);
    return in;
  };
  // Every setup is installed before anything runs: a bad configuration file stops here. These
  // inputs serve the seed-1 runs; the other seeds install their own copy.
  std::vector<std::optional<SimulationInputs>> first;
  for (std::size_t c = 0; c < spec.contenders.size(); ++c) first.emplace_back(install(c));
  const std::size_t total = spec.contenders.size() * static_cast<std::size_t>(spec.seeds);
  cmp.runs.resize(total);
  std::vector<std::exception_ptr> errors(total);
  unsigned threads = spec.threads ? spec.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(total, 1)));
  cmp.threads_used = threads;
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < total; i = next++) {
      const std::size_t c = i / static_cast<std::size_t>(spec.seeds);
      const std::uint64_t seed = i % spec.seeds + 1;
      try {
        SimulationInputs in = seed == 1 ? std::move(*first[c]) : install(c);
        if (seed == 1) first[c].reset();
        cmp.runs[i] = run_one(std::move(in), spec.options, spec, c, seed);
        if (spec.on_run_done) spec.on_run_done(total);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (const RunRecord& r : cmp.runs)
    for (const TenantSummary& t : r.summary.tenants)
      if (std::find(cmp.tenants.begin(), cmp.tenants.end(), t.tenant) == cmp.tenants.end()) cmp.tenants.push_back(t.tenant);
  return cmp;
}

}  // namespace kubesim
