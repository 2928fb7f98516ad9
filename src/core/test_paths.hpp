// Where the tests find the repository's files (included only by *_test.cpp files).
// The paths are compiled into one translation unit (test_paths_test.cpp) so that every
// other test object is the same in any checkout and build directory (ccache reuses it).
#pragma once

#include <string>

namespace kubesim::testing {

// The repository's root, absolute, without a trailing slash.
const std::string& source_dir();
// The shipped data (data/, see data/README.md).
const std::string& data_dir();

}  // namespace kubesim::testing
