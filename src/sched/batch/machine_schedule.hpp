// batsched's machine-level scheduling, for rigid parallel jobs (a job of `res` = P needs P
// whole machines at once): the Schedule of time slices of available machines and the
// make_decisions of its three classic policies, as batsched 1.4.0 runs them for Batsim.
// Read in the stored copies of batsched (Lucas-Doctorate-Project/batsched, hpc/batsched4):
//   src/schedule.cpp    Schedule::add_job_first_fit_after_time_slice (anchor slices, the
//                       intersection of the available machines of the window's slices,
//                       split of the last slice at begin + walltime), update_first_slice
//                       (the first slice begins now), remove_job_internal (machines given
//                       back, equal slices merged);
//   src/locality.cpp    BasicResourceSelector::fit: `available.left(n)`, the n lowest
//                       machine ids of the window's available set;
//   src/queue.cpp       FCFSOrder: release date (the decision date at which the job was
//                       queued), then job id compared as strings; list::sort is stable;
//   src/algo/fcfs.cpp, easy_bf.cpp, conservative_bf.cpp   make_decisions (below);
//   src/json_workload.cpp  walltime += rjms_delay (main.cpp: 5 s by default).
// Slices here keep no job lists: two adjacent slices with the same available machines give
// the same first fit whether merged or not (a job that fits from the later one fits from the
// earlier one, which is tried first), so merging is only a speed-up. Times are BatschedTime:
// batsched's exact rationals of the doubles Batsim sends (see there).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.hpp"

namespace kubesim {

// A date or duration as batsched holds it. Batsim prints every date and walltime of its
// messages with "%f" (6 decimals: the integer microseconds kubesim computes), batsched parses
// each into a double (rapidjson: the significand's integer divided by 10^6, so the double
// nearest to the decimal) and computes with exact rationals of those doubles
// (exact_numbers.hpp: Rational = boost mpq_rational; schedule.cpp: end = begin + walltime,
// walltime = double + rjms_delay in json_workload.cpp). So a slice may end 2^-46 s after
// another although both print the same microsecond, and a job that "fits exactly" in decimal
// may not fit in batsched (the oracle's seed 1 under conservative_bf: at 179.704, 179.704 + 59
// > 101.704 + 137 in doubles' rationals). Every such double >= 1 us is a multiple of 2^-72 and
// below 2^47 s, so a fixed point of 2^-80 s in 128 bits holds them and their sums exactly.
class BatschedTime {
 public:
  constexpr BatschedTime() = default;
  static BatschedTime of(std::int64_t micros);
  static BatschedTime of(SimTime t) { return of(t.micros()); }
  static BatschedTime of(Duration d) { return of(d.micros()); }
  // schedule.cpp's 1e19 horizon: after every date.
  static constexpr BatschedTime never() { return BatschedTime(kNever); }
  constexpr bool is_never() const { return v_ == kNever; }
  constexpr BatschedTime operator+(BatschedTime o) const { return BatschedTime(v_ + o.v_); }
  constexpr BatschedTime operator-(BatschedTime o) const { return BatschedTime(v_ - o.v_); }
  constexpr auto operator<=>(const BatschedTime&) const = default;

 private:
  static constexpr __int128 kNever = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
  constexpr explicit BatschedTime(__int128 v) : v_(v) {}
  __int128 v_ = 0;  // units of 2^-80 s
};

// A set of machine ids (0..n-1), as batsched's IntervalSet is used here.
class MachineSet {
 public:
  MachineSet() = default;
  explicit MachineSet(std::uint32_t machines) : words_((machines + 63) / 64, 0) {}
  static MachineSet all(std::uint32_t machines);
  void insert(std::uint32_t id) { words_[id >> 6] |= std::uint64_t{1} << (id & 63); }
  bool contains(std::uint32_t id) const { return (words_[id >> 6] >> (id & 63)) & 1u; }
  std::uint32_t size() const;
  void intersect(const MachineSet& o);
  void remove(const MachineSet& o);
  void add(const MachineSet& o);
  // IntervalSet::left(n): the n lowest ids (all of them if fewer).
  MachineSet left(std::uint32_t n) const;
  std::vector<std::uint32_t> ids() const;
  // IntervalSet::to_string_hyphen(" "): "0-3 7 9-10".
  std::string to_string() const;
  bool operator==(const MachineSet& o) const = default;

