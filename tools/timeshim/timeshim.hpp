// kubesim-timeshim: runs an unmodified Linux x86-64 program (e.g. the static Go binary of
// kube-scheduler) on a virtual clock.
//
// Why: kube-scheduler's queue timers (back-off 1-10 s, the 1 s / 30 s flushes, the 5-minute
// unschedulable limit; pkg/scheduler/internal/queue/scheduling_queue.go) run on its own clock.
// A static Go binary cannot be given another clock by LD_PRELOAD, so the shim traces it
// (ptrace) and answers its clock reads and timed waits itself.
//
// How (each point checked on Linux 6.18 with Go 1.19.8's runtime):
// - The target starts under PTRACE_SEIZE with TRACEEXEC|TRACECLONE|TRACEFORK|TRACEVFORK|
//   TRACESYSGOOD|EXITKILL and a seccomp filter that returns SECCOMP_RET_TRACE only for the
//   clock reads and the *timed* waits (futex WAIT/WAIT_BITSET with a timeout, epoll_wait /
//   epoll_pwait with a timeout > 0, nanosleep, clock_nanosleep); every other system call,
//   untimed waits and polls included, runs at full speed without a stop.
// - At the exec stop the AT_SYSINFO_EHDR entry of the new program's auxiliary vector (on its
//   stack) is turned into AT_IGNORE, so there is no vDSO: Go (runtime/vdso_linux.go finds
//   __vdso_clock_gettime only through that entry; sys_linux_amd64.s nanotime1/walltime then
//   fall back to SYSCALL clock_gettime) and glibc both make real clock_gettime calls.
// - clock_gettime (REALTIME, MONOTONIC, their RAW/COARSE/BOOTTIME/TAI variants),
//   gettimeofday and time are skipped and answered from virtual time:
//   REALTIME = epoch + virtual, MONOTONIC = 1 s + virtual (never 0: Go treats 0 as unset in
//   places). CPU-time clocks run as usual.
// - Strictly increasing (controller mode): each wall-clock read (CLOCK_REALTIME and its kin,
//   gettimeofday, time) takes one nanosecond: the program's time is virtual time plus the
//   count of such reads so far (per process for a Go program, see below). Go's time.Now()
//   reads REALTIME then MONOTONIC (runtime/time_linux_amd64.s), so two time.Now() calls never return the same instant, as on a real
//   clock; the runtime's own nanotime() reads (MONOTONIC only) add nothing. Why: with time
//   standing still while the program works, kube-scheduler gave every pod that failed in one
//   instant the same queue Timestamp, and its activeQ (PrioritySort: priority, then
//   Timestamp; pkg/scheduler/framework/plugins/queuesort/priority_sort.go) then ordered them
//   by the order a Go map was iterated in (scheduling_queue.go movePodsToActiveOrBackoffQueue
//   walks unschedulablePods.podInfoMap), which is random. The count never resets, so a time
//   read later is always later: a deadline computed from an earlier reading plus an exact
//   duration has passed when virtual time reaches it, whatever happened in between.
//   Deadlines are reported to the controller in virtual time (program deadline minus the
//   count, never before now). The count stays small: kube-scheduler at --v=1 had made 8,447
//   reads (8.4 us) by simulated second 510 of the spaced workload.
// - --seed N: the 16 bytes the auxiliary vector's AT_RANDOM points to (the kernel's random
//   bytes, from which Go seeds its map hashes and fastrand: runtime/os_linux.go sysauxv,
//   alg.go alginit, proc.go fastrandinit) are derived from N, the same in every run.
// - A timed wait records the thread's virtual deadline and is made untimed (futex: NULL
//   timeout; epoll: -1; a sleep becomes pause()). When virtual time reaches the deadline the
//   shim interrupts the thread (PTRACE_INTERRUPT: no signal reaches the program) and, at the
//   syscall-exit stop, makes the call return what its timeout would have: futex -ETIMEDOUT,
//   epoll 0 events, sleeps 0. A real signal that interrupts such a wait makes it return
//   -EINTR (nanosleep writes the virtual time remaining). A deadline already reached returns
//   at once.
// - A Go program on x86-64 (recognized by its runtime's cputicks code) is pinned where Go
//   1.19's runtime takes decisions from the machine: cputicks (the time-stamp counter, which
//   seeds each thread's random state: map iteration starts, select choices) is patched to
//   read 0, every load of a thread's random state (m.fastrand, inlined wherever fastrand is
//   used) loads one constant from --seed, since which thread draws and how many draws came
//   before depend on timing, and sysmon (each Go process's first thread, paced by real-time
//   sleeps) is held stopped for the whole run (timeshim.cpp, pin_go_runtime and pin_fastrand,
//   say why each is safe), except for the two rounds in which it retakes the P of a thread
//   that blocks in an epoll_wait of its own (let_sysmon_retake; let go only once that process
//   has settled, so that the thread it hands the P to is the same in every run). Go 1.22+ keeps that state as
//   m.cheaprand (pinned the same way) and draws map iteration starts from runtime.rand, a
//   ChaCha8 stream per thread, whose entry is patched to return one constant from --seed
//   (go_rand.hpp). --verbose reports them.
// - --go-map-draws per-goroutine (Go 1.19 builds): where a map walk starts is drawn from a
//   stream per goroutine instead of the one constant (timeshim.cpp,
//   draw_map_walks_per_goroutine), so that ties a program breaks by a map walk go different
//   ways within a run. Not repeatable: how many walks a goroutine made depends on how often
//   it ran, which a single wall-clock read more or less can change. For means over seeds;
//   the default, pinned, is the repeatable mode.
// - A poll (epoll_pwait with a zero timeout: Go's netpoll(0)) returns no event without running
//   (seccomp RET_ERRNO 0): what it found depended on when serve's bytes arrived in real time,
//   and with it how much mark work the GC's idle worker did (build_filter says where Go polls).
// - The program sees one CPU (sched_getaffinity: the lowest of its mask), so a Go program
//   that sets runtime.GOMAXPROCS(runtime.NumCPU()) (Volcano's binaries) still runs on one P.
// - Go's clock reads (controller mode) cost no stop: Go 1.19 reads both clocks through one
//   function pointer, which the shim points at a function of its own in the program's unused
//   vDSO mapping; it answers from the virtual time the shim writes into the program and
//   counts the program's wall-clock reads itself, one count per process (go_clock.hpp). Go's
//   runtime reads its clock around every timer and scheduling decision: vc-scheduler and
//   vc-controller-manager made about 1,800 traced reads per simulated second before.
// - Relative sleeps of at most --real-sleep-max (default 10 ms) run in real time: Go's
//   runtime usleep (sysmon's 20 us-10 ms pacing, spinning back-off) paces CPU work, not time,
//   and virtualizing it would make an idle program look busy.
//
// Clock sources:
// - `--speed X`: virtual time = X x wall time since start (REALTIME epoch: the wall clock at
//   start unless --epoch).
// - `--control SOCKET`: virtual time moves only when a controller says so (REALTIME epoch
//   2026-01-01T00:00:00Z unless --epoch, as kubesim serve's cosim clock). The shim listens on
//   the Unix stream socket SOCKET; one line per request, one line per answer:
//     STATUS            -> "now <ns> quiet <0|1> deadline <ns|-1> threads <n> reads <n>"
//         now: virtual ns; quiet = 1 when every thread of the target is blocked in an
//         untimed wait (futex, epoll, pause, waitid/wait4, read of a pipe...; a held sysmon
//         counts as blocked), in a short real
//         sleep (see --real-sleep-max: Go's sysmon paces itself so while it waits for virtual
//         time to pass), or in a timed wait on a virtual deadline, and no packet waits in the
//         kernel's network backlog (a loopback send whose delivery the kernel deferred: it
//         reaches no socket for up to milliseconds), i.e. nothing will happen until virtual
//         time moves or something outside the target writes to it; deadline: the earliest virtual deadline
//         of a waiting thread (-1: none); reads: the wall-clock reads counted so far.
//     ADVANCE <ns>      -> "now <ns>"   sets virtual time to max(now, ns) and wakes the
//         threads whose deadline is reached.
//     ADVANCE_TO_DEADLINE -> "now <ns>" advances to the earliest deadline (no change if none).
//     RUN <event> <until> <slack> <floor> <finish_at>   (ns of virtual time, -1: none)
//                       -> "now <ns> steps <n> stop <why> deadline <ns|-1>"
//         takes the steps serve's cosim clock would take through the target's own timers
//         (api/clock.cpp), without a round trip each: once the target has settled (quiet at
//         one instant: CPU times by /proc/TID/schedstat, then the threads' states, then the
//         CPU times again, unchanged) it moves virtual time
//         to the earliest deadline rounded up to the microsecond plus <slack>, at most to
//         <event>, at least to <floor>, wakes the threads due, and so on. It answers when a
//         step would pass <event> ("event"), <until> ("until"), there is no deadline
//         ("no-timer"), virtual time has reached <finish_at> ("end"), a process of the target
//         has written into a TCP socket or received from one ("wrote": the requests to serve;
//         looked at by pidfd_getfd + TCP_INFO when /proc/PID/io wchar has moved, which counts
//         the write family only, so at every settled look unless all are Go), it did not settle
//         ("busy") or after 50 ms of wall time ("wall"), so that a timer wake-up after which
//         the target sends nothing costs no round trip (vc-scheduler polls its bind queue
//         every 20 ms). Needs epoll_pwait2 (Linux 5.11) for its looks; without it RUN is
//         refused ("error") and serve takes each step itself.
//   Wrong requests get "error <what>". When the target exits the socket closes.
//
// The shim exits, once every process of the target has, with the target's exit status
// (128 + signal if it was killed), and forwards SIGINT/SIGTERM/SIGHUP to every process of the
// target (the command and the processes it forked), once each.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kubesim::timeshim {

struct Options {
  double speed = 0;                 // > 0: virtual = speed x wall; 0: controller mode
  std::string control_socket;       // controller mode: Unix socket path
  std::int64_t epoch_ns = -1;       // REALTIME at virtual 0; -1: default of the mode
  std::int64_t real_sleep_max_ns = 10'000'000;
  std::optional<std::uint64_t> seed;  // the program's AT_RANDOM bytes from this seed
  bool map_draws_per_goroutine = false;  // --go-map-draws per-goroutine (pin_fastrand)
  bool verbose = false;             // one stderr line per virtualized call
  std::vector<std::string> command;
};

// Parses argv ("kubesim-timeshim [options] -- CMD ARGS..."); throws std::invalid_argument
// with a one-line message on bad input.
Options parse_options(int argc, char** argv);

// Runs the command under the shim until it exits; returns the exit status to report.
int run(const Options& options);

}  // namespace kubesim::timeshim
