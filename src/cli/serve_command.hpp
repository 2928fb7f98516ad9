// `kubesim serve`: the Kubernetes API of a simulated cluster (api/) in front of the run that
// `kubesim run` would do (run_command.hpp), until a signal, --until or the workload's end.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/run_command.hpp"

namespace kubesim {

// Serves `sim` as `a` says. SIGINT/SIGTERM are taken by a thread of its own (blocked
// everywhere else, so the server's threads never see them). Returns false when clients still
// held connections at the end (the caller writes the outputs, then ends the process at once).
bool serve_simulation(Simulation& sim, const RunArgs& a);

class ServeCommand : public SimulationCommand {
 public:
  explicit ServeCommand(CLI::App& app);
  int run();
};

}  // namespace kubesim
