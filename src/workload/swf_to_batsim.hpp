// SWF -> Batsim delay workload, reproducing batsim tools/swf_to_batsim_workload_delay.py
// (oar-team/batsim, the version with the walltime filter and sort_keys) so that kubesim users
// can produce the same files Batsim users do, without Python.
//
// Per SWF record, as the script does:
//   nb_res   = int(job_size_factor * int(float(field 5)))  (the script's -jsf '1*nb_res'; we
//              truncate to an integer so that "res" stays an integer);
//   run_time = field 4;  submit = max(0, field 2)  (the script clamps negative submit times
//              to 0 before its "submit >= 0" test, so that test never rejects a job);
//   walltime = max(job_walltime_factor * run_time, field 9), or field 9 with given_walltime_only;
//   kept iff nb_res > 0 and walltime > run_time and run_time > 0 and submit >= 0;
//   profile  = int((run_time // job_grain + 1) * job_grain)  (always rounded up: +1 s for an
//              integral run time at grain 1), named str(profile), {"type":"delay","delay":profile}.
// Jobs are renumbered from 0 in file order; "subtime" = submit - min(submit of kept jobs);
// top-level "nb_res" = platform_size, or the largest kept job. Keys are sorted as by
// json.dump(sort_keys=True), numbers are written as Python writes them (ints as ints, floats
// as repr(): "0.0", "2902.0", "1e+16"), and strings with ensure_ascii escapes.
// The script's "date" key (datetime.now()) is deliberately omitted so that the output is
// byte-identical across runs; "version" (0), "command" (command_line) and "description" are
// kept. indent < 0 gives json.dump's compact form (", " and ": " separators); indent >= 0
// pretty-prints like json.dump(indent=N) ("," and ": ", N spaces per level, 0 = newlines only).
// Discarded records are counted in *skipped (if not null) by reason. Throws InputError when no
// record can be converted (the script fails on max([])) or platform_size < 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "workload/swf.hpp"
#include "workload/workload.hpp"

namespace kubesim {

struct SwfConvertOptions {
  double job_walltime_factor = 2;             // -jwf
  bool given_walltime_only = false;           // -gwo
  double job_grain = 1;                       // -jg (must be > 0)
  std::optional<std::int64_t> platform_size;  // -pf
  double job_size_factor = 1;                 // -jsf '<factor>*nb_res'
  int indent = -1;                            // -i; negative = None (compact)
  std::string command_line;                   // the "command" value
};

std::string swf_to_batsim_json(const SwfTrace& trace, const SwfConvertOptions& options, SkippedJobs* skipped);

// Python's repr() of a float (the shortest round-trip digits; exponent form when the decimal
// exponent is < -4 or >= 16), as json.dump writes floats. Exposed for tests.
std::string python_float_repr(double v);

}  // namespace kubesim
