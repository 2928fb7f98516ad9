// kubesim command line: `run` simulates a cluster with a workload and writes Batsim-compatible
// outputs; `convert` turns SWF traces into Batsim workloads. Bad input gives one line on
// stderr naming file, line and problem, a non-zero exit, and no output files. Each subcommand
// has its file (cli/<name>_command.*); this one registers them, parses and dispatches.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "calibrate/calibrate_command.hpp"
#include "cli/bsp_command.hpp"
#include "cli/cli_conventions.hpp"
#include "cli/cli_reference.hpp"
#include "cli/compare_command.hpp"
#include "cli/convert_command.hpp"
#include "cli/run_command.hpp"
#include "cli/serve_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/version.hpp"
#include "core/error.hpp"
#include "core/error_text.hpp"

int main(int argc, char** argv) {
  using namespace kubesim;
  CLI::App app{"kubesim: a fast, deterministic simulator of Kubernetes clusters for scheduler studies"};
  app.require_subcommand(1);
  // Every example below uses files shipped in the repository (run from its root);
  // tests/run_help_examples.py runs each of them.
  const std::string version_text = std::string("kubesim ") + KUBESIM_VERSION +
                                   "\nTry (from the repository's root):\n"
                                   "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2";
  app.set_version_flag("--version", version_text);
  app.footer(
      "Examples (from the repository's root; the data is in data/, see data/README.md):\n"
      "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2\n"
      "  kubesim run --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "              --workload data/batkube/spaced_200_delay170.json --out results/spaced\n"
      "  kubesim run --cluster examples/nasa/cluster.yaml --swf data/swf/NASA-iPSC-1993-3.1-cln.swf \\\n"
      "              --swf-processors cores --model ideal --seed 3 --out results/nasa\n"
      "  kubesim compare --scenario examples/multitenant/e3.yaml \\\n"
      "      --schedulers default-scheduler,default-scheduler=examples/scheduler-config/most-allocated.yaml --seeds 3\n"
      "  kubesim convert swf-to-batsim data/swf/KIT-10-80.swf -o kit.json");

  // Registered in the order `kubesim --help` lists them.
  RunCommand run(app);
  ServeCommand serve(app);
  CompareCommand compare(app);
  calibrate::CalibrateCommand calibrate_cmd(app);
  calibrate::FidelityCommand fidelity_cmd(app);
  BspArgs bsp_args;
  auto* bsp_cmd = add_bsp_command(app, bsp_args);
  SweepCommand sweep(app, KUBESIM_VERSION);
  ConvertCommand convert(app);
  ReferenceCommands reference;
  add_reference_commands(app, reference);
  auto* version_cmd = app.add_subcommand("version", "print kubesim's version (as --version)");
  add_cli_conventions(app);

  try {
    app.parse(argc, argv);
    apply_default_output(app);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "kubesim: error: %s (see kubesim --help)\n",
                 one_line_message(parse_error_message(app, e.what())).c_str());
    return 2;
  }
  try {
    if (run.parsed()) return run.run();
    if (serve.parsed()) return serve.run();
    if (compare.parsed()) return compare.run();
    if (calibrate_cmd.parsed()) return calibrate_cmd.run();
    if (fidelity_cmd.parsed()) return fidelity_cmd.run();
    if (bsp_cmd->parsed()) return bsp_command(bsp_args);
    if (sweep.parsed()) return sweep.run();
    if (convert.parsed()) return convert.run();
    if (reference.completion->parsed() || reference.man->parsed()) return reference.run(app, KUBESIM_VERSION);
    if (version_cmd->parsed()) std::printf("%s\n", version_text.c_str());
  } catch (const InputError& e) {
    std::fprintf(stderr, "kubesim: error: %s\n", one_line_message(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubesim: error: %s\n", one_line_message(e.what()).c_str());
    return 1;
  }
  return 0;
}
