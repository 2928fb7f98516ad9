#include "sweep/sweep.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"
#include "core/split.hpp"
#include "core/yaml_input.hpp"
#include "report/batsim_csv.hpp"
#include "report/svg_chart.hpp"
#include "scenario/scenario.hpp"
#include "setups/policy_setup.hpp"
#include "study/compare.hpp"
#include "study/openb/openb_results.hpp"
#include "study/run_inputs.hpp"
#include "study/run_pipeline.hpp"
#include "sweep/sweep_report.hpp"

namespace kubesim {

namespace fs = std::filesystem;

namespace {

// Everything a cell needs but its seed: read and checked once per configuration.
struct Configuration {
  SimulationInputs inputs;          // no setup installed
  std::string scheduler_config;     // kube-scheduler's configuration before setups
  std::vector<SetupChoice> setups;  // installed on each cell's copy
  SimulationOptions options;
  ReportSettings report;
  std::shared_ptr<const OpenbTrace> openb;  // a plan of openb traces: the cell's trace
};

std::string result_header(const SweepPlan& plan) {
  std::string h = "cell";
  for (const std::string& a : plan.axis_names()) h += "," + csv_field(a);
  h += ",tenant";
  for (const char* m : kSweepMetrics) h += std::string(",") + m;
  return h + "\n";
}

// The scenario of `cell` with the plan's scenario overrides set in a copy of its document;
// an error they cause names the plan's line of the first of them.
RunInputs overridden_scenario(const SweepPlan& plan, const SweepCell& cell, std::map<std::size_t, YAML::Node>& documents) {
  const SweepInput& in = plan.inputs[cell.input];
  auto [it, fresh] = documents.try_emplace(cell.input);
  if (fresh) it->second = load_yaml_file(in.files.scenario);
  YAML::Node doc = YAML::Clone(it->second);
  std::string described;
  int line = 0;
  for (std::size_t k = 0; k < plan.overrides.size(); ++k) {
    const SweepOverride& o = plan.overrides[k];
    if (o.model) continue;
    std::string why;
    YAML::Node target = find_yaml_path(doc, o.keys, &why);
    if (!target) throw InputError(plan.path, o.line, "override path \"" + o.path + "\" does not exist in " + in.label + ": " + why);
    target = YAML::Clone(o.values[cell.overrides[k]]);
    described += (described.empty() ? "" : ", ") + o.path + " = " + o.labels[cell.overrides[k]];
    if (line == 0) line = o.line;
  }
  try {
    return read_run_inputs(in.files, doc);
  } catch (const InputError& e) {
    if (described.empty()) throw;
    throw InputError(plan.path, line, "with " + described + ": " + e.what());
  }
}

// The configuration of `cell` (its seed aside): its inputs read as `kubesim run` reads them.
Configuration configure(const SweepPlan& plan, const SweepCell& cell, std::map<std::size_t, YAML::Node>& documents) {
  const SweepInput& in = plan.inputs[cell.input];
  if (in.openb()) {
    Configuration cfg;
    cfg.openb = std::make_shared<const OpenbTrace>(read_openb_trace(in.openb_nodes, in.openb_pods));
    return cfg;
  }
  RunInputs run = in.files.scenario.empty() ? read_run_inputs(in.files) : overridden_scenario(plan, cell, documents);
  Scenario& sc = run.scenario;
  if (sc.each_tenant_alone)
    throw InputError(in.files.scenario, 0, "sweep runs the tenants together: a scenario with eachTenantAlone needs `kubesim run`");
  Configuration cfg;
  if (sc.duration) cfg.options.until = SimTime::at(*sc.duration);
  cfg.report = run.report();
  cfg.scheduler_config = sc.scheduler_config;
  cfg.setups = sc.schedulers;
  cfg.inputs = std::move(sc.inputs);
  if (!plan.schedulers[cell.schedulers].setups.empty()) cfg.setups = plan.schedulers[cell.schedulers].setups;
  else cfg.setups = with_policies(std::move(cfg.setups), plan.policies);  // no axis: as run's --policy
  cfg.options.model = ModelConfig::load(run.model(plan.models[cell.model]));
  YAML::Node model_overrides(YAML::NodeType::Map);
  for (std::size_t k = 0; k < plan.overrides.size(); ++k)
    if (plan.overrides[k].model) model_overrides[plan.overrides[k].keys[0]] = plan.overrides[k].values[cell.overrides[k]];
  if (model_overrides.size() > 0) cfg.options.model = ModelConfig::apply(std::move(cfg.options.model), model_overrides, plan.path);
  return cfg;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "host";
  return buf;
}

// result.csv of one finished run: one row per tenant.
std::string result_rows(const SweepPlan& plan, const SweepCell& cell, const RunSummary& summary) {
  std::string prefix = cell.id;
  for (const std::string& v : plan.axis_values(cell)) prefix += "," + csv_field(v);
  std::string out = result_header(plan);
  const auto num = [](double v) { return svg::num(v, 6); };
  for (const TenantSummary& t : summary.tenants) {
    out += prefix + "," + csv_field(t.tenant) + "," + std::to_string(t.jobs) + "," + std::to_string(t.completed) + "," +
           std::to_string(t.queue_times_s.size()) + "," + std::to_string(t.failed_pods) + "," + num(t.average_queue_s) + "," + num(t.total_queue_s) + "," +
           num(t.makespan_s) + "," + num(summary.utilisation) + "," + num(summary.end.to_seconds()) + "\n";
  }
  return out;
}

}  // namespace

void write_sweep_manifest(const SweepPlan& plan, const std::string& out) {
  nlohmann::ordered_json j;
  j["name"] = plan.name;
  j["axes"] = plan.axis_names();
  j["header"] = result_header(plan);
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const SweepCell& c : plan.cells) cells.push_back({{"id", c.id}, {"values", plan.axis_values(c)}});
  j["cells"] = std::move(cells);
  make_output_directory(out);
  write_file_atomically(out + "/sweep.json", j.dump(1) + "\n");
}

