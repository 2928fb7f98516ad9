// The definitions of core/test_paths.hpp (not tests): the only test source compiled with
// the checkout's absolute path (KUBESIM_SOURCE_DIR, set by CMakeLists.txt on this file).
#include "core/test_paths.hpp"

namespace kubesim::testing {

const std::string& source_dir() {
  static const std::string kDir = KUBESIM_SOURCE_DIR;
  return kDir;
}

const std::string& data_dir() {
  static const std::string kDir = source_dir() + "/data";
  return kDir;
}

}  // namespace kubesim::testing
