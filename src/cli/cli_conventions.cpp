#include "cli/cli_conventions.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace kubesim {
namespace {

// The options a subcommand reads its main input from, most specific first: the default
// output folder is named after the first one given.
constexpr const char* kInputOptions[] = {"--scenario", "--workload", "--swf",  "--openb-pods",
                                         "--measured", "--cluster",  "--platform", "--data"};

// Renamed options: {subcommand, old name, new name, note}. The old name stays a hidden alias.
struct Renamed {
  const char* command;
  const char* old_name;
  const char* new_name;
  const char* note;
};
constexpr Renamed kRenamed[] = {
    {"calibrate", "--jobs", "--measured", "use --measured (--jobs is a number of threads elsewhere)"},
    {"calibrate", "--since", "--since-time", "use --since-time (an RFC 3339 time)"},
    {"calibrate", "--until", "--until-time", "use --until-time (--until is in simulated seconds elsewhere)"},
};

constexpr const char* kOutputRule = "output folder (default: results/<subcommand>/<input name>)";

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
// of neighbours ("--otu" is one from "--out") each count 1.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The names a user may type in `cmd`: its visible options' names and its visible subcommands.
std::vector<std::string> known_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); }))
    names.push_back(sub->get_name());
  return names;
}

// The deepest subcommand the command line named (`app` itself when none).
const CLI::App& deepest_parsed(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); }))
    return deepest_parsed(*sub);
  return app;
}

template <typename Visit>
void for_each_command(CLI::App& app, const Visit& visit) {
  visit(app);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) for_each_command(*sub, visit);
}

}  // namespace

void add_option_alias(CLI::App* cmd, const std::string& alias_names, const std::string& target,
                      const std::string& deprecation) {
  CLI::Option* to = cmd->get_option(target);
  CLI::callback_t forward = [to, alias_names, deprecation](const CLI::results_t& values) {
    if (!deprecation.empty())
      std::fprintf(stderr, "kubesim: %s is deprecated: %s\n", alias_names.c_str(), deprecation.c_str());
    for (const std::string& v : values) to->add_result(v);
    to->run_callback();  // converts and checks the values as the target's own would be
    return true;
  };
  CLI::Option* alias = cmd->add_option(alias_names, forward, "alias of " + target);
  alias->type_size(to->get_type_size_min(), to->get_type_size_max());
  alias->expected(to->get_expected_min(), to->get_expected_max());
  alias->allow_extra_args(to->get_allow_extra_args());
  alias->type_name(to->get_type_name());
  alias->group("");  // hidden from --help, man pages and completion
}

void add_cli_conventions(CLI::App& app) {
  for (const Renamed& r : kRenamed)
    for (CLI::App* cmd : app.get_subcommands([&r](CLI::App* s) { return s->get_name() == r.command; }))
      if (cmd->get_option_no_throw(r.new_name) != nullptr) add_option_alias(cmd, r.old_name, r.new_name, r.note);
  for_each_command(app, [](CLI::App& cmd) {
    CLI::Option* out = cmd.get_option_no_throw("--out");
    if (out == nullptr) return;
    std::string aliases;
    for (const char* name : {"-o", "--output"})
      if (cmd.get_option_no_throw(name) == nullptr) aliases += (aliases.empty() ? "" : ",") + std::string(name);
    if (!aliases.empty()) add_option_alias(&cmd, aliases, "--out");
    if (out->get_default_str().rfind("results", 0) == 0) {
      out->description(kOutputRule);
      out->default_str("");
    }
  });
}

void apply_default_output(CLI::App& app) {
  CLI::App& cmd = const_cast<CLI::App&>(deepest_parsed(app));
  CLI::Option* out = cmd.get_option_no_throw("--out");
  if (out == nullptr || out->count() > 0 || out->get_description() != kOutputRule) return;
  std::string input;
  for (const char* name : kInputOptions) {
    const CLI::Option* opt = cmd.get_option_no_throw(name);
    if (opt != nullptr && opt->count() > 0) {
      input = opt->results().front();
      break;
    }
  }
  out->add_result(default_output_folder(cmd.get_name(), input));
  out->run_callback();
}

std::string default_output_folder(const std::string& subcommand, const std::string& input) {
  std::string folder = "results/" + subcommand;
  const std::string stem = std::filesystem::path(input).stem().string();
  if (!stem.empty()) folder += "/" + stem;
  return folder;
}

std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& name : names) {
    const std::size_t d = edit_distance(word, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string parse_error_message(const CLI::App& app, const std::string& what) {
  const CLI::App& cmd = deepest_parsed(app);
  const auto words = app.remaining();
  // `kubesim runn`: CLI11 says "A subcommand is required"; name the word it did not know.
  if (&cmd == &app && !words.empty() && words.front().rfind('-', 0) != 0)
    return "unknown command \"" + words.front() + "\"" + did_you_mean(app);
  return what + did_you_mean(app);
}

std::string did_you_mean(const CLI::App& app) {
  const CLI::App& cmd = deepest_parsed(app);
  for (const CLI::App* at = &cmd; at != nullptr; at = at->get_parent()) {
    for (std::string word : at->remaining()) {
      word = word.substr(0, word.find('='));
      if (word.empty() || word == "--") continue;
      const std::string name = closest_name(word, known_names(cmd));
      if (!name.empty() && name != word) return " (did you mean " + name + "?)";
    }
  }
  return {};
}

}  // namespace kubesim
