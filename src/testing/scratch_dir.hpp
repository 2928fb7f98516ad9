// A scratch folder per test, removed with everything in it when the object goes: the one way
// tests write input files. It is named after the running test (suite, name, process id) under
// gtest's TempDir, so parallel ctest runs of different tests never share one.
//   ScratchDir dir;  const std::string path = dir.write("cluster.yaml", text);
#pragma once

#include <string>
#include <string_view>

namespace kubesim::testing {

class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // The folder, absolute, without a trailing slash.
  const std::string& path() const { return path_; }
  // path()/name.
  std::string file(std::string_view name) const;
  // Writes `text` (bytes as given) to path()/name, creating sub-folders; returns its path.
  std::string write(std::string_view name, std::string_view text) const;

 private:
  std::string path_;
};

}  // namespace kubesim::testing
