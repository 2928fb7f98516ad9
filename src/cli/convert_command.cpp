#include "cli/convert_command.hpp"

#include <cstdio>

#include "core/atomic_file.hpp"
#include "workload/swf.hpp"

namespace kubesim {

ConvertCommand::ConvertCommand(CLI::App& app) {
  auto* convert = app.add_subcommand("convert", "convert workload formats");
  convert->require_subcommand(1);
  convert->footer("Example:\n  kubesim convert swf-to-batsim data/swf/KIT-10-80.swf -o kit.json");
  SwfConvertOptions& conv = options_;
  auto* s2b = convert->add_subcommand("swf-to-batsim",
                                      "SWF trace to Batsim delay workload (as batsim's tools/swf_to_batsim_workload_delay.py)");
  swf_to_batsim_ = s2b;
  s2b->add_option("trace", swf_in_, "input SWF file")->required()->check(CLI::ExistingFile);
  s2b->add_option("--out", json_out_, "output JSON file")->required();
  s2b->add_option("--job-walltime-factor,--jwf", conv.job_walltime_factor, "walltime = max(factor * run time, requested)")
      ->capture_default_str();
  s2b->add_flag("--given-walltime-only,--gwo", conv.given_walltime_only, "walltime = requested time only");
  s2b->add_option("--job-grain,--jg", conv.job_grain, "round delays up to this grain (seconds)")->capture_default_str();
  s2b->add_option("--platform-size,--pf", platform_size_, "nb_res (default: the largest job)");
  s2b->add_option("--job-size-factor", conv.job_size_factor, "nb_res of a job = factor * allocated processors")
      ->capture_default_str();
  s2b->add_option("-i,--indent", conv.indent, "indentation of the JSON output (-1: compact)")->capture_default_str();
  s2b->footer("Example:\n  kubesim convert swf-to-batsim data/swf/KIT-10-80.swf -o kit.json");
}

int ConvertCommand::run() {
  if (platform_size_ > 0) options_.platform_size = platform_size_;
  options_.command_line = "kubesim convert swf-to-batsim " + swf_in_ + " --out " + json_out_;
  SkippedJobs skipped;
  const std::string json = swf_to_batsim_json(read_swf(swf_in_), options_, &skipped);
  write_file_atomically(json_out_, json);
  for (const auto& [reason, count] : skipped.by_reason)
    std::fprintf(stderr, "kubesim: skipped %llu job(s): %s\n", static_cast<unsigned long long>(count), reason.c_str());
  return 0;
}

}  // namespace kubesim