namespace {

// The cells of the chunk (all without one) whose folder does not exist yet, in plan order;
// stats.cells and stats.skipped counted.
std::vector<std::size_t> cells_to_run(const SweepPlan& plan, const SweepRunOptions& opt, const fs::path& cells_dir,
                                      SweepRunStats& stats) {
  std::size_t first = 0, last = plan.cells.size();
  if (opt.chunk) {
    if (*opt.chunk >= plan.chunks())
      throw InputError("", 0, "--cells " + std::to_string(*opt.chunk) + ": the plan has chunks 0.." + std::to_string(plan.chunks() - 1) +
                                  " (" + std::to_string(plan.cells.size()) + " cells, " + std::to_string(plan.cells_per_task) + " per chunk)");
    first = *opt.chunk * plan.cells_per_task;
    last = std::min(last, first + plan.cells_per_task);
  }
  stats.cells = last - first;
  std::vector<std::size_t> todo;
  for (std::size_t i = first; i < last; ++i) {
    if (fs::is_directory(cells_dir / plan.cells[i].id)) {
      ++stats.skipped;
    } else {
      todo.push_back(i);
    }
  }
  return todo;
}

// Every configuration the cells `todo` need, read and installed once (installs check the
// setups' configuration files) before anything runs; config_of_cell[i]: cell i's.
std::vector<Configuration> configure_cells(const SweepPlan& plan, const std::vector<std::size_t>& todo,
                                           std::vector<std::size_t>& config_of_cell) {
  std::map<std::string, std::size_t> config_of_key;
  std::vector<Configuration> configs;
  config_of_cell.assign(plan.cells.size(), 0);
  std::map<std::size_t, YAML::Node> documents;
  for (std::size_t i : todo) {
    const std::string key = plan.configuration_key(plan.cells[i]);
    auto [it, fresh] = config_of_key.try_emplace(key, configs.size());
    if (fresh) {
      configs.push_back(configure(plan, plan.cells[i], documents));
      if (configs.back().openb) {
        // One trace read for all cells of the same input (the policies share it).
        for (std::size_t k = 0; k + 1 < configs.size(); ++k)
          if (configs[k].openb && plan.inputs[plan.cells[i].input].openb_pods == configs[k].openb->pods_file) {
            configs.back().openb = configs[k].openb;
            break;
          }
        config_of_cell[i] = it->second;
        continue;
      }
      SimulationInputs check = copy_inputs(configs.back().inputs, configs.back().scheduler_config);
      if (!configs.back().setups.empty()) install_setups(configs.back().setups, check, plan.policies);
    }
    config_of_cell[i] = it->second;
  }
  return configs;
}

std::int64_t thread_cpu_nanos() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// What the cells' runs share: the plan, where they go, and the serialised installs.
struct CellRunner {
  CellRunner(const SweepPlan& p, const SweepRunOptions& o, fs::path dir, std::string suffix)
      : plan(p), opt(o), cells_dir(std::move(dir)), tmp_suffix(std::move(suffix)) {}

