// Man pages and shell completion generated from the command tree itself (the options'
// names, types, defaults and help texts as --help shows them), so they cannot drift from the
// CLI: `kubesim man --out DIR` and `kubesim completion bash` (the build runs both; cmake
// --install and the Debian package install their output).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kubesim {

struct ManPage {
  std::string file_name;  // kubesim.1, kubesim-run.1, kubesim-convert-swf-to-batsim.1, ...
  std::string text;       // roff (man(7) macros)
};

// One page for `app` and one per visible subcommand (nested ones included). `version` goes
// in each page's footer; the pages carry no date, so they are the same in every build.
std::vector<ManPage> man_pages(const CLI::App& app, const std::string& version);

// A bash completion script for `app`: subcommands, then each subcommand's options; file names
// for option values and positional arguments.
std::string bash_completion(const CLI::App& app);

// Registers `kubesim completion bash` (prints the script) and the hidden `kubesim man --out
// DIR` (writes the pages); returns the two subcommands for dispatch.
struct ReferenceCommands {
  CLI::App* completion = nullptr;
  CLI::App* man = nullptr;
  std::string shell, man_out;
  int run(const CLI::App& app, const std::string& version) const;
};
void add_reference_commands(CLI::App& app, ReferenceCommands& commands);

}  // namespace kubesim
