// The `kubesim` Python package's native part (_kubesim, pybind11; the module is defined in
// python/kubesim_extension.cpp and, for `kubesim run --policy`, inside the kubesim binary): runs a scenario or a
// comparison in process and returns its output files (the Python side turns the CSVs into
// pandas DataFrames), computes the BSP study's table, and exposes the study's RL environment
// (bsp/rl_env.hpp; on the simulated cluster: study/bsp_cluster_env.hpp) for
// python/kubesim/gym_env.py. Bad input raises kubesim.InputError
// (a ValueError) with the CLI's one-line message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "bindings.hpp"
#include "bsp/gang_run.hpp"
#include "bsp/rl_env.hpp"
#include "core/error.hpp"
#include "scenario/scenario.hpp"
#include "setups/scheduler_setup.hpp"
#include "study/bsp_cluster_env.hpp"
#include "study/compare.hpp"
#include "study/compare_report.hpp"
#include "study/run_pipeline.hpp"

namespace py = pybind11;

namespace kubesim {
namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

Files to_pairs(std::vector<ReportFile> files) {
  Files out;
  for (auto& f : files) out.emplace_back(std::move(f.name), std::move(f.content));
  return out;
}

SimulationOptions scenario_options(const Scenario& sc, std::uint64_t seed, const std::string& model) {
  SimulationOptions options;
  options.seed = seed;
  options.model = ModelConfig::load(!model.empty() ? model : sc.model.empty() ? "realistic" : sc.model);
  if (sc.duration) options.until = SimTime::at(*sc.duration);
  return options;
}

// As `kubesim run --scenario PATH --seed SEED [--model MODEL]` (outputs kept in memory).
Files run_scenario_files(const std::string& path, std::uint64_t seed, const std::string& model) {
  Scenario sc = read_scenario(path);
  const std::optional<bsp::GangSpec> gang = bsp::read_gang_spec(sc);
  if (sc.each_tenant_alone) throw InputError(path, 0, "eachTenantAlone scenarios run one simulation per tenant: use `kubesim run`");
  const SimulationOptions options = scenario_options(sc, seed, model);
  ReportSettings report{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, setup_parameters(sc.schedulers), {}, {}};
  if (!sc.schedulers.empty()) install_setups(sc.schedulers, sc.inputs);
  RunPipeline run(std::move(sc.inputs), options, &report, KUBESIM_VERSION);
  py::gil_scoped_release unlocked;
  run.run(gang ? &*gang : nullptr);
  return to_pairs(run.finish());
}

// As `kubesim compare --scenario PATH --schedulers LIST --seeds N` (in memory).
Files compare_scenario_files(const std::string& path, const std::string& schedulers, std::uint64_t seeds,
                             const std::string& model, unsigned threads, const py::dict& policies) {
  Scenario sc = read_scenario(path);
  if (sc.each_tenant_alone || bsp::read_gang_spec(sc)) throw InputError(path, 0, "compare runs plain scenarios (no eachTenantAlone, no bsp:)");
  CompareSpec spec;
  spec.extra_setups = python_policy_setups(policies);
  spec.contenders = parse_contenders(schedulers, spec.extra_setups);
  spec.seeds = seeds;
  spec.threads = threads;
  spec.version = KUBESIM_VERSION;
  spec.options = scenario_options(sc, 1, model);
  spec.report = ReportSettings{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
  spec.title = sc.name;
  spec.source = "scenario " + std::filesystem::path(path).filename().string();
  spec.inputs = std::move(sc.inputs);
  spec.scheduler_config = sc.scheduler_config;
  py::gil_scoped_release unlocked;
  const Comparison cmp = run_comparison(std::move(spec));
  return to_pairs(build_comparison_files(cmp));
}

// The study's table in ideal mode: (results.csv, steps.csv) as `kubesim bsp` writes them.
std::pair<std::string, std::string> study_table(const std::string& data_dir, const std::string& plan, const std::string& execute,
                                                int steps, double penalty, int horizon) {
  const bsp::StudyData data = bsp::load_study_data(data_dir);
  bsp::StudySettings settings = data.settings;
  if (steps > 0) settings.simulation_length = steps;
  if (penalty >= 0) settings.checkpoint_penalty = penalty;
  if (horizon > 0) settings.window_size = horizon;
  const auto results = bsp::run_study_table(data.model, data.trace(plan), data.trace(execute), settings);
  return {bsp::results_csv(results), bsp::steps_csv(results, data.model)};
}

// A step on the cluster as the info dict's entries (seconds).
py::dict step_info(const bsp::GangStepRecord& r) {
  py::dict d;
  d["superstep"] = r.superstep;
  d["penalty"] = r.penalty;
  d["deletion"] = r.deletion;
  d["gang_wait"] = r.gang_wait;
  d["startup"] = r.startup;
  d["start"] = r.start;
  d["end"] = r.end;
  d["replaced_pods"] = r.replaced_pods;
  return d;
}

// The environment with the data it reads.
class PyStudyEnv {
 public:
  PyStudyEnv(const std::string& data_dir, const bsp::EnvSettings& env, const std::string& plan, const std::string& execute,
             double penalty, int simulation_length)
      : data_(std::make_unique<bsp::StudyData>(bsp::load_study_data(data_dir))) {
    bsp::StudySettings settings = data_->settings;
    if (penalty >= 0) settings.checkpoint_penalty = penalty;
    if (simulation_length > 0) settings.simulation_length = simulation_length;
    env_ = std::make_unique<bsp::StudyEnv>(data_->model, data_->trace(plan), data_->trace(execute), settings, env);
  }
  bsp::StudyEnv& env() { return *env_; }
  std::vector<std::string> task_names() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < data_->model.task_count(); ++i) out.push_back(data_->model.task_name(i));
    return out;
  }
  double checkpoint_penalty() const { return data_->settings.checkpoint_penalty; }

