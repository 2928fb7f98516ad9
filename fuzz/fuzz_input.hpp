// Shared by the libFuzzer targets (fuzz/*_fuzz.cpp, built with -DKUBESIM_FUZZ=ON and clang):
// each target feeds the fuzzer's bytes to one reader, the way a user's file or an HTTP body
// reaches it. The contract under test: bad input gives kubesim::InputError (a one-line error
// naming file and line) and nothing else; any other exception, a crash, a sanitizer report,
// a hang or unbounded memory is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace kubesim::fuzz {

// Writes the input to a file named for this process (in /dev/shm when it exists), for the
// readers that take a path, and returns the path.
inline std::string input_file(const std::uint8_t* data, std::size_t size, const char* extension) {
  static const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                                  "/kubesim-fuzz-" + std::to_string(getpid()) + extension;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

// Runs `read`, accepting InputError as the one way to refuse input.
template <typename F>
int expect_input_errors_only(F&& read) {
  try {
    read();
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace kubesim::fuzz
