#include "sched/batch/machine_schedule.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/error.hpp"

namespace kubesim {

BatschedTime BatschedTime::of(std::int64_t micros) {
  KUBESIM_ASSERT(micros >= 0);
  if (micros == 0) return BatschedTime();
  // The double nearest to micros / 10^6 (both operands exact, the quotient correctly rounded),
  // as rapidjson parses Batsim's "%f", then that double exactly: mantissa * 2^(e - 53).
  int e = 0;
  const double mantissa = std::frexp(static_cast<double>(micros) / 1e6, &e);
  const auto m = static_cast<std::int64_t>(std::ldexp(mantissa, 53));
  const int shift = e - 53 + 80;
  KUBESIM_ASSERT(shift >= 0 && shift <= 127 - 53);  // 1 us .. 2^47 s
  return BatschedTime(static_cast<__int128>(m) << shift);
}

MachineSet MachineSet::all(std::uint32_t machines) {
  MachineSet s(machines);
  for (std::uint32_t i = 0; i < machines; ++i) s.insert(i);
  return s;
}

std::uint32_t MachineSet::size() const {
  std::uint32_t n = 0;
  for (const std::uint64_t w : words_) n += static_cast<std::uint32_t>(std::popcount(w));
  return n;
}

void MachineSet::intersect(const MachineSet& o) {
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] &= o.words_[i];
}

void MachineSet::remove(const MachineSet& o) {
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] &= ~o.words_[i];
}

void MachineSet::add(const MachineSet& o) {
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= o.words_[i];
}

MachineSet MachineSet::left(std::uint32_t n) const {
  MachineSet out;
  out.words_.assign(words_.size(), 0);
  for (std::size_t i = 0; i < words_.size() && n > 0; ++i) {
    std::uint64_t w = words_[i];
    while (w != 0 && n > 0) {
      const std::uint64_t low = w & (~w + 1);
      out.words_[i] |= low;
      w ^= low;
      --n;
    }
  }
  return out;
}

std::vector<std::uint32_t> MachineSet::ids() const {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < words_.size(); ++i)
    for (std::uint64_t w = words_[i]; w != 0; w &= w - 1)
      out.push_back(static_cast<std::uint32_t>(i * 64 + static_cast<std::size_t>(std::countr_zero(w))));
  return out;
}

std::string MachineSet::to_string() const {
  std::string out;
  const std::vector<std::uint32_t> v = ids();
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    out += std::to_string(v[i]);
    if (j > i) out += '-' + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

MachineSchedule::MachineSchedule(Policy policy, std::uint32_t machines, SimTime start, Duration rjms_delay)
    : policy_(policy),
      machines_(machines),
      rjms_delay_(BatschedTime::of(rjms_delay)),
      fcfs_available_(MachineSet::all(machines)) {
  KUBESIM_ASSERT(machines > 0);
  slices_.push_back(Slice{BatschedTime::of(start), BatschedTime::never(), MachineSet::all(machines), machines});
}

MachineSchedule::Alloc& MachineSchedule::alloc(std::uint32_t key) {
  if (key >= allocs_.size()) allocs_.resize(key + 1);
  return allocs_[key];
}

std::size_t MachineSchedule::split(std::size_t i, BatschedTime date) {
  // Schedule::split_slice: only when date falls strictly inside the slice.
  Slice& s = slices_[i];
  if (!(s.begin < date) || !(s.end.is_never() || date < s.end)) return date == s.begin ? i : i + 1;
  Slice second = s;
  second.begin = date;
  s.end = date;
  slices_.insert(slices_.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(second));
  return i + 1;
}

MachineSchedule::FirstFit MachineSchedule::add_first_fit(std::uint32_t key) {
  Alloc& a = allocs_[key];
  const std::uint32_t n = a.job.size;
  ++attempts_;
  // A job without walltime is "infinite": it must fit until the horizon.
  const bool infinite = !(a.job.walltime > Duration());
  auto length_reaches = [&](BatschedTime begin, BatschedTime end) {
    return end.is_never() || (!infinite && end - begin >= a.walltime);
  };
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    if (slices_[i].count < n) continue;  // not an anchor point
    MachineSet available = slices_[i].available;
    std::size_t last = i;  // the slice in which the window ends
    bool found = length_reaches(slices_[i].begin, slices_[i].end);
    for (std::size_t j = i + 1; !found && j < slices_.size() && slices_[j].count >= n; ++j) {
      available.intersect(slices_[j].available);
      if (available.size() < n) break;
      if (length_reaches(slices_[i].begin, slices_[j].end)) {
        found = true;
        last = j;
      }
    }
    if (!found) continue;
    // BasicResourceSelector::fit: the lowest machine ids.
    a.machines = available.left(n);
    a.begin = slices_[i].begin;
    a.end = infinite ? BatschedTime::never() : a.begin + a.walltime;
    a.in_schedule = true;
    const bool first = i == 0;
    if (!a.end.is_never()) split(last, a.end);
    for (std::size_t k = i; k <= last; ++k) {
      slices_[k].available.remove(a.machines);
      slices_[k].count -= n;
    }
    return FirstFit{first, a.begin};
  }
  KUBESIM_ASSERT(false);  // the last slice is infinite and has every machine eventually
  return FirstFit{};
}

