#include "cli/cli_reference.hpp"

#include <cstdio>
#include <filesystem>

#include "core/atomic_file.hpp"

namespace kubesim {
namespace {

bool visible(const CLI::Option* o) { return !o->get_group().empty(); }
bool visible_command(const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); }

std::vector<const CLI::App*> subcommands(const CLI::App& cmd) { return cmd.get_subcommands(visible_command); }

// "kubesim run" for run, "kubesim convert swf-to-batsim" for a nested one.
// (The top command is "kubesim" whatever argv[0] was.)
std::string command_path(const CLI::App& cmd, char separator) {
  if (cmd.get_parent() == nullptr) return "kubesim";
  return command_path(*cmd.get_parent(), separator) + separator + cmd.get_name();
}

// roff text: backslashes and hyphens escaped, no line starting with a control character.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

// "-o, --out" style: every name of `opt` (a positional: its name in capitals).
std::string option_names(const CLI::Option* opt) {
  if (opt->get_positional()) return opt->get_name(true);
  std::string names;
  for (const std::string& s : opt->get_snames()) names += (names.empty() ? "-" : ", -") + s;
  for (const std::string& l : opt->get_lnames()) names += (names.empty() ? "--" : ", --") + l;
  return names;
}

bool takes_value(const CLI::Option* opt) { return opt->get_expected_max() > 0 || opt->get_positional(); }

std::string option_entry(const CLI::Option* opt) {
  std::string entry = ".TP\n\\fB" + roff(option_names(opt)) + "\\fR";
  if (takes_value(opt) && !opt->get_positional()) entry += " \\fI" + roff(opt->get_type_name()) + "\\fR";
  entry += "\n" + roff(opt->get_description());
  if (!opt->get_default_str().empty()) entry += " (default: " + roff(opt->get_default_str()) + ")";
  if (opt->get_required()) entry += " (required)";
  return entry + "\n";
}

ManPage man_page(const CLI::App& cmd, const std::string& version) {
  const std::string name = command_path(cmd, '-');
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string t = ".TH " + roff(upper) + " 1 \"\" \"kubesim " + version + "\" \"kubesim manual\"\n";
  t += ".SH NAME\n" + roff(name) + " \\- " + roff(cmd.get_description()) + "\n";
  t += ".SH SYNOPSIS\n.B " + roff(command_path(cmd, ' ')) + "\n";
  const auto subs = subcommands(cmd);
  t += subs.empty() ? "[\\fIOPTIONS\\fR]" : "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]";
  for (const CLI::Option* opt : cmd.get_options(visible))
    if (opt->get_positional()) t += " \\fI" + roff(opt->get_name(true)) + "\\fR";
  t += "\n.SH OPTIONS\n";
  for (const CLI::Option* opt : cmd.get_options(visible)) t += option_entry(opt);
  if (!subs.empty()) {
    t += ".SH COMMANDS\n";
    for (const CLI::App* sub : subs)
      t += ".TP\n\\fB" + roff(sub->get_name()) + "\\fR\n" + roff(sub->get_description()) + " (see \\fB" +
           roff(command_path(*sub, '-')) + "\\fR(1))\n";
  }
  if (!cmd.get_footer().empty()) t += ".SH NOTES AND EXAMPLES\n.nf\n" + roff(cmd.get_footer()) + "\n.fi\n";
  t += ".SH SEE ALSO\n\\fBkubesim\\fR(1), \\fBkubesim \\-\\-help\\fR, README.md of the kubesim repository\n";
  return {name + ".1", t};
}

void collect_pages(const CLI::App& cmd, const std::string& version, std::vector<ManPage>& pages) {
  pages.push_back(man_page(cmd, version));
  for (const CLI::App* sub : subcommands(cmd)) collect_pages(*sub, version, pages);
}

// The choices of an option checked with IsMember ("TEXT:{on,off}" -> "on off"), or "".
std::string choices(const CLI::Option* opt) {
  const std::string type = opt->get_type_name();
  const auto open = type.find('{');
  const auto close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::string words = type.substr(open + 1, close - open - 1);
  for (char& c : words)
    if (c == ',') c = ' ';
  return words;
}

// One `case` arm per command: its options, subcommands and value-taking options.
void completion_arms(const CLI::App& cmd, const std::string& path, std::string& arms, std::string& paths) {
  std::string options, values, choice_arms;
  for (const CLI::Option* opt : cmd.get_options(visible)) {
    if (opt->get_positional()) continue;
    std::vector<std::string> names;
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    const std::string words = choices(opt);
    for (const std::string& name : names) {
      options += " " + name;
      if (takes_value(opt)) values += " " + name;
      if (!words.empty()) choice_arms += "        " + name + ") choices=\"" + words + "\" ;;\n";
    }
  }
  std::string subs;
  for (const CLI::App* sub : subcommands(cmd)) {
    subs += " " + sub->get_name();
    paths += "|" + path + "/" + sub->get_name();
  }
  arms += "    \"" + path + "\")\n      options=\"" + options.substr(options.empty() ? 0 : 1) + "\"\n      subcommands=\"" +
          subs.substr(subs.empty() ? 0 : 1) + "\"\n      values=\" " + values.substr(values.empty() ? 0 : 1) +
          " \"\n      case \"$prev\" in\n" + choice_arms + "      esac ;;\n";
  for (const CLI::App* sub : subcommands(cmd)) completion_arms(*sub, path + "/" + sub->get_name(), arms, paths);
}

}  // namespace

std::vector<ManPage> man_pages(const CLI::App& app, const std::string& version) {
  std::vector<ManPage> pages;
  collect_pages(app, version, pages);
  return pages;
}

std::string bash_completion(const CLI::App& app) {
  std::string arms, paths;
  completion_arms(app, "", arms, paths);
  return "# bash completion for kubesim (written by `kubesim completion bash`; do not edit)\n"
         "_kubesim() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path=\"\" i\n"
         "  local options subcommands values choices=\"\"\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case \"$path/${COMP_WORDS[i]}\" in\n"
         "      " + paths.substr(1) + ") path=\"$path/${COMP_WORDS[i]}\" ;;\n"
         "    esac\n"
         "  done\n"
         "  case \"$path\" in\n" + arms +
         "  esac\n"
         "  if [[ -n $choices ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$choices\" -- \"$cur\"))\n"
         "  elif [[ $values == *\" $prev \"* ]]; then\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  elif [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -W \"$subcommands\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _kubesim kubesim\n";
}

void add_reference_commands(CLI::App& app, ReferenceCommands& commands) {
  commands.completion = app.add_subcommand("completion", "print a shell completion script: source <(kubesim completion bash)");
  commands.completion->add_option("shell", commands.shell, "the shell")->check(CLI::IsMember({"bash"}))->required();
  commands.man = app.add_subcommand("man", "write the man pages (kubesim.1, kubesim-run.1, ...) into --out");
  commands.man->add_option("--out", commands.man_out, "output folder")->required();
  commands.man->group("");  // the build's tool (CMakeLists.txt), not a user's command
}

int ReferenceCommands::run(const CLI::App& app, const std::string& version) const {
  if (completion->parsed()) {
    std::fputs(bash_completion(app).c_str(), stdout);
    return 0;
  }
  std::filesystem::create_directories(man_out);
  for (const ManPage& page : man_pages(app, version)) write_file_atomically(man_out + "/" + page.file_name, page.text);
  return 0;
}

}  // namespace kubesim
