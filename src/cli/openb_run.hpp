// `kubesim run --openb-nodes N.csv --openb-pods P.csv --openb-protocol --policy P --seed S`:
// the FGD paper's protocol on an openb trace (study/openb/openb_protocol.hpp), its outputs in
// the authors' formats and report.html (study/openb/openb_results.hpp).
#pragma once

#include <string>

#include "cli/run_command.hpp"

namespace kubesim {

// Registers --openb-nodes, --openb-pods, --openb-protocol, --policy and --tune on `run`.
void add_openb_options(CLI::App* cmd, RunArgs& a);

// Runs the protocol run that `a` names and writes its outputs into a.out (all or nothing).
// Throws InputError on bad input (nothing written).
int run_openb_protocol(const RunArgs& a);

}  // namespace kubesim