 private:
  std::vector<std::uint64_t> words_;
};

class MachineSchedule {
 public:
  enum class Policy : std::uint8_t { kFcfs, kEasy, kConservative };

  struct Job {
    std::string id;           // the order's tie-break (batsched compares job ids as strings)
    std::uint32_t size = 1;   // machines
    Duration walltime;        // as requested (rjms_delay is added here); zero: none
    SimTime submitted;        // the job's subtime
  };
  // Batsim's order of the jobs of one JOB_SUBMITTED message (batsim src/jobs.cpp
  // job_comparator_subtime_number): subtime, then job id as a string.
  static void sort_released(std::vector<std::pair<std::uint32_t, Job>>& released);
  struct Start {
    std::uint32_t key;
    MachineSet machines;
  };

  // rjms_delay: batsched's --rjms_delay, added to every walltime the plan uses.
  MachineSchedule(Policy policy, std::uint32_t machines, SimTime start = SimTime::zero(),
                  Duration rjms_delay = Duration());
  std::uint32_t machines() const { return machines_; }
  // Room for the jobs of keys below `keys`, so the per-job table is not moved as jobs arrive.
  void reserve(std::uint32_t keys) { allocs_.reserve(keys); }

  // One call of make_decisions at `date` with the jobs that ended and were released since the
  // previous call (Batsim's JOB_COMPLETED and JOB_SUBMITTED events, in message order). Started
  // jobs are appended to `starts`, rejected ones (larger than the machine, or without walltime
  // under the backfilling policies) to `rejects`, in decision order.
  void make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                      const std::vector<std::pair<std::uint32_t, Job>>& released, std::vector<Start>& starts,
                      std::vector<std::uint32_t>& rejects);

  std::size_t queue_size() const { return queue_.size(); }
  std::uint64_t attempts() const { return attempts_; }

 private:
  struct Slice {
    BatschedTime begin;
    BatschedTime end;  // never(): batsched's 1e19 horizon
    MachineSet available;
    std::uint32_t count = 0;
  };
  struct Alloc {
    bool in_schedule = false;
    bool running = false;
    BatschedTime begin, end;
    BatschedTime walltime;  // job.walltime + rjms_delay
    MachineSet machines;
    Job job;
    SimTime release;
  };
  struct FirstFit {
    bool started_in_first_slice = false;
    BatschedTime begin;
  };

  Alloc& alloc(std::uint32_t key);
  // Schedule::add_job_first_fit: places the job (it must not be in the schedule).
  FirstFit add_first_fit(std::uint32_t key);
  void remove(std::uint32_t key);  // Schedule::remove_job (no-op when not in it)
  void update_first_slice(BatschedTime now);
  std::size_t split(std::size_t slice, BatschedTime date);  // index of the slice beginning at date
  void sort_queue();
  void start(std::uint32_t key, std::vector<Start>& starts);  // the job leaves the queue, running
  void fcfs(SimTime date, bool job_ended, const std::vector<std::uint32_t>& fresh, std::vector<Start>& starts);
  void easy(SimTime date, bool job_ended, const std::vector<std::uint32_t>& fresh,
            std::uint32_t priority_before, std::vector<Start>& starts);
  void conservative(SimTime date, bool job_ended, const std::vector<std::uint32_t>& fresh,
                    std::vector<Start>& starts);

  Policy policy_;
  std::uint32_t machines_;
  BatschedTime rjms_delay_;
  std::vector<Slice> slices_;
  std::vector<Alloc> allocs_;          // by key
  std::vector<std::uint32_t> queue_;   // waiting jobs, batsched's queue order
  MachineSet fcfs_available_;          // fcfs.cpp keeps its own available set (no schedule)
  std::uint64_t attempts_ = 0;
};

}  // namespace kubesim
