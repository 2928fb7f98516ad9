// `kubesim convert swf-to-batsim`: an SWF trace as a Batsim delay workload
// (workload/swf_to_batsim.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "workload/swf_to_batsim.hpp"

namespace kubesim {

class ConvertCommand {
 public:
  explicit ConvertCommand(CLI::App& app);
  bool parsed() const { return swf_to_batsim_->parsed(); }
  int run();

 private:
  CLI::App* swf_to_batsim_;
  std::string swf_in_, json_out_;
  SwfConvertOptions options_;
  std::int64_t platform_size_ = -1;
};

}  // namespace kubesim
