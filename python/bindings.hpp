// The pieces of the `_kubesim` native module (python/kubesim_module.cpp), shared with the
// kubesim binary, which embeds an interpreter for `run --policy` (src/cli/policy_option.cpp)
// and registers the same module there.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "setups/policy_setup.hpp"
#include "study/run_inputs.hpp"

#ifndef KUBESIM_VERSION
#define KUBESIM_VERSION "0.1.0"
#endif

namespace kubesim {

// A run's input files as the Python functions name them (empty: not given); SWF jobs as
// `kubesim run`'s defaults make them.
InputFiles python_input_files(const std::string& scenario, const std::string& platform, const std::string& cluster,
                              const std::string& workload, const std::string& swf, const std::string& scheduler_config);

// Everything of the module: scenario runs and comparisons, the BSP study, policies, the
// scheduling environment.
void define_module(pybind11::module_& m);
// kubesim.Policy's machinery: SchedulingView, run_files (runs with Python policies).
void define_policy_bindings(pybind11::module_& m);
// The scheduling environment and its vectorised form (SchedulingEnv, VectorSchedulingEnv).
void define_env_bindings(pybind11::module_& m);

// A setup per entry of {schedulerName: policy}: a policy is a class (instantiated for every
// run) or an object with schedule(view) (shared by the runs). Holds the Python objects with
// the GIL taken when they are copied or freed, so runs on other threads may hold them.
// `traceback_errors`: an exception raised by a policy becomes a std::runtime_error whose message
// is "policy NAME raised an exception:" and the formatted Python traceback (for the CLI);
// otherwise it propagates as the Python exception itself.
std::vector<SchedulerSetup> python_policy_setups(const pybind11::dict& policies, bool traceback_errors = false);
// Python's own text of the exception (traceback.format_exception), without the final newline.
std::string python_error_text(pybind11::error_already_set& e);

}  // namespace kubesim
