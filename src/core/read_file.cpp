#include "core/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace kubesim {

std::string read_input_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  // One read into a string of the file's size (workloads run to megabytes), then whatever a
  // file that is not a regular one (a pipe, /dev/stdin) still has.
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0 && in) {
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<std::size_t>(in.gcount()));
  }
  in.clear();
  std::ostringstream rest;
  rest << in.rdbuf();
  text += rest.str();
  return text;
}

}  // namespace kubesim
