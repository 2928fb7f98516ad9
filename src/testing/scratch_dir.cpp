#include "testing/scratch_dir.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kubesim::testing {

namespace {

// "<suite>_<test>" with the '/' of parameterised names replaced: one path component.
std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "_" + info->name() : "no_test";
  for (char& c : name)
    if (c == '/') c = '_';
  return name;
}

}  // namespace

ScratchDir::ScratchDir() {
  std::filesystem::path base(::testing::TempDir());
  path_ = (base / ("kubesim_" + std::to_string(::getpid()) + "_" + current_test_name())).string();
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;  // a destructor must not throw; a leftover folder is harmless
  std::filesystem::remove_all(path_, ignored);
}

std::string ScratchDir::file(std::string_view name) const { return path_ + "/" + std::string(name); }

std::string ScratchDir::write(std::string_view name, std::string_view text) const {
  const std::string p = file(name);
  std::filesystem::create_directories(std::filesystem::path(p).parent_path());
  std::ofstream(p, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
  return p;
}

}  // namespace kubesim::testing
