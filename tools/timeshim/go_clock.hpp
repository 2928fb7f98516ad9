// A clock the Go runtime reads without a system call, so that a Go program's clock reads cost
// no ptrace stop (timeshim.hpp, "Go's clock reads").
//
// Go 1.19 on linux/amd64 reads both its clocks through one function pointer,
// runtime·vdsoClockgettimeSym (sys_linux_amd64.s nanotime1 and walltime, time_linux_amd64.s
// time·now: CALL it with DI = the clock id and SI = a timespec, C calling convention, on the
// g0 stack), set from the vDSO at start-up (vdso_linux.go); with the vDSO hidden it stays 0
// and Go makes the clock_gettime system call, which the shim stops on. The shim sets the
// pointer to a small function of its own, written into the program's (unused) vDSO mapping
// beside the virtual time, which answers CLOCK_REALTIME and CLOCK_MONOTONIC as the shim
// would: REALTIME = epoch + virtual + reads, MONOTONIC = 1 s + virtual + reads, where reads
// is the count of REALTIME reads of this process, incremented by each (a lock xadd). The read
// count and the virtual time are two words of the program's initial stack that nothing reads
// after start-up: the values of the hidden AT_SYSINFO_EHDR auxv entry and of AT_FLAGS (0 on
// Linux, unread by Go), both made AT_IGNORE. The shim writes the time with
// process_vm_writev, which needs no stop. Any other clock id makes the system call as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <vector>

#include "target_memory.hpp"

namespace kubesim::timeshim {

struct GoClock {
  std::uint64_t time = 0;     // the virtual time word in the program
  std::uint64_t counter = 0;  // the REALTIME read count word in the program
};

// Installs the clock in the stopped process `pid` (at its exec stop, after the auxv edit):
// `text` is its code (read_text), `vdso` is the vDSO mapping's start (the function goes there, written while the process is
// stopped), `counter` and `time` the addresses of two writable words nothing else uses (the
// read count, the virtual time: the values of two auxv entries made AT_IGNORE, on the initial
// stack). nullopt (nothing changed) if the program is not such a Go binary.
std::optional<GoClock> install_go_clock(pid_t pid, const std::vector<TextRegion>& text, std::uint64_t vdso,
                                        std::uint64_t counter, std::uint64_t time, std::int64_t epoch_ns);
// Publishes virtual time to the program (running or not); false if it could not be written.
bool set_go_clock(pid_t pid, const GoClock& clock, std::int64_t virtual_ns);
// The program's REALTIME read count; -1 if unreadable.
std::int64_t go_clock_reads(pid_t pid, const GoClock& clock);
// Adds one to the count (a REALTIME read made by system call) and returns the new count.
// Not atomic with the program's own `lock xadd`: a read and a write from outside. A read the
// program made in-program between the two would be lost (later reads repeat a value). It does
// not come about in a Go program on the shim: Go's runtime reads the wall clock only through
// the vDSO slot, i.e. in-program (walltime, sys_linux_amd64.s), so this path serves clock ids
// the function passes on (REALTIME_COARSE, TAI, ...), gettimeofday and time, made through
// x/sys/unix; the thread is then stopped in a system call holding its process's only P (the
// shim shows one CPU; entersyscall leaves the P _Psyscall), and no other thread runs Go code
// before sysmon retakes that P, which the shim allows only for an untimed epoll_wait.
std::int64_t go_clock_count_read(pid_t pid, const GoClock& clock);

}  // namespace kubesim::timeshim
