// Standard Workload Format (Parallel Workloads Archive, SWF v2.2,
// cs.huji.ac.il/labs/parallel/workload/swf.html): reading a trace, and running it directly as
// a Kubernetes workload the way Batkube's experiments did.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/resources.hpp"
#include "workload/workload.hpp"

namespace kubesim {

// One data line. -1 means "unknown" in every field. Counts and identifiers are integers;
// times and memory sizes may be fractional in some archive logs, so they are doubles.
struct SwfRecord {
  std::int64_t job_number = -1;               // 1
  double submit_time = -1;                    // 2, seconds
  double wait_time = -1;                      // 3, seconds
  double run_time = -1;                       // 4, seconds
  std::int64_t allocated_processors = -1;     // 5
  double average_cpu_time_used = -1;          // 6, seconds
  double used_memory = -1;                    // 7, KB per processor
  std::int64_t requested_processors = -1;     // 8
  double requested_time = -1;                 // 9, seconds
  double requested_memory = -1;               // 10, KB per processor
  std::int64_t status = -1;                   // 11: 1 completed, 0 failed, 5 cancelled, 2-4 partial
  std::int64_t user_id = -1;                  // 12
  std::int64_t group_id = -1;                 // 13
  std::int64_t executable_number = -1;        // 14
  std::int64_t queue_number = -1;             // 15
  std::int64_t partition_number = -1;         // 16
  std::int64_t preceding_job_number = -1;     // 17
  double think_time_from_preceding_job = -1;  // 18, seconds
  int line = 0;                               // 1-based line in the file
};

struct SwfTrace {
  // "; Key: value" header lines in file order (keys may repeat, e.g. Note, Queue). An indented
  // comment line right after a header line continues its value (joined with one space).
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<SwfRecord> records;  // in file order
  std::string source;              // file it was read from
};

// Blank lines are allowed; lines whose first non-blank character is ';' are comments. Every
// other line must hold exactly 18 whitespace-separated finite numbers, integral where the
// field is a count or an id; otherwise InputError(path, line, "expected 18 numeric fields,
// got N" / "field 4 (run time) is not a number: ..."). This is stricter than Batsim's
// converters, whose regular expression silently drops lines it cannot match.
SwfTrace read_swf(const std::string& path);

struct SwfOptions {
  std::string cpu_per_processor = "1";  // Kubernetes cpu quantity per SWF processor
  enum class Memory { kNone, kRequested, kUsed };
  Memory memory = Memory::kNone;  // kRequested: field 10; kUsed: field 7 (both KB per processor)
  // What a processor is (P = field 5, allocated, if > 0, else field 8, requested):
  //   kMachines (the default): a machine, as Batsim's `res` (its SWF converters write res =
  //     P; batsim docs/input-workload.rst: res is a number of machines): the job is a rigid
  //     parallel job of P pods, one per node (WorkloadJob::machines = P), each requesting
  //     cpu_per_processor and one processor's memory;
  //   kCores: cpu on one multi-core node, as Batkube ran SWF traces (batkube-test
  //     swf-to-json.go): one pod requesting P * cpu_per_processor and P processors' memory.
  enum class Processors { kMachines, kCores };
  Processors processors = Processors::kMachines;
};

// Each usable job becomes pods (see SwfOptions::processors) with one container "main" whose
// requests = limits = cpu_per_processor times the processors the pod holds, and when a memory
// mode is chosen field 10 (or 7) * 1024 bytes per processor (rounded up).
// run_time = field 4; walltime = field 9 if > 0, else none; exit code 0 (the SWF status is not
// replayed); job id = field 1; profile "swf<run time>"; requested_resources = P.
// submit = field 2 minus the smallest field 2 of the used jobs (Batsim's converters shift to 0
// as well), and jobs are sorted stably by submit. Unusable jobs are counted in
// Workload::skipped by reason: "run time <= 0 or unknown", "no processors (fields 5 and 8
// unknown or <= 0)", "negative submit time", "memory unknown" (only with a memory mode),
// "duplicate job number" (a later record reusing a used job's number, e.g. the partial-execution
// records of a checkpointed job: ids must stay unique).
// Pods with the same request share one PodTemplate. Throws InputError for a bad
// cpu_per_processor or out-of-range values.
Workload swf_to_workload(const SwfTrace& trace, const SwfOptions& options, ResourceNames& names);

}  // namespace kubesim