  const SweepPlan& plan;
  const SweepRunOptions& opt;
  fs::path cells_dir;
  std::string tmp_suffix;  // "-HOST-PID": a temporary folder of this process
  bool tenant_files = false;
  std::mutex install_mutex;
  std::atomic<std::int64_t> run_micros{0}, run_cpu_nanos{0};

  // Runs `cell` and writes its folder: complete or absent (a temporary folder renamed into
  // place once every file is written).
  void run(const SweepCell& cell, const Configuration& cfg) {
    if (cfg.openb) return write_cell(cell, run_openb(cell, *cfg.openb));
    SimulationInputs in;
    {
      const std::lock_guard<std::mutex> lock(install_mutex);
      in = copy_inputs(cfg.inputs, cfg.scheduler_config);
      if (!cfg.setups.empty()) install_setups(cfg.setups, in, plan.policies);
    }
    SimulationOptions options = cfg.options;
    options.seed = cell.seed;
    ReportSettings report = cfg.report;
    report.parameters = setup_parameters(cfg.setups);
    report.tenant_files = cfg.report.tenant_files && tenant_files;
    // Measured for the benchmark only; nothing depends on it.
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t cpu_start = thread_cpu_nanos();
    RunPipeline pipeline(std::move(in), options, &report, opt.version);
    pipeline.sim().run();
    run_cpu_nanos += thread_cpu_nanos() - cpu_start;
    run_micros += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    std::vector<ReportFile> files = pipeline.finish(plan.collect, RunPipeline::FileForm::kStreamed);
    files.push_back({"result.csv", result_rows(plan, cell, pipeline.summary())});
    write_cell(cell, files);
  }

  // One protocol run (study/openb/openb_protocol.hpp): the authors' discrete rows, the
  // per-pod files when the plan collects timeseries, and result.csv (tenant "openb": jobs =
  // pods arrived, completed and started = placed, failed_pods = dropped, utilisation = the
  // GPU allocation ratio after the last pod).
  std::vector<ReportFile> run_openb(const SweepCell& cell, const OpenbTrace& trace) {
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t cpu_start = thread_cpu_nanos();
    const openb::Policy policy = plan.schedulers[cell.schedulers].openb_policy;
    const openb::ProtocolResult r = openb::run_protocol(trace, {policy, cell.seed, plan.openb_tune});
    run_cpu_nanos += thread_cpu_nanos() - cpu_start;
    run_micros += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    const openb::RunLabels labels{plan.inputs[cell.input].label, std::string(openb::policy_label(policy)),
                                  openb::tune_label(plan.openb_tune), std::to_string(cell.seed)};
    std::vector<ReportFile> files;
    const std::vector<std::string> headers = openb::discrete_headers();
    const std::vector<std::string> rows = openb::discrete_rows(r, labels);
    for (std::size_t i = 0; i < rows.size(); ++i) files.push_back({openb::kDiscreteFiles[i], headers[i] + rows[i]});
    if (std::find(plan.collect.begin(), plan.collect.end(), "timeseries") != plan.collect.end()) {
      files.push_back({"analysis_allo.csv", openb::allo_steps_csv(r)});
      files.push_back({"analysis_frag.csv", openb::frag_steps_csv(r)});
    }
    std::string prefix = cell.id;
    for (const std::string& v : plan.axis_values(cell)) prefix += "," + csv_field(v);
    const double alloc = r.steps.empty() ? 0 : static_cast<double>(r.steps.back().used_gpu_milli) / static_cast<double>(r.total_gpus * 1000);
    files.push_back({"result.csv", result_header(plan) + prefix + ",openb," + std::to_string(r.pods) + "," + std::to_string(r.placed) + "," +
                                       std::to_string(r.placed) + "," + std::to_string(r.dropped) + ",0,0,0," + svg::num(alloc, 6) + ",0\n"});
    return files;
  }

