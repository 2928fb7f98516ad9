#include "cli/policy_option.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"

#ifdef KUBESIM_EMBED_PYTHON
#include <pybind11/embed.h>

#include "bindings.hpp"  // python/: the module's definition, shared with the extension

namespace py = pybind11;

// The package's native module, defined here as in the extension; the loader puts it in
// sys.modules as kubesim._kubesim, so `import kubesim` uses this binary's simulator.
PYBIND11_EMBEDDED_MODULE(_kubesim_embedded, m) { kubesim::define_module(m); }
#endif

namespace kubesim {

void add_policy_option(CLI::App* cmd, std::vector<std::string>& specs) {
  cmd->add_option("--policy", specs,
                  "NAME=FILE:CLASS: a Python scheduling policy (a kubesim.Policy subclass in FILE) as the scheduler "
                  "setup NAME, for the pods of schedulerName NAME; unless --scheduler (or the scenario's schedulers) "
                  "names it, the policies schedule every pod (repeatable)");
}

#ifdef KUBESIM_EMBED_PYTHON
namespace {

// The directory of this executable (the build tree has python/kubesim beside it).
std::string executable_dir() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

// CPython has one interpreter per process: started at the first --policy and kept (never
// finalised: numpy and other extensions do not survive finalisation well); the GIL is released
// for the simulation's threads, each policy call takes it.
void start_interpreter() {
  static bool started = false;
  if (started) return;
  started = true;
  py::initialize_interpreter(false);
  {
    py::module_ sys = py::module_::import("sys");
    py::module_ setup = py::module_::import("importlib").attr("import_module")("_kubesim_embedded");
    py::dict globals;
    globals["module"] = setup;
    globals["fallback"] = executable_dir() + "/python";
    py::exec(R"(
import os, site, sys
venv = os.environ.get("VIRTUAL_ENV")
if venv:
    site.addsitedir(os.path.join(venv, "lib", "python%d.%d" % sys.version_info[:2], "site-packages"))
sys.modules["kubesim._kubesim"] = module
try:
    import kubesim
except ImportError:
    sys.path.insert(0, fallback)
    import kubesim
)",
             globals);
  }
  PyEval_SaveThread();  // released for good: policies take it per call
}

}  // namespace

std::vector<SchedulerSetup> load_policies(const std::vector<std::string>& specs) {
  if (specs.empty()) return {};
  start_interpreter();
  py::gil_scoped_acquire gil;
  py::dict policies;
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    const std::size_t colon = spec.rfind(':');
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos || colon < eq + 2 || colon + 1 == spec.size())
      throw InputError("", 0, "--policy: expected NAME=FILE:CLASS, got \"" + spec + "\"");
    const std::string name = spec.substr(0, eq), file = spec.substr(eq + 1, colon - eq - 1), cls = spec.substr(colon + 1);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file, 0, "no such policy file (in --policy " + spec + ")");
    if (policies.contains(name)) throw InputError("", 0, "--policy: \"" + name + "\" is given twice");
    try {
      py::dict g;
      g["path"] = file;
      g["cls"] = cls;
      py::exec(R"(
import importlib.util, os
spec = importlib.util.spec_from_file_location("kubesim_policy_" + os.path.splitext(os.path.basename(path))[0], path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
found = getattr(mod, cls, None)
)",
               g);
      if (g["found"].is_none()) throw InputError(file, 0, "no class " + cls + " in the policy file (in --policy " + spec + ")");
      policies[py::str(name)] = g["found"];
    } catch (py::error_already_set& e) {
      throw InputError(file, 0, "the policy file failed to load:\n" + python_error_text(e));
    }
  }
  return python_policy_setups(policies, true);
}

#else

std::vector<SchedulerSetup> load_policies(const std::vector<std::string>& specs) {
  if (!specs.empty())
    throw InputError("", 0, "--policy: this kubesim was built without Python (pybind11-dev and python3-dev at build time)");
  return {};
}

#endif

}  // namespace kubesim