void MachineSchedule::remove(std::uint32_t key) {
  Alloc& a = allocs_[key];
  if (!a.in_schedule) return;
  a.in_schedule = false;
  for (Slice& s : slices_) {
    if (!a.end.is_never() && !(s.begin < a.end)) break;
    if (!s.end.is_never() && !(a.begin < s.end)) continue;
    s.available.add(a.machines);
    s.count += a.job.size;
  }
}

void MachineSchedule::update_first_slice(BatschedTime now) {
  // Schedule::update_first_slice: the first slice begins now (a slice ending now stays, of
  // length zero, as in batsched). Slices ending before now only remain here because slices
  // are not merged on removal (batsched merges slices holding the same jobs): dropping them
  // is that merge.
  std::size_t drop = 0;
  while (drop + 1 < slices_.size() && !slices_[drop].end.is_never() && slices_[drop].end < now) ++drop;
  if (drop > 0) slices_.erase(slices_.begin(), slices_.begin() + static_cast<std::ptrdiff_t>(drop));
  slices_.front().begin = now;
}

void MachineSchedule::sort_queue() {
  // FCFSOrder: release date, then job id (strings); std::list::sort is stable.
  std::stable_sort(queue_.begin(), queue_.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Alloc& a = allocs_[x];
    const Alloc& b = allocs_[y];
    if (a.release != b.release) return a.release < b.release;
    return a.job.id < b.job.id;
  });
}

void MachineSchedule::sort_released(std::vector<std::pair<std::uint32_t, Job>>& released) {
  std::stable_sort(released.begin(), released.end(), [](const auto& a, const auto& b) {
    if (a.second.submitted != b.second.submitted) return a.second.submitted < b.second.submitted;
    return a.second.id < b.second.id;
  });
}

void MachineSchedule::start(std::uint32_t key, std::vector<Start>& starts) {
  Alloc& a = allocs_[key];
  a.running = true;
  starts.push_back(Start{key, a.machines});
  queue_.erase(std::find(queue_.begin(), queue_.end(), key));
}

void MachineSchedule::make_decisions(SimTime date, const std::vector<std::uint32_t>& ended,
                                     const std::vector<std::pair<std::uint32_t, Job>>& released,
                                     std::vector<Start>& starts, std::vector<std::uint32_t>& rejects) {
  const std::uint32_t priority_before = queue_.empty() ? UINT32_MAX : queue_.front();
  for (const std::uint32_t key : ended) {
    Alloc& a = alloc(key);
    if (policy_ == Policy::kFcfs) {
      if (a.running) fcfs_available_.add(a.machines);
    } else {
      remove(key);
    }
    a.running = false;
  }
  std::vector<std::uint32_t> fresh;
  for (const auto& [key, job] : released) {
    Alloc& a = alloc(key);
    a = Alloc{};
    a.job = job;
    a.walltime = BatschedTime::of(job.walltime) + rjms_delay_;
    a.release = date;
    // easy_bf.cpp / conservative_bf.cpp / fcfs.cpp: "nb_requested_resources > _nb_machines"
    // is rejected; the backfilling policies also reject a job without walltime.
    if (job.size > machines_ || (policy_ != Policy::kFcfs && !(job.walltime > Duration()))) {
      rejects.push_back(key);
      continue;
    }
    fresh.push_back(key);
  }
  const bool job_ended = !ended.empty();
  switch (policy_) {
    case Policy::kFcfs: fcfs(date, job_ended, fresh, starts); break;
    case Policy::kEasy: easy(date, job_ended, fresh, priority_before, starts); break;
    case Policy::kConservative: conservative(date, job_ended, fresh, starts); break;
  }
}

