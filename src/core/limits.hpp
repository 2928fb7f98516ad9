// The upper bounds of kubesim's inputs (docs/reference/inputs.md, "Limits"). Inputs beyond them are refused
// with one line naming the file, the line and the bound, before any output is written:
// beyond them a run would exhaust memory or take hours, never finish usefully.
#pragma once

#include <cstdint>

namespace kubesim {

// Any simulated instant or span: a scenario's times and durations, a workload's submit
// times and run times, --until. About 3.2 years, longer than the longest public trace of
// the Parallel Workloads Archive; SimTime itself would hold 292,000 years.
inline constexpr double kMaxSimulatedSeconds = 1e8;
// Any latency, period or delay of a latency model (its distributions' mean and standard
// deviation): one day.
inline constexpr double kMaxLatencySeconds = 86'400;
// Nodes of one cluster (a scenario's, a cluster YAML's or a SimGrid platform's).
inline constexpr std::int64_t kMaxNodes = 1'000'000;
// compare --seeds.
inline constexpr std::int64_t kMaxSeeds = 100'000;
// Cells of one sweep plan (the product of its axes).
inline constexpr std::int64_t kMaxSweepCells = 100'000;

}  // namespace kubesim
