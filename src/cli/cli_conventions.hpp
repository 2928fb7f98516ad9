// The conventions every subcommand shares (docs/reference/running.md, "The same options everywhere"), applied to the whole command
// tree after the subcommands have registered their options, so that a subcommand only names
// its options and never repeats these rules:
//  - `--out` names where a subcommand writes; `-o` and `--output` are hidden aliases of it.
//  - One default output rule: a subcommand that writes a folder and is given no `--out` writes
//    results/<subcommand>/<input name> (the main input file's name without its extension).
//  - Renamed options keep their old name as a hidden alias that prints a deprecation note.
//  - An argument that matches nothing gets "did you mean ...?" with the closest known name.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kubesim {

// A hidden option `alias_names` (e.g. "--jobs") of `cmd` whose values go to its option
// `target` (e.g. "--measured"), as if given under the target's name. With a non-empty
// `deprecation`, using the alias prints "kubesim: ALIAS is deprecated: DEPRECATION" on stderr.
void add_option_alias(CLI::App* cmd, const std::string& alias_names, const std::string& target,
                      const std::string& deprecation = {});

// The renamed options' old names as deprecated aliases; then in `app` and every subcommand
// below it that has an `--out` option: `-o` and `--output` become hidden aliases of it (where
// not taken), and when its default is a folder under results/ (run, serve, compare, fidelity)
// its help states the default output rule instead.
void add_cli_conventions(CLI::App& app);

// After a successful parse: gives the parsed subcommand's `--out` its default by the rule
// above when none was given (a no-op for subcommands whose --out has no default).
void apply_default_output(CLI::App& app);

// results/<subcommand>/<stem of input>, e.g. ("run", "examples/multitenant/e2.yaml") ->
// "results/run/e2"; "results/<subcommand>" when `input` is empty.
std::string default_output_folder(const std::string& subcommand, const std::string& input);

// The name in `names` closest to `word` (edit distance, a transposition counting one, at most
// a third of its length and at least 2; the first of equals), or "" when none is that close.
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

// After a parse error: " (did you mean NAME?)" for the first argument that matched nothing in
// the deepest subcommand given, or "" when there is no close name.
std::string did_you_mean(const CLI::App& app);

// The one-line message for a parse error `what`: an unknown subcommand named as such, then
// did_you_mean's hint.
std::string parse_error_message(const CLI::App& app, const std::string& what);

}  // namespace kubesim
