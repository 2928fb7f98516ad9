// The one check of a reader's refusal (core/error.hpp InputError): the tests of every input
// format (cluster YAML, SimGrid XML, Batsim JSON, SWF, manifests, scenarios) expect the same.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace kubesim::testing {

// Runs `read` and expects it to throw an InputError for `file` at `line` (0: no line) whose
// message is one line and contains `problem`. A failure names `problem`, so a table of cases
// shows which one failed.
void expect_input_error(const std::function<void()>& read, const std::string& file, int line, std::string_view problem);

}  // namespace kubesim::testing