void MachineSchedule::fcfs(SimTime date, bool job_ended, const std::vector<std::uint32_t>& fresh,
                           std::vector<Start>& starts) {
  // fcfs.cpp FCFS::make_decisions: no schedule, no walltime; the queue head blocks.
  auto try_start = [&](std::uint32_t key) {
    Alloc& a = allocs_[key];
    ++attempts_;
    if (fcfs_available_.size() < a.job.size) return false;
    a.machines = fcfs_available_.left(a.job.size);
    fcfs_available_.remove(a.machines);
    a.running = true;
    starts.push_back(Start{key, a.machines});
    return true;
  };
  if (job_ended) {
    std::size_t i = 0;
    while (i < queue_.size() && try_start(queue_[i])) ++i;
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  for (const std::uint32_t key : fresh) {
    allocs_[key].release = date;
    if (!queue_.empty() || !try_start(key)) queue_.push_back(key);
  }
}

void MachineSchedule::easy(SimTime date, bool job_ended, const std::vector<std::uint32_t>& fresh,
                           std::uint32_t priority_before, std::vector<Start>& starts) {
  for (const std::uint32_t key : fresh) queue_.push_back(key);  // Queue::append_job
  update_first_slice(BatschedTime::of(date));
  // sort_queue_while_handling_priority_job
  sort_queue();
  std::uint32_t priority = queue_.empty() ? UINT32_MAX : queue_.front();
  if (priority != priority_before) {
    if (priority_before != UINT32_MAX) remove(priority_before);
    while (priority != UINT32_MAX) {
      if (!add_first_fit(priority).started_in_first_slice) break;
      start(priority, starts);
      priority = queue_.empty() ? UINT32_MAX : queue_.front();
    }
  }
  if (!job_ended) {
    // "If no resources have been released, we can just try to backfill the newly-released jobs"
    std::uint32_t available = slices_.front().count;
    for (std::size_t i = 0; i < fresh.size() && available > 0; ++i) {
      const std::uint32_t key = fresh[i];
      Alloc& a = allocs_[key];
      if (a.running || key == priority || a.job.size > available) continue;
      if (add_first_fit(key).started_in_first_slice) {
        start(key, starts);
        available -= a.job.size;
      } else {
        remove(key);
      }
    }
    return;
  }
  // "Some resources have been released, the whole queue should be traversed." The guard on
  // the available machines is read once, before the traversal, as easy_bf.cpp does.
  const std::uint32_t available = slices_.front().count;
  std::size_t i = 0;
  while (i < queue_.size() && available > 0) {
    const std::uint32_t key = queue_[i];
    remove(key);
    const bool started = add_first_fit(key).started_in_first_slice;
    if (started) {
      start(key, starts);  // erases queue_[i]
      if (key == priority) priority = queue_.empty() ? UINT32_MAX : queue_.front();
      continue;
    }
    if (key != priority) remove(key);
    ++i;
  }
}

void MachineSchedule::conservative(SimTime date, bool job_ended, const std::vector<std::uint32_t>& fresh,
                                   std::vector<Start>& starts) {
  for (const std::uint32_t key : fresh) queue_.push_back(key);
  update_first_slice(BatschedTime::of(date));
  sort_queue();
  if (!job_ended) {
    // "If no resources have been released, we can just insert the new jobs into the schedule"
    for (const std::uint32_t key : fresh)
      if (add_first_fit(key).started_in_first_slice) start(key, starts);
    return;
  }
  // Compression: every waiting job is removed and inserted again, in queue order.
  std::size_t i = 0;
  while (i < queue_.size()) {
    const std::uint32_t key = queue_[i];
    remove(key);
    if (add_first_fit(key).started_in_first_slice) {
      start(key, starts);
      continue;
    }
    ++i;
  }
}

}  // namespace kubesim