  // Writes the cell's folder: complete or absent (a temporary folder renamed into place once
  // every file is written).
  void write_cell(const SweepCell& cell, const std::vector<ReportFile>& files) {
    const fs::path tmp = cells_dir / (".tmp-" + cell.id + tmp_suffix);
    fs::remove_all(tmp);
    write_report_files(tmp.string(), files);
    std::error_code ec;
    fs::rename(tmp, cells_dir / cell.id, ec);
    if (ec) {
      fs::remove_all(tmp);
      if (!fs::is_directory(cells_dir / cell.id))
        throw std::runtime_error("cannot rename " + tmp.string() + " to " + (cells_dir / cell.id).string() + ": " + ec.message());
    }
  }
};

}  // namespace

void check_sweep_cells(const SweepPlan& plan) {
  std::vector<std::size_t> all(plan.cells.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::size_t> config_of_cell;
  configure_cells(plan, all, config_of_cell);
}

void remove_stale_cell_folders(const std::string& out) {
  const std::string mine = "-" + host_name() + "-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(out) / "cells", ec)) {
    const std::string name = entry.path().filename().string();
    const std::size_t at = name.rfind(mine);
    if (name.rfind(".tmp-", 0) != 0 || at == std::string::npos) continue;
    const auto pid = parse_int(name.substr(at + mine.size()));
    // Another host's folder, or a live process's, stays (Slurm tasks share cells/).
    if (!pid || *pid <= 0 || *pid > INT32_MAX || (::kill(static_cast<pid_t>(*pid), 0) != 0 ? errno != ESRCH : true)) continue;
    fs::remove_all(entry.path(), ec);
  }
}

SweepRunStats run_sweep_cells(const SweepPlan& plan, const SweepRunOptions& opt) {
  SweepRunStats stats;
  const fs::path cells_dir = fs::path(opt.out) / "cells";
  const std::vector<std::size_t> todo = cells_to_run(plan, opt, cells_dir, stats);
  std::vector<std::size_t> config_of_cell;
  const std::vector<Configuration> configs = configure_cells(plan, todo, config_of_cell);
  if (opt.before_writing) opt.before_writing();
  fs::create_directories(cells_dir);
  CellRunner runner(plan, opt, cells_dir, "-" + host_name() + "-" + std::to_string(::getpid()));
  // The tenant recorder always runs (result.csv needs its summary); its files only when collected.
  for (const char* kind : {"timeseries", "queue", "summary", "charts", "report"})
    runner.tenant_files = runner.tenant_files || std::find(plan.collect.begin(), plan.collect.end(), kind) != plan.collect.end();

  std::mutex progress_mutex;
  std::size_t done = 0, running = 0;
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(todo.size());
  const auto report_progress = [&](int started, int finished) {
    const std::lock_guard<std::mutex> lock(progress_mutex);
    running = running + static_cast<std::size_t>(started) - static_cast<std::size_t>(finished);
    done += static_cast<std::size_t>(finished);
    if (opt.progress) opt.progress(stats.skipped + done, running, todo.size() - done - running);
  };
  const auto worker = [&] {
    for (std::size_t t = next++; t < todo.size(); t = next++) {
      report_progress(1, 0);
      try {
        runner.run(plan.cells[todo[t]], configs[config_of_cell[todo[t]]]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
      report_progress(0, 1);
    }
  };
  unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(todo.size(), 1)));
  stats.threads = threads;
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned k = 0; k < threads; ++k) pool.emplace_back(worker);
    for (auto& th : pool) th.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  stats.ran = todo.size();
  stats.run_seconds = static_cast<double>(runner.run_micros.load()) / 1e6;
  stats.run_cpu_seconds = static_cast<double>(runner.run_cpu_nanos.load()) / 1e9;
  return stats;
}

