// `--policy NAME=FILE:CLASS` of `kubesim run` and `kubesim compare`: a Python scheduling policy
// (kubesim.Policy, python/kubesim/policy.py) loaded into an interpreter embedded in this
// binary, as a setup named NAME beside the built-in ones (setups/policy_setup.hpp). The
// interpreter is the one kubesim was built against (Debian's python3); it sees the packages of
// an active virtual environment ($VIRTUAL_ENV) and $PYTHONPATH. An exception raised by the
// policy ends the command with the Python traceback on stderr, exit status 1, and no output.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "setups/scheduler_setup.hpp"

namespace kubesim {

// Adds the repeatable --policy option storing into `specs`.
void add_policy_option(CLI::App* cmd, std::vector<std::string>& specs);

// The setups of `specs` (each NAME=FILE:CLASS; the class is instantiated for every run). Empty
// specs: none, and no interpreter is started. Throws InputError for a malformed entry, a
// missing file, a file that fails to import (its traceback in the message), a missing class,
// or a kubesim built without Python.
std::vector<SchedulerSetup> load_policies(const std::vector<std::string>& specs);

}  // namespace kubesim
