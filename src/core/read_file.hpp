// Reading an input file whole; a missing or unreadable file is an InputError naming it.
#pragma once

#include <string>

namespace kubesim {

std::string read_input_file(const std::string& path);

}  // namespace kubesim