namespace {

// A plan of openb traces: the cells' rows of the authors' three discrete files, merged as their
// merge_*_discrete.py scripts order them (by workload, policy, tune and seed folder names),
// and openb.html, their curves.
void merge_openb_discrete(const std::string& out, const nlohmann::json& manifest) {
  std::vector<std::string> merged_files;
  for (const char* name : openb::kDiscreteFiles) {
    std::string header;
    std::vector<std::pair<std::vector<std::string>, std::string>> rows;
    for (const auto& c : manifest.at("cells")) {
      const fs::path file = fs::path(out) / "cells" / c.at("id").get<std::string>() / name;
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) return;  // not an openb plan
      const std::string text = read_input_file(file.string());
      const std::size_t eol = text.find('\n');
      if (header.empty()) header = text.substr(0, eol + 1);
      const std::string row = text.substr(eol + 1);
      std::vector<std::string> key = split(row, ',');
      key.resize(4);
      rows.emplace_back(std::move(key), row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string merged = header;
    for (const auto& r : rows) merged += r.second;
    write_file_atomically(out + "/" + name, merged);
    merged_files.push_back(std::move(merged));
  }
  write_file_atomically(out + "/openb.html", openb::discrete_report_html(manifest.at("name").get<std::string>(), merged_files));
}

}  // namespace

SweepMerge merge_sweep(const std::string& out) {
  const std::string manifest_path = out + "/sweep.json";
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(read_input_file(manifest_path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(manifest_path, 0, std::string("expected the sweep's cell list (written by kubesim sweep): ") + e.what());
  }
  SweepTable table;
  table.name = manifest.at("name").get<std::string>();
  table.axes = manifest.at("axes").get<std::vector<std::string>>();
  const std::string header = manifest.at("header").get<std::string>();
  std::string results = header;
  std::vector<std::string> missing;
  SweepMerge m;
  for (const auto& c : manifest.at("cells")) {
    ++m.cells;
    const std::string id = c.at("id").get<std::string>();
    const fs::path file = fs::path(out) / "cells" / id / "result.csv";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      missing.push_back(id);
      continue;
    }
    const std::string text = read_input_file(file.string());
    if (text.compare(0, header.size(), header) != 0)
      throw InputError(file.string(), 1, "expected the header of this sweep's results (was the cell written by another plan?)");
    results.append(text, header.size(), std::string::npos);
    table.cells.push_back({id, c.at("values").get<std::vector<std::string>>(), {}});
    for (const std::string& line : split(text.substr(header.size()), '\n')) {
      if (line.empty()) continue;
      table.cells.back().rows.push_back(split_csv_record(line));
      ++m.rows;
    }
  }
  if (!missing.empty())
    throw InputError(out, 0, std::to_string(missing.size()) + " of " + std::to_string(m.cells) +
                                 " cells are not finished (first: cells/" + missing.front() + "); run them, then merge again");
  write_file_atomically(out + "/results.csv", results);
  write_file_atomically(out + "/sweep.html", sweep_html(table));
  merge_openb_discrete(out, manifest);
  return m;
}

}  // namespace kubesim