 private:
  std::unique_ptr<bsp::StudyData> data_;
  std::unique_ptr<bsp::StudyEnv> env_;
};

}  // namespace
}  // namespace kubesim

void kubesim::define_module(py::module_& m) {
  using namespace kubesim;
  m.doc() = "kubesim native module: scenario runs, comparisons, Python policies, the scheduling environment, the BSP study";
  m.attr("__version__") = KUBESIM_VERSION;
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(e.what());
    }
  });
  m.def("run_scenario_files", &run_scenario_files, py::arg("path"), py::arg("seed") = 1, py::arg("model") = "",
        "Runs a scenario as `kubesim run --scenario`; returns [(file name, content)].");
  m.def("compare_scenario_files", &compare_scenario_files, py::arg("path"), py::arg("schedulers"), py::arg("seeds") = 5,
        py::arg("model") = "", py::arg("threads") = 1, py::arg("policies") = py::dict(), "Runs `kubesim compare --scenario`; returns [(file name, content)].");
  m.def("study_table", &study_table, py::arg("data"), py::arg("plan") = "forecasts", py::arg("execute") = "actual",
        py::arg("steps") = 0, py::arg("penalty") = -1.0, py::arg("horizon") = 0,
        "The BSP study's table in ideal mode: (results.csv, steps.csv) text.");
  py::class_<bsp::EnvSettings>(m, "EnvSettings")
      .def(py::init<>())
      .def_readwrite("window_size", &bsp::EnvSettings::window_size)
      .def_readwrite("num_actions", &bsp::EnvSettings::num_actions)
      .def_readwrite("default_reward", &bsp::EnvSettings::default_reward)
      .def_readwrite("default_time_step", &bsp::EnvSettings::default_time_step)
      .def_readwrite("duration_low", &bsp::EnvSettings::duration_low)
      .def_readwrite("duration_high", &bsp::EnvSettings::duration_high);
  py::class_<PyStudyEnv>(m, "StudyEnv")
      .def(py::init<const std::string&, const bsp::EnvSettings&, const std::string&, const std::string&, double, int>(),
           py::arg("data"), py::arg("settings"), py::arg("plan") = "forecasts", py::arg("execute") = "actual",
           py::arg("checkpoint_penalty") = -1.0, py::arg("simulation_length") = 0)
      .def("reset", [](PyStudyEnv& e) { return e.env().reset(); })
      .def("step",
           [](PyStudyEnv& e, int action) {
             auto s = e.env().step(action);
             return py::make_tuple(s.observation, s.reward, s.done, s.superstep);
           })
      .def_property_readonly("time_step", [](PyStudyEnv& e) { return e.env().time_step(); })
      .def_property_readonly("current_config", [](PyStudyEnv& e) { return e.env().current_config(); })
      .def_property_readonly("task_names", &PyStudyEnv::task_names);
  py::class_<BspClusterEnv>(m, "ClusterEnv")
      .def(py::init<const std::string&, const std::string&, const bsp::EnvSettings&>(), py::arg("scenario"),
           py::arg("model") = "", py::arg("settings"))
      .def("reset",
           [](BspClusterEnv& e, std::uint64_t seed) {
             py::gil_scoped_release unlocked;
             return e.reset(seed);
           },
           py::arg("seed"))
      .def("step",
           [](BspClusterEnv& e, int action) {
             BspClusterEnv::Step s;
             {
               py::gil_scoped_release unlocked;
               s = e.step(action);
             }
             return py::make_tuple(s.observation, s.reward, s.done, s.truncated, step_info(s.record));
           })
      .def("finish",
           [](BspClusterEnv& e) {
             py::gil_scoped_release unlocked;
             return to_pairs(e.finish());
           },
           "After the episode: the run's output files [(name, content)] as `kubesim run` writes them.")
      .def_property_readonly("launch", [](BspClusterEnv& e) { return step_info(e.launch_record()); })
      .def_property_readonly("time_step", &BspClusterEnv::time_step)
      .def_property_readonly("current_config", &BspClusterEnv::current_config)
      .def_property_readonly("task_names", &BspClusterEnv::task_names);
  define_policy_bindings(m);
  define_env_bindings(m);
}
