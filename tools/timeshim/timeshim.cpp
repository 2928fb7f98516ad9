// The tracer of kubesim-timeshim; the design and the controller protocol are in timeshim.hpp.
#include "timeshim.hpp"

#include "go_clock.hpp"
#include "go_rand.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/ptrace.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

// <sys/ptrace.h> conflicts with <linux/ptrace.h>; the request numbers come from the latter.
extern "C" long ptrace(int request, pid_t pid, void* addr, void* data);

namespace kubesim::timeshim {
namespace {

constexpr std::int64_t kNs = 1'000'000'000;
constexpr std::int64_t kMonotonicBase = kNs;       // MONOTONIC = 1 s + virtual (never 0)
constexpr std::int64_t kCosimEpoch = 1767225600;   // 2026-01-01T00:00:00Z, kubesim's cosim epoch
constexpr std::int64_t kRunWallMax = 50'000'000;  // ns of wall time a RUN may take before it answers
// ns between two looks at the target during a RUN: kRunLook after a stop of the target,
// doubling up to kRunLookMax while it computes without one (on a loaded machine the looks
// would take the CPU it needs).
constexpr long kRunLook = 20'000, kRunLookMax = 320'000;
constexpr unsigned long kAtIgnore = 1, kAtFlags = 8, kAtRandom = 25, kAtSysinfoEhdr = 33;
// Kernel-internal restart codes a syscall-exit stop can show (include/linux/errno.h).
constexpr long kErestartsys = 512, kErestartnointr = 513, kErestartnohand = 514, kErestartRestartblock = 516;

std::int64_t parse_int(const std::string& text, const char* what) {
  try {
    std::size_t used = 0;
    long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(std::string("kubesim-timeshim: ") + what + ": expected an integer, got '" + text + "'");
}

// ---- seccomp filter: a tiny assembler with labels, so the jumps are computed, not counted.
class Bpf {
 public:
  void label(const std::string& name) { labels_[name] = code_.size(); }
  void stmt(std::uint16_t code, std::uint32_t k) { code_.push_back(BPF_STMT(code, k)); }
  // Jumps to jt when the condition holds, else to jf ("" = the next instruction).
  void jump(std::uint16_t code, std::uint32_t k, const std::string& jt, const std::string& jf = "") {
    fixups_.push_back({code_.size(), jt, jf});
    code_.push_back(BPF_JUMP(code, k, 0, 0));
  }
  std::vector<sock_filter> finish() {
    for (const auto& f : fixups_) {
      auto target = [&](const std::string& name) -> std::uint8_t {
        if (name.empty()) return 0;
        return static_cast<std::uint8_t>(labels_.at(name) - f.at - 1);
      };
      code_[f.at].jt = target(f.jt);
      code_[f.at].jf = target(f.jf);
    }
    return code_;
  }

 private:
  struct Fixup {
    std::size_t at;
    std::string jt, jf;
  };
  std::vector<sock_filter> code_;
  std::vector<Fixup> fixups_;
  std::map<std::string, std::size_t> labels_;
};

constexpr std::uint32_t arg_lo(int i) { return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * static_cast<std::size_t>(i)); }
constexpr std::uint32_t arg_hi(int i) { return arg_lo(i) + 4; }

bool realtime_clock(std::uint64_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM || id == CLOCK_TAI;
}

std::vector<sock_filter> build_filter() {
  Bpf b;
  b.stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, "", "allow");
  b.stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, "clockid");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_nanosleep, "clockid");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, "trace");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_time, "trace");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_nanosleep, "trace");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_getaffinity, "trace");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, "futex");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_wait, "epoll_wait");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_pwait, "epoll", "allow");
  b.label("clockid");  // only the clocks the shim virtualizes (not the CPU-time clocks)
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(0));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, "", "allow");
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(0));
  for (std::uint32_t id : {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
                           CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM})
    b.jump(BPF_JMP | BPF_JEQ | BPF_K, id, "trace");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_TAI, "trace", "allow");
  b.label("futex");  // FUTEX_WAIT / FUTEX_WAIT_BITSET with a timeout
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(1));
  b.stmt(BPF_ALU | BPF_AND | BPF_K, FUTEX_CMD_MASK);
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAIT, "futex_timeout");
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAIT_BITSET, "futex_timeout", "allow");
  b.label("futex_timeout");
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(3));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, "", "trace");
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(3));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, "allow", "trace");
  b.label("epoll_wait");  // also without a timeout (Go's netpoller waits with epoll_pwait): see on_seccomp
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(3));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, "allow", "trace");
  b.label("epoll");  // a timeout > 0 ms (< 0 waits without a timeout; 0 polls: see "poll")
  b.stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(3));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, "poll");
  b.jump(BPF_JMP | BPF_JSET | BPF_K, 0x80000000u, "allow", "trace");
  // A poll (epoll_pwait, timeout 0: Go's netpoll(0)) finds nothing, without running: what it
  // would find depends on when serve's bytes arrived in real time. Go 1.19 polls so in
  // findRunnable (harmless: it blocks in netpoll next, which finds the same), in pollWork
  // (proc.go), with which the GC's idle mark worker (mgcmark.go gcDrain, gcDrainIdle) stops
  // when a goroutine became ready, i.e. after a real-time-dependent amount of mark work, so
  // the heap marked, the next heap goal and where the next GC starts differed between runs
  // (vc-controller-manager: gctrace "6->6->3 MB, 8 MB goal" vs "7 MB goal" at 15 s), and in
  // startTheWorldWithSema (proc.go: the goroutines found join the run queue before or after
  // others). With no poll finding anything, the idle worker marks until the cycle ends and
  // the goroutines wake from the blocking netpoll. seccomp's RET_ERRNO with 0 returns 0.
  b.label("poll");
  b.stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0);
  b.label("trace");
  b.stmt(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
  b.label("allow");
  b.stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  return b.finish();
}

std::int64_t wall_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return ts.tv_sec * kNs + ts.tv_nsec;
}

enum class Wait { none, futex, epoll, sleep };

struct Thread {
  Wait wait = Wait::none;
  std::int64_t deadline = 0;    // virtual ns
  bool wake_sent = false;       // PTRACE_INTERRUPT sent for the deadline
  std::uint64_t remaining = 0;  // nanosleep's rem pointer (relative sleeps), 0: none
  bool parked = false;          // Go's sysmon, held stopped for the whole run (see timeshim.hpp)
  bool started = false;         // sysmon: it has run (parked at a usleep, not at its first stop)
  int sysmon_rounds = 0;        // sysmon let go: its usleeps to its next hold
  // settled: the CPU time at its first pass, and the CPU time at which the system call the
  // thread sleeps in was last read (/proc/TID/syscall) with its verdict (a wait that ends by
  // itself or not): a thread that has not run since sleeps in the same call.
  std::uint64_t cpu_look = 0, syscall_cpu = UINT64_MAX;
  bool syscall_blocks = false;
};

struct Client {
  int fd;
  std::string input;
};

class Shim {
 public:
  explicit Shim(const Options& o) : opt_(o) {
    if (opt_.epoch_ns >= 0)
      epoch_ = opt_.epoch_ns;
    else
      epoch_ = opt_.speed > 0 ? wall_ns(CLOCK_REALTIME) : kCosimEpoch * kNs;
    wall0_ = wall_ns(CLOCK_MONOTONIC);
  }

  int run();

 private:
  // The target's time. Controller mode: virtual time plus one nanosecond per wall-clock read
  // so far (see timeshim.hpp, "strictly increasing").
  std::int64_t now() const {
    if (opt_.speed > 0) return static_cast<std::int64_t>(static_cast<double>(wall_ns(CLOCK_MONOTONIC) - wall0_) * opt_.speed);
    return virtual_ + reads_;
  }
  // A deadline of the target's time as the controller's virtual time (what ADVANCE takes).
  // (earliest_deadline has taken each thread's process's reads off already.)
  std::int64_t to_virtual(std::int64_t deadline) const { return deadline < 0 ? -1 : std::max(virtual_, deadline); }
  // Controller mode: the reads counted for the process of `tid` (its Go clock's count, or
  // the shim's for a process that makes system calls), and its time.
  std::int64_t reads_of(pid_t tid);
  std::int64_t now_of(pid_t tid) { return opt_.speed > 0 ? now() : virtual_ + reads_of(tid); }
  // A clock read of `tid` by system call: counts a wall-clock read, returns its time.
  std::int64_t read_clock(pid_t tid, bool wall_clock);
  pid_t tgid_of(pid_t tid);
  void publish_virtual();
  // Controller mode: a wall-clock read (CLOCK_REALTIME and its kin, gettimeofday, time) takes
  // one nanosecond.
  void count_read(bool wall_clock) {
    if (wall_clock && opt_.speed <= 0) ++reads_;
  }
  std::int64_t clock_value(std::uint64_t id, std::int64_t v) const {
    return realtime_clock(id) ? epoch_ + v : kMonotonicBase + v;
  }

  bool read_mem(pid_t tid, std::uint64_t addr, void* out, std::size_t n) { return read_memory(tid, addr, out, n); }
  bool write_mem(pid_t tid, std::uint64_t addr, const void* in, std::size_t n) { return write_memory(tid, addr, in, n); }
  bool read_timespec(pid_t tid, std::uint64_t addr, std::int64_t& ns) {
    timespec ts{};
    if (addr == 0 || !read_mem(tid, addr, &ts, sizeof ts)) return false;
    ns = ts.tv_sec * kNs + ts.tv_nsec;
    return true;
  }

  void spawn();
  void drain_children();
  void on_stop(pid_t tid, int status);
  void on_seccomp(pid_t tid);
  void on_syscall_exit(pid_t tid);
  void edit_auxv(pid_t tid);
  void pin_go_runtime(pid_t tid, const std::vector<TextRegion>& text);
  int pin_fastrand(pid_t tid, const std::vector<TextRegion>& text);
  struct StateLoad {  // a load of a thread's random state, to pin
    std::uint64_t addr;
    unsigned char rex, op, modrm;
    std::uint32_t disp;
  };
  static void add_state_loads_after_getg_m(const std::vector<TextRegion>& text, std::uint32_t disp,
                                           std::vector<StateLoad>& loads);
  std::vector<std::uint64_t> draw_map_walks_per_goroutine(pid_t tid, const std::vector<StateLoad>& loads,
                                                          std::uint32_t disp);
  bool pin_rand(pid_t tid);
  void park(pid_t tid);
  void let_sysmon_retake(pid_t tid);
  void release_retakes();
  void start_wait(pid_t tid, user_regs_struct& regs, Wait kind, std::int64_t deadline);
  void wake_due();
  void arm_timer();
  std::int64_t earliest_deadline();
  void forward_signal(int sig);
  void forget_thread(pid_t tid);
  // after_cpu_pass: each thread's cpu_look is this look's (settled).
  bool quiet(pid_t process = 0, bool after_cpu_pass = false);
  std::string answer(const std::string& request);
  void on_client(Client& c);
  // RUN (timeshim.hpp): steps through the target's own timers while it writes nothing.
  std::string start_run(const std::string& args, int fd);
  void run_timers();
  void finish_run(const char* why);
  bool settled(pid_t process = 0);
  bool network_backlog_empty();
  std::vector<std::uint64_t> cpu_times(pid_t process, bool first_pass);
  bool thread_blocked(pid_t tid, Thread& t, bool after_cpu_pass);
  std::uint64_t cpu_ns(pid_t tid);
  std::int64_t bytes_written();
  bool tcp_traffic(std::set<pid_t>& processes, std::vector<std::uint64_t>& out);
  std::set<pid_t> processes();
  int proc_fd(pid_t tid, int which);
  bool read_proc(pid_t tid, int which, char* buf, std::size_t size);
  void log(pid_t tid, const char* what, std::int64_t value) const {
    if (opt_.verbose) std::fprintf(stderr, "timeshim: [%d] %s %lld (virtual %.6f s)\n", tid, what,
                                   static_cast<long long>(value), static_cast<double>(now()) / kNs);
  }

  Options opt_;
  std::int64_t epoch_ = 0, wall0_ = 0, virtual_ = 0, reads_ = 0;
  pid_t main_pid_ = -1;
  bool go_runtime_ = false;  // the program is a Go binary whose cputicks the shim patched
  // Go's sysmon, per Go process of the target: each process's first thread clone (proc.go
  // main starts it first). sysmon_next_: the Go processes whose first clone is still to come;
  // sysmons_: the sysmon threads held; hold_sysmon_: false once they are let go.
  std::set<pid_t> sysmon_next_, sysmons_;
  bool hold_sysmon_ = true;
  std::set<pid_t> retakes_;  // processes whose sysmon is let go once they have settled (let_sysmon_retake)
  int exit_status_ = 0;
  std::map<pid_t, Thread> threads_;
  int epoll_ = -1, signal_fd_ = -1, timer_fd_ = -1, listen_fd_ = -1;
  std::map<int, Client> clients_;
  sigset_t original_mask_{};
  // A RUN in progress: its limits (virtual ns, -1: none), the steps taken, the target's bytes
  // written (bytes_written) at the last TCP check, the client to answer and a wall-time bound.
  struct Run {
    bool active = false;
    std::int64_t event = -1, until = -1, slack = 0, floor = 0, finish_at = -1;
    std::int64_t steps = 0, written = -1, wall_end = 0;
    std::vector<std::uint64_t> tcp;  // tcp_traffic when it began
    int fd = -1;
  } run_;
  long run_look_ = kRunLook;  // ns to the next look during a RUN
  bool no_epoll_pwait2_ = false;                   // Linux < 5.11: no timed looks, so no RUN
  std::map<pid_t, std::array<int, 4>> proc_fds_;   // per thread: /proc/TID/{stat,syscall,schedstat,io}
  std::map<pid_t, pid_t> tgid_;                    // thread -> its process
  std::uint64_t vdso_ = 0, vdso_slot_ = 0;         // edit_auxv: the vDSO, its auxv entry's value
  std::uint64_t flags_entry_ = 0;                  // edit_auxv: the AT_FLAGS entry
  // Per process with a Go clock (go_clock.hpp): the clock and the virtual time it shows.
  std::map<pid_t, std::pair<GoClock, std::int64_t>> go_clocks_;
  std::map<pid_t, int> pidfds_;                    // process -> its pidfd (for pidfd_getfd)
  int softnet_fd_ = -2;                            // /proc/net/softnet_stat (-2: not opened yet)
  std::vector<char> softnet_text_;                 // its text, read on each look
};

void Shim::spawn() {
  int gate[2];
  if (pipe2(gate, O_CLOEXEC) != 0) throw std::runtime_error("kubesim-timeshim: pipe: " + std::string(std::strerror(errno)));
  std::vector<sock_filter> filter = build_filter();
  std::vector<char*> argv;
  for (const auto& a : opt_.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("kubesim-timeshim: fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    // The child waits until the tracer has seized it, then installs the filter and execs.
    close(gate[1]);
    char byte;
    if (read(gate[0], &byte, 1) != 1) _exit(127);
    sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sock_fprog prog{static_cast<unsigned short>(filter.size()), filter.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
      std::fprintf(stderr, "kubesim-timeshim: seccomp: %s\n", std::strerror(errno));
      _exit(127);
    }
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "kubesim-timeshim: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(gate[0]);
  long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                 PTRACE_O_TRACEVFORK | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL;
  if (ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(options)) != 0) {
    kill(pid, SIGKILL);
    throw std::runtime_error("kubesim-timeshim: ptrace(PTRACE_SEIZE): " + std::string(std::strerror(errno)) +
                             " (is ptrace allowed here? see /proc/sys/kernel/yama/ptrace_scope)");
  }
  main_pid_ = pid;
  threads_[pid];
  if (write(gate[1], "x", 1) != 1) throw std::runtime_error("kubesim-timeshim: cannot start the child");
  close(gate[1]);
}

// At the exec stop the new program's stack holds argc, argv, NULL, envp, NULL, auxv: hiding
// AT_SYSINFO_EHDR makes the program find no vDSO, so its clock reads become system calls;
// with --seed, the 16 bytes AT_RANDOM points to (the kernel's random bytes, from which Go
// seeds its runtime: runtime/os_linux.go sysauxv keeps them as startupRandomData, used by
// getRandomData for the map hash keys, alg.go alginit, and fastrandseed, proc.go
// fastrandinit) are derived from the seed instead.
void Shim::edit_auxv(pid_t tid) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return;
  std::uint64_t p = regs.rsp, word = 0;
  vdso_ = vdso_slot_ = flags_entry_ = 0;
  if (!read_mem(tid, p, &word, 8)) return;
  p += 8 * (word + 2);                       // argc, argv[argc], NULL
  while (read_mem(tid, p, &word, 8) && word != 0) p += 8;  // envp
  p += 8;
  for (int i = 0; i < 64; ++i, p += 16) {
    std::uint64_t entry[2];
    if (!read_mem(tid, p, entry, sizeof entry) || entry[0] == 0) return;
    if (entry[0] == kAtSysinfoEhdr && write_mem(tid, p, &kAtIgnore, 8)) {
      vdso_ = entry[1];
      vdso_slot_ = p + 8;  // the entry's value: the Go clock's read count (go_clock.hpp)
    }
    if (entry[0] == kAtFlags) flags_entry_ = p;  // its value: the Go clock's time, if installed
    if (entry[0] == kAtRandom && opt_.seed) {
      std::uint64_t bytes[2], x = *opt_.seed;
      for (auto& b : bytes) b = splitmix64(x);
      write_mem(tid, entry[1], bytes, sizeof bytes);
    }
  }
}

// Go's runtime takes two decisions from the machine rather than from its inputs (Go 1.19,
// src/runtime): (1) each thread's random state, which picks where a map iteration starts and
// which ready case a select takes, is seeded from the time-stamp counter (proc.go
// mcommoninit: int64Hash(cputicks(), ...)); (2) sysmon, a thread paced by real-time sleeps,
// retakes the P of a thread in a system call, starts threads for overdue timers, polls the
// network and forces a garbage collection every 2 minutes, at moments set by how the kernel
// schedules threads, so goroutines ran in a different order from run to run. The shim pins
// both for a Go program on x86-64 (found by its cputicks, below):
// - cputicks (asm_amd64.s: RDTSCP, or MFENCE; LFENCE; RDTSC) is patched to return 0, so the
//   threads' random states come from --seed's AT_RANDOM bytes and the thread's id alone.
//   cputicks feeds nothing else unless block/mutex profiling or tracing is on. Seeded states
//   are not yet the same draws: pin_fastrand, below, pins the draws themselves.
// - sysmon (the program's first thread: proc.go main starts it with newm(sysmon, ...) before
//   anything else) is held stopped. What it would do is not needed here: goroutines yield at
//   their blocking points; the garbage collector runs on allocation (GOGC), preempts through
//   its own signals, and with GOMAXPROCS=1 the thread that waits in the network poller is the
//   one that runs the timers; the program's system calls do not block (sockets are
//   non-blocking), so no P needs retaking.
// A non-Go program, or a Go build without that code, runs unchanged.
void Shim::pin_go_runtime(pid_t tid, const std::vector<TextRegion>& text) {
  // The cputicks body from the RDTSCP to the JMP back after RDTSC.
  static const unsigned char kCputicks[] = {0x0f, 0x01, 0xf9, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x01, 0xd0, 0x48, 0x89, 0x44,
                                            0x24, 0x08, 0xc3, 0x0f, 0xae, 0xf0, 0x0f, 0xae, 0xe8, 0x0f, 0x31, 0xeb};
  const std::uint64_t found = find_in_text(text, kCputicks, sizeof kCputicks);
  if (!found) return;
  // RDTSCP -> XOR EAX,EAX; CDQ (RAX = RDX = 0); MFENCE -> the same; RDTSC -> a 2-byte NOP.
  go_runtime_ = poke_text(tid, found, {0x31, 0xc0, 0x99}) && poke_text(tid, found + 16, {0x31, 0xc0, 0x99}) &&
                poke_text(tid, found + 22, {0x66, 0x90});
  const int pinned = go_runtime_ ? pin_fastrand(tid, text) : 0;
  const bool rand_pinned = go_runtime_ && pin_rand(tid);
  if (opt_.verbose)
    std::fprintf(stderr, "timeshim: Go runtime: cputicks at 0x%llx %s; %d fastrand state reads pinned%s\n",
                 static_cast<unsigned long long>(found), go_runtime_ ? "patched" : "NOT patched", pinned,
                 rand_pinned ? "; runtime.rand returns a constant" : "");
}

// Go 1.22+ (go_rand.hpp): runtime.rand's entry becomes MOVABS RAX, v; RET (ABIInternal returns
// the uint64 in RAX), v = pinned_rand_value(--seed). Safe because: rand takes no arguments and
// has no effect but advancing the calling M's ChaCha8 state, which nothing else reads (the
// global generator that seeds it, bootstrapRand, still runs: alginit's hash keys come from
// --seed's AT_RANDOM bytes as before); rand is in package runtime, so it is never
// asynchronously preempted (preempt.go isAsyncSafePoint), and the patched code makes no call,
// so no stack walk starts inside it (a CPU-profile signal could, and its unwinder tolerates a
// frame that does not match, traceback.go unwindSilentErrors). The program must be Go 1.22+:
// it has runtime.rand beside internal/chacha8rand's Refill, and the entry is rand's frame
// set-up (PUSH RBP). A stripped binary has no symbols: nothing is patched.
bool Shim::pin_rand(pid_t tid) {
  const std::uint64_t rand = elf_function(tid, "runtime.rand");
  unsigned char entry = 0;
  if (rand == 0 || elf_function(tid, "internal/chacha8rand.(*State).Refill") == 0 || !read_mem(tid, rand, &entry, 1) ||
      entry != 0x55)
    return false;
  const std::uint64_t v = pinned_rand_value(opt_.seed.value_or(0));
  auto byte = [v](int i) { return static_cast<unsigned char>(v >> (8 * i)); };
  return poke_text(tid, rand, {0x48, 0xb8, byte(0), byte(1), byte(2), byte(3), byte(4), byte(5), byte(6), byte(7), 0xc3});
}

// The state every pinned fastrand read loads (sign-extended from 32 bits), derived from
// --seed. Go 1.19 (runtime/stubs.go fastrand, amd64): state += 0xa0761d6478bd642f; out =
// uint32(hi ^ lo) of the 128-bit product state * (state ^ 0xe7037ed1a0b428db). Two draws are
// kept away from values that change how the program runs rather than which of equal choices
// it makes: newproc1 traces a goroutine's scheduling latency when uint8(out) % 8 == 0 (one
// clock read per switch), and fastexprand's memory-profile sampling distance is -ln(q) times
// the mean for q = (out >> 6 + 1) / 2^26 (q near 1 would sample every allocation), so out
// must have a low 3 bits != 0 and q in [1/4, 1/2). Go 1.22+'s cheaprand is the same
// generator and the same two draws (proc.go newproc1's trackingSeq; malloc.go fastexprand's
// cheaprandn(1 << 26) + 1, i.e. out >> 6 + 1); its type-assertion and type-switch caches
// (iface.go typeAssert, interfaceSwitch) are filled only when cheaprand() & 1023 == 0, never
// with this out: those then always take the runtime's itab lookup, as Go 1.21 did.
static std::uint32_t pinned_fastrand_state(std::uint64_t seed) {
  for (std::uint32_t candidate = static_cast<std::uint32_t>(seed * 0x9e3779b97f4a7c15ULL >> 33);; ++candidate) {
    const std::uint64_t state = 0xa0761d6478bd642fULL + static_cast<std::uint64_t>(static_cast<std::int32_t>(candidate));
    const unsigned __int128 product = static_cast<unsigned __int128>(state) * (state ^ 0xe7037ed1a0b428dbULL);
    const auto out = static_cast<std::uint32_t>(static_cast<std::uint64_t>(product >> 64) ^ static_cast<std::uint64_t>(product));
    if ((out & 7) != 0 && (out >> 30) == 1) return candidate;
  }
}

// MOV base, [R14 + 0x30] (REX.W(+R) 8B modrm disp8): getg().m in Go's register ABI (R14 holds g,
// and m is g's 7th word, runtime2.go), loaded into register `base`.
static std::array<unsigned char, 4> getg_m_into(unsigned base) {
  return {static_cast<unsigned char>(0x49 | ((base >> 3) << 2)), 0x8b,
          static_cast<unsigned char>(0x46 | ((base & 7) << 3)), 0x30};
}

// Adds to `loads` every REX.W MOV/ADD r64, [base + disp] (mod 10, no SIB) that directly
// follows MOV base, [R14 + 0x30]: getg().m in Go's register ABI (R14 holds g, and m is g's
// 7th word, runtime2.go), i.e. a load of the m field at `disp`, the random state. Only the
// adjacent pair: with instructions between them, `base` could have been written without an
// instruction decoder to tell (in Kueue v0.9.5's manager every such load is adjacent: 7 sites).
void Shim::add_state_loads_after_getg_m(const std::vector<TextRegion>& text, std::uint32_t disp,
                                        std::vector<StateLoad>& loads) {
  unsigned char want[4];
  std::memcpy(want, &disp, 4);
  for (const auto& region : text) {
    const auto& b = region.bytes;
    for (auto it = b.begin(); (it = std::search(it, b.end(), std::begin(want), std::end(want))) != b.end(); ++it) {
      const auto at = static_cast<std::size_t>(it - b.begin());
      if (at < 3) continue;
      const std::size_t p = at - 3;
      const unsigned char rex = b[p], op = b[p + 1], modrm = b[p + 2];
      if ((rex & 0xf8) != 0x48 || (op != 0x03 && op != 0x8b) || (modrm & 0xc0) != 0x80 || (modrm & 7) == 4) continue;
      const auto getg_m = getg_m_into((modrm & 7u) | ((rex & 1u) << 3));
      if (p < getg_m.size() ||
          !std::equal(getg_m.begin(), getg_m.end(), b.begin() + static_cast<std::ptrdiff_t>(p - getg_m.size())))
        continue;
      const std::uint64_t addr = region.lo + p;
      if (std::none_of(loads.begin(), loads.end(), [addr](const StateLoad& l) { return l.addr == addr; }))
        loads.push_back({addr, rex, op, modrm, disp});
    }
  }
}

// fastrand's increment 0xa0761d6478bd642f (Go 1.19 runtime/stubs.go; Go 1.22+ cheaprand): the
// imm64 of the MOVABS next to every inlined draw, little endian.
static const unsigned char kFastrandStep[] = {0x2f, 0x64, 0xbd, 0x78, 0x64, 0x1d, 0x76, 0xa0};

// Go 1.19's fastrand keeps its state per thread (m.fastrand) and is inlined wherever it is
// used: every site loads the state from the thread's m, adds 0xa0761d6478bd642f (a MOVABS
// within a few bytes of the load) and stores it back. Seeding the state (AT_RANDOM,
// cputicks) is not enough for the same draws in every run: which thread makes a draw and how
// many draws came before depend on timing (findrunnable's stealWork draws each time the P
// runs dry, and which idle thread takes the P when input arrives is the kernel's choice).
// So every load of the state becomes a load of one constant (MOV r64, [m+off] -> MOV r64,
// imm32; ADD r64, [m+off] -> ADD r64, imm32: both 7 bytes): every draw returns the same
// number, whatever thread or moment. Map iterations then start at one place set by --seed
// (makemap's hash0 is such a draw too, so iteration orders still differ between seeds),
// select polls its ready cases in one fixed order, and work stealing, treap priorities of
// the semaphore table and profiling samples take fixed values. Returns the sites pinned.
//
// Go 1.22+ keeps the same wyrand state as m.cheaprand (runtime/rand.go cheaprand), inlined
// the same way, so the same pin applies. Some of its draws reuse a MOVABS hoisted out of
// their block, beyond the window above (iface.go typeAssert's and interfaceSwitch's second
// draw, mprof.go's profiling draws); add_state_loads_after_getg_m pins those loads too.
int Shim::pin_fastrand(pid_t tid, const std::vector<TextRegion>& text) {
  using Load = StateLoad;
  std::vector<Load> loads;
  std::map<std::uint32_t, int> by_disp;  // the state's offset in m is the one most loads use
  for (const auto& region : text) {
    const auto& b = region.bytes;
    for (auto it = b.begin();
         (it = std::search(it, b.end(), std::begin(kFastrandStep), std::end(kFastrandStep))) != b.end(); ++it) {
      const auto at = static_cast<std::size_t>(it - b.begin());
      if (at < 2 || (b[at - 2] & 0xf8) != 0x48 || (b[at - 1] & 0xf8) != 0xb8) continue;  // REX.W B8+r
      // The load: REX.W (03|8B) modrm(mod=10, no SIB) disp32, within 16 bytes either side.
      for (std::size_t p = at >= 18 ? at - 18 : 0; p + 7 <= b.size() && p < at + 24; ++p) {
        const unsigned char rex = b[p], op = b[p + 1], modrm = b[p + 2];
        if ((rex & 0xf8) != 0x48 || (op != 0x03 && op != 0x8b) || (modrm & 0xc0) != 0x80 || (modrm & 7) == 4) continue;
        std::uint32_t disp = 0;
        std::memcpy(&disp, &b[p + 3], 4);
        loads.push_back({region.lo + p, rex, op, modrm, disp});
        ++by_disp[disp];
        break;
      }
    }
  }
  const auto mode = std::max_element(by_disp.begin(), by_disp.end(),
                                     [](const auto& x, const auto& y) { return x.second < y.second; });
  if (mode == by_disp.end() || mode->second < 8) return 0;  // not Go 1.19's inlined fastrand
  add_state_loads_after_getg_m(text, mode->first, loads);
  std::vector<std::uint64_t> per_goroutine;
  if (opt_.map_draws_per_goroutine) per_goroutine = draw_map_walks_per_goroutine(tid, loads, mode->first);
  const std::uint32_t imm = pinned_fastrand_state(opt_.seed.value_or(0));
  auto pinned = static_cast<int>(per_goroutine.size());
  if (opt_.verbose && !per_goroutine.empty())
    std::fprintf(stderr, "timeshim: Go map walks draw per goroutine (%zu sites)\n", per_goroutine.size());
  for (const Load& l : loads) {
    if (l.disp != mode->first || std::ranges::find(per_goroutine, l.addr) != per_goroutine.end()) continue;
    const auto reg = static_cast<unsigned char>((l.modrm >> 3) & 7);
    const auto rex = static_cast<unsigned char>(0x48 | ((l.rex & 4) ? 1 : 0));  // REX.R (destination) -> REX.B
    const auto opcode = static_cast<unsigned char>(l.op == 0x03 ? 0x81 : 0xc7);  // ADD /0 or MOV /0, imm32
    pinned += poke_text(tid, l.addr, {rex, opcode, static_cast<unsigned char>(0xc0 | reg), static_cast<unsigned char>(imm),
                                      static_cast<unsigned char>(imm >> 8), static_cast<unsigned char>(imm >> 16),
                                      static_cast<unsigned char>(imm >> 24)});
  }
  return pinned;
}

// The increment of the map walks' per-goroutine generator (draw_map_walks_per_goroutine): Go's
// own (stubs.go fastrand) without --seed, else an odd number derived from it, so each seed
// gives every goroutine another stream (a Weyl sequence: any odd increment visits every state).
static std::uint64_t map_draw_increment(std::optional<std::uint64_t> seed) {
  if (!seed) return 0xa0761d6478bd642fULL;
  std::uint64_t x = *seed;
  return splitmix64(x) | 1;
}

// Go 1.19's g.racectx (runtime2.go, the word after startpc, which proc.go newproc1 stores at
// 0x138 in these builds): written only by race-detector builds (`if raceenabled`), so in any
// other build a word per goroutine that nothing reads; malg zeroes it when a g is made, and a
// g reused from the free list keeps its last value.
constexpr std::uint32_t kGo119RacectxOffset = 0x140;

// --go-map-draws per-goroutine. With one pinned value every map walk of a run starts at the
// same slot, so every tie a program breaks by a walk goes the same way all run long:
// kube-scheduler's pickOneNodeForPreemption (framework/preemption/preemption.go, v1.26) takes
// the first tied node of a walk, and the scheduler-plugins binary sent every fully tied
// preemptor of the study's E3 to node-0. Here the walks draw from a stream per goroutine: in
// runtime.mapiterinit (map.go: r := uintptr(fastrand()), then startBucket = r & mask, offset =
// r >> B & 7), each inlined fastrand's getg().m (MOV base, [R14+0x30]) becomes getg() (MOV
// base, R14; NOP), its state load and store-back address g.racectx instead of m.fastrand, and
// its increment becomes map_draw_increment(--seed). The scheduling loop, one goroutine, then
// draws a new start at each of its walks, different between seeds. A stream per goroutine
// rather than per process keeps other goroutines' walks out of it, yet a goroutine that runs
// once more or less in a run (after a wall-clock read more or less, which the pinned mode
// absorbs) shifts its own stream: runs of one seed are not always identical (E3 at 1/1: two
// runs identical but for 1-ns times, a third apart from 249 s). Only for a Go 1.19 build
// (runtime.buildVersion; the g layout is that version's) with a symbol table; every other
// load stays pinned (pin_fastrand). Returns the loads rewritten.
std::vector<std::uint64_t> Shim::draw_map_walks_per_goroutine(pid_t tid, const std::vector<StateLoad>& loads,
                                                              std::uint32_t disp) {
  const ElfSymbol version = elf_symbol(tid, "runtime.buildVersion", true);
  std::uint64_t header[2] = {0, 0};  // a Go string: data, length
  char text[8] = {};
  if (version.address == 0 || !read_mem(tid, version.address, header, sizeof header) ||
      !read_mem(tid, header[0], text, std::min<std::uint64_t>(header[1], sizeof text)))
    return {};
  const std::string_view go(text, std::min<std::uint64_t>(header[1], sizeof text));
  if (go != "go1.19" && !go.starts_with("go1.19.")) return {};
  const ElfSymbol walk_start = elf_symbol(tid, "runtime.mapiterinit");
  const std::uint64_t increment = map_draw_increment(opt_.seed);
  std::vector<std::uint64_t> rewritten;
  for (const StateLoad& l : loads) {
    if (l.disp != disp || l.op != 0x8b || l.addr < walk_start.address + 4 ||
        l.addr >= walk_start.address + walk_start.size)
      continue;
    unsigned char code[4 + 7 + 64];  // getg().m, the load, what follows up to the store
    if (!read_mem(tid, l.addr - 4, code, sizeof code)) continue;
    const unsigned base = (l.modrm & 7u) | ((l.rex & 1u) << 3);
    const auto getg_m = getg_m_into(base);
    if (!std::equal(getg_m.begin(), getg_m.end(), code)) continue;
    std::size_t step = 0, store = 0;  // offsets in code of the increment's imm64 and of the store
    for (std::size_t p = 11; p + 7 <= sizeof code && store == 0; ++p) {
      if (step == 0 && p + 8 <= sizeof code &&
          std::equal(std::begin(kFastrandStep), std::end(kFastrandStep), code + p) && (code[p - 2] & 0xf8) == 0x48 &&
          (code[p - 1] & 0xf8) == 0xb8)
        step = p;
      std::uint32_t d = 0;
      std::memcpy(&d, code + p + 3, 4);
      if (step != 0 && p >= step + 8 && (code[p] & 0xf8) == 0x48 && code[p + 1] == 0x89 &&
          (code[p + 2] & 0xc0) == 0x80 && (code[p + 2] & 7) != 4 && d == disp)
        store = p;
    }
    if (store == 0) continue;
    const std::uint64_t at = l.addr - 4;
    unsigned char offset[4], inc[8];  // little endian, as x86-64 reads them
    std::memcpy(offset, &kGo119RacectxOffset, sizeof offset);
    std::memcpy(inc, &increment, sizeof inc);
    const auto getg = {static_cast<unsigned char>(0x4c | (base >> 3)), static_cast<unsigned char>(0x89),
                       static_cast<unsigned char>(0xf0 | (base & 7)), static_cast<unsigned char>(0x90)};
    if (poke_text(tid, at, getg) && poke_text(tid, l.addr + 3, offset, 4) &&
        poke_text(tid, at + store + 3, offset, 4) && poke_text(tid, at + step, inc, 8))
      rewritten.push_back(l.addr);
  }
  return rewritten;
}

void Shim::park(pid_t tid) {
  threads_[tid].parked = true;
  threads_[tid].sysmon_rounds = 0;
  if (opt_.verbose) std::fprintf(stderr, "timeshim: [%d] Go's sysmon held stopped\n", tid);
}

// A goroutine of a Go process blocks in a system call of its own (fsnotify v1.5's inotify
// poller, used by vc-scheduler's watch of its configuration folder: epoll_wait with no
// timeout) and keeps the process's P (entersyscall leaves it _Psyscall): with one P and
// sysmon held, nothing else of the program would run again. Go counts on sysmon to retake
// such a P (proc.go retake: a P seen in the same system call at two of sysmon's rounds is
// handed to another thread, handoffp, when its run queue holds work or no other thread is
// idle or spinning). So sysmon is let run for the two rounds that take: it sleeps at the
// start of each round (usleep), and is held again at the sleep after the second. Its other
// duties in those rounds (network poll after 10 ms, forced GC after 2 minutes) look at
// virtual time and at a program in which only this call is under way.
// Sysmon is let go only once the process has settled (release_retakes): retake's handoffp
// starts a thread for the P (proc.go startm: an idle M from sched.midle, else newm). Let go at
// once, it raced the process's other threads on their way to sleep, and vc-scheduler ended
// with 6 or 7 threads: one more runtime m (heap-allocated, reachable from allm) changed the
// heap the GC marks by its size (gcpacertrace: 1518784 vs 1520216 B of scan work, equal heaps),
// hence every later heap goal, where each GC started and its one wall-clock read
// (mgc.go gcMarkTermination, time_now): the runs' jobs.csv differed with the GC on.
void Shim::let_sysmon_retake(pid_t tid) { retakes_.insert(tgid_of(tid)); }

void Shim::release_retakes() {
  for (auto it = retakes_.begin(); it != retakes_.end();) {
    const pid_t process = *it;
    if (!settled(process)) {
      ++it;
      continue;
    }
    for (pid_t sysmon : sysmons_)
      if (Thread& s = threads_[sysmon]; s.parked && tgid_of(sysmon) == process) {
        s.parked = false;
        s.sysmon_rounds = s.started ? 2 : 3;  // from its first stop: one sleep before its first round
        s.started = true;
        ptrace(PTRACE_CONT, sysmon, nullptr, nullptr);
      }
    it = retakes_.erase(it);
  }
}

void Shim::start_wait(pid_t tid, user_regs_struct& regs, Wait kind, std::int64_t deadline) {
  Thread& t = threads_[tid];
  t.wait = kind;
  t.deadline = deadline;
  t.wake_sent = false;
  ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
  ptrace(PTRACE_SYSCALL, tid, nullptr, nullptr);  // to see the wait's syscall-exit stop
}

void Shim::on_seccomp(pid_t tid) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return;
  const std::int64_t v = now_of(tid);
  auto skip = [&](long result) {
    regs.orig_rax = static_cast<unsigned long long>(-1);
    regs.rax = static_cast<unsigned long long>(result);
    ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
    ptrace(PTRACE_CONT, tid, nullptr, nullptr);
  };
  auto pass = [&] { ptrace(PTRACE_CONT, tid, nullptr, nullptr); };
  switch (regs.orig_rax) {
    case SYS_clock_gettime: {
      std::int64_t ns = clock_value(regs.rdi, read_clock(tid, realtime_clock(regs.rdi)));
      timespec ts{ns / kNs, ns % kNs};
      skip(write_mem(tid, regs.rsi, &ts, sizeof ts) ? 0 : -EFAULT);
      return;
    }
    case SYS_gettimeofday: {
      std::int64_t ns = clock_value(CLOCK_REALTIME, read_clock(tid, true));
      timeval tv{ns / kNs, (ns % kNs) / 1000};
      struct { int minuteswest = 0, dsttime = 0; } tz;
      bool ok = (regs.rdi == 0 || write_mem(tid, regs.rdi, &tv, sizeof tv)) &&
                (regs.rsi == 0 || write_mem(tid, regs.rsi, &tz, sizeof tz));
      skip(ok ? 0 : -EFAULT);
      return;
    }
    case SYS_time: {
      std::int64_t sec = clock_value(CLOCK_REALTIME, read_clock(tid, true)) / kNs;
      skip(regs.rdi == 0 || write_mem(tid, regs.rdi, &sec, sizeof sec) ? sec : -EFAULT);
      return;
    }
    case SYS_sched_getaffinity: {
      // One CPU (the lowest the thread may run on), so that a program sizing its parallelism
      // by the machine runs as on one core. Why: Go computes runtime.NumCPU from this call
      // (runtime/os_linux.go getproccount), and Volcano v1.7.0's main sets
      // runtime.GOMAXPROCS(runtime.NumCPU()) (cmd/scheduler/main.go, cmd/controller-manager/main.go),
      // overriding serve's GOMAXPROCS=1: its goroutines then ran on two threads at once.
      std::array<unsigned char, 8192> mask{};
      const std::size_t len = std::min<std::size_t>(regs.rsi, mask.size());
      const pid_t who = regs.rdi == 0 ? tid : static_cast<pid_t>(regs.rdi);
      const long n = syscall(SYS_sched_getaffinity, who, len, mask.data());
      if (n <= 0) return skip(n < 0 ? -errno : n);
      const auto first = std::find_if(mask.begin(), mask.begin() + n, [](unsigned char b) { return b != 0; });
      if (first != mask.begin() + n) {
        *first = static_cast<unsigned char>(*first & -*first);  // its lowest bit
        std::fill(first + 1, mask.begin() + n, 0);
      }
      return skip(write_mem(tid, regs.rdx, mask.data(), static_cast<std::size_t>(n)) ? n : -EFAULT);
    }
    case SYS_futex: {
      const int op = static_cast<int>(regs.rsi);
      std::int64_t t = 0;
      if (!read_timespec(tid, regs.r10, t)) return pass();  // the kernel reports the bad pointer
      // FUTEX_WAIT's timeout is relative; FUTEX_WAIT_BITSET's is absolute on MONOTONIC, or on
      // REALTIME with FUTEX_CLOCK_REALTIME (futex(2)).
      std::int64_t deadline = (op & FUTEX_CMD_MASK) == FUTEX_WAIT ? v + t
                              : (op & FUTEX_CLOCK_REALTIME)       ? t - epoch_
                                                                  : t - kMonotonicBase;
      if (deadline <= v) return skip(-ETIMEDOUT);
      regs.r10 = 0;  // untimed: the shim ends it at the deadline
      log(tid, "futex wait until", deadline);
      return start_wait(tid, regs, Wait::futex, deadline);
    }
    case SYS_epoll_wait:
    case SYS_epoll_pwait: {
      if (static_cast<int>(regs.r10) < 0) {  // epoll_wait without a timeout
        let_sysmon_retake(tid);
        return pass();
      }
      std::int64_t deadline = v + static_cast<std::int64_t>(static_cast<int>(regs.r10)) * 1'000'000;
      regs.r10 = static_cast<unsigned long long>(-1);
      log(tid, "epoll wait until", deadline);
      return start_wait(tid, regs, Wait::epoll, deadline);
    }
    case SYS_nanosleep:
    case SYS_clock_nanosleep: {
      // Go's sysmon let go for a retake (let_sysmon_retake) starts each round with a usleep.
      if (Thread& t = threads_[tid]; t.sysmon_rounds > 0 && --t.sysmon_rounds == 0 && hold_sysmon_) return park(tid);
      const bool clock_call = regs.orig_rax == SYS_clock_nanosleep;
      const std::uint64_t clock = clock_call ? regs.rdi : CLOCK_MONOTONIC;
      const bool absolute = clock_call && (regs.rsi & TIMER_ABSTIME);
      std::int64_t t = 0;
      if (!read_timespec(tid, clock_call ? regs.rdx : regs.rdi, t) || t < 0) return pass();
      if (!absolute && t <= opt_.real_sleep_max_ns) return pass();  // pacing, not time (see header)
      std::int64_t deadline = absolute ? t - (realtime_clock(clock) ? epoch_ : kMonotonicBase) : v + t;
      if (deadline <= v) return skip(0);
      threads_[tid].remaining = absolute ? 0 : (clock_call ? regs.r10 : regs.rsi);
      regs.orig_rax = SYS_pause;  // an untimed sleep the shim ends at the deadline
      log(tid, "sleep until", deadline);
      return start_wait(tid, regs, Wait::sleep, deadline);
    }
    default:
      return pass();
  }
}

void Shim::on_syscall_exit(pid_t tid) {
  Thread& t = threads_[tid];
  user_regs_struct regs{};
  if (t.wait != Wait::none && ptrace(PTRACE_GETREGS, tid, nullptr, &regs) == 0) {
    const long result = static_cast<long>(regs.rax);
    const bool restart = result == -kErestartsys || result == -kErestartnointr || result == -kErestartnohand ||
                         result == -kErestartRestartblock;
    long value = result;
    if (t.wake_sent && (restart || result == -EINTR)) {
      value = t.wait == Wait::futex ? -ETIMEDOUT : 0;  // what the timeout would have returned
    } else if (restart || result == -EINTR) {
      value = -EINTR;  // a real signal interrupted the wait
      std::int64_t left = std::max<std::int64_t>(0, t.deadline - now_of(tid));
      timespec rem{left / kNs, left % kNs};
      if (t.wait == Wait::sleep && t.remaining != 0) write_mem(tid, t.remaining, &rem, sizeof rem);
    }
    if (value != result) {
      regs.rax = static_cast<unsigned long long>(value);
      ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
    }
  }
  t = Thread{};
  ptrace(PTRACE_CONT, tid, nullptr, nullptr);
}

void Shim::on_stop(pid_t tid, int status) {
  const int sig = WSTOPSIG(status), event = status >> 16;
  if (sig == (SIGTRAP | 0x80)) return on_syscall_exit(tid);
  if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) return on_seccomp(tid);
  if (sig == SIGTRAP && event == PTRACE_EVENT_EXEC) {
    unsigned long former = 0;
    ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &former);
    if (static_cast<pid_t>(former) != tid) forget_thread(static_cast<pid_t>(former));
    threads_[tid] = Thread{};
    edit_auxv(tid);
    const std::vector<TextRegion> text = read_text(tid);
    pin_go_runtime(tid, text);
    // `sh -c "controller & exec scheduler"` makes two Go processes: each has its sysmon held.
    if (go_runtime_ && hold_sysmon_)
      sysmon_next_.insert(tid);
    else
      sysmon_next_.erase(tid);
    go_clocks_.erase(tid);
    if (opt_.speed <= 0 && go_runtime_ && flags_entry_ != 0 && write_mem(tid, flags_entry_, &kAtIgnore, 8))
      if (auto clock = install_go_clock(tid, text, vdso_, vdso_slot_, flags_entry_ + 8, epoch_)) {
        go_clocks_[tid] = {*clock, -1};
        publish_virtual();
        if (opt_.verbose) std::fprintf(stderr, "timeshim: [%d] Go clock reads answered in the program\n", tid);
      }
  } else if (sig == SIGTRAP && (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK)) {
    unsigned long child = 0;
    if (ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child) == 0) {
      const pid_t c = static_cast<pid_t>(child);
      const bool seen = threads_.count(c) != 0;  // its first stop may come before this event
      threads_[c];
      if (event == PTRACE_EVENT_CLONE && sysmon_next_.erase(tid) != 0) {
        sysmons_.insert(c);
        if (seen) ptrace(PTRACE_INTERRUPT, c, nullptr, nullptr);  // parked at its next stop
      }
    }
  } else if (event != 0) {
    // PTRACE_EVENT_STOP: a new thread's first stop, the stop after PTRACE_INTERRUPT, or a
    // group stop (job control is not supported: the program keeps running).
    if (sysmons_.count(tid) != 0) return park(tid);
  } else {
    ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));  // deliver the signal
    return;
  }
  ptrace(PTRACE_CONT, tid, nullptr, nullptr);
}

// A thread that has exited (or whose id an exec gave to its process's leader): what the shim
// keeps for it goes, with its open /proc files; a process's pidfd goes with its leader, whose
// exit is reported after every other thread's.
void Shim::forget_thread(pid_t tid) {
  threads_.erase(tid);
  sysmons_.erase(tid);
  tgid_.erase(tid);
  if (auto it = proc_fds_.find(tid); it != proc_fds_.end()) {
    for (int fd : it->second)
      if (fd >= 0) close(fd);
    proc_fds_.erase(it);
  }
  if (auto it = pidfds_.find(tid); it != pidfds_.end()) {
    if (it->second >= 0) close(it->second);
    pidfds_.erase(it);
  }
}

void Shim::drain_children() {
  for (;;) {
    int status = 0;
    pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
    if (tid == 0) return;
    if (tid < 0) {
      if (errno == EINTR) continue;
      threads_.clear();  // ECHILD: everything has exited
      return;
    }
    if (WIFSTOPPED(status)) {
      threads_[tid];
      on_stop(tid, status);
    } else if (WIFEXITED(status) || WIFSIGNALED(status)) {
      forget_thread(tid);
      if (tid == main_pid_) exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
}

// To every process of the target, once each, as a terminal signals its foreground process
// group: `sh -c "a & exec b"` runs a and b as two processes, and a SIGTERM that reached b
// alone left a running, so the shim, which waits for every traced thread, never exited.
// Go's sysmon is let go first: what the program does after the signal is its shutdown, where
// the run's outputs no longer depend on goroutine order, and Go code may then spin on its one
// P until sysmon preempts it (the Kueue v0.9.5 manager stopping its webhook server under
// GOMAXPROCS=1 used a core for the 5 s serve gave it, and exited at once with sysmon running).
void Shim::forward_signal(int sig) {
  if (run_.active) finish_run("signal");
  for (pid_t sysmon : sysmons_)
    if (auto it = threads_.find(sysmon); it != threads_.end() && it->second.parked) {
      it->second.parked = false;
      ptrace(PTRACE_CONT, sysmon, nullptr, nullptr);
    }
  sysmons_.clear();  // never held again
  sysmon_next_.clear();
  hold_sysmon_ = false;
  std::set<pid_t> processes;
  for (const auto& [tid, t] : threads_) {
    std::ifstream status("/proc/" + std::to_string(tid) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("Tgid:", 0) == 0) {
        processes.insert(static_cast<pid_t>(std::stol(line.substr(5))));
        break;
      }
  }
  if (main_pid_ > 0) processes.insert(main_pid_);
  for (pid_t pid : processes) kill(pid, sig);
}

pid_t Shim::tgid_of(pid_t tid) {
  auto it = tgid_.find(tid);
  if (it != tgid_.end()) return it->second;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/status", tid);
  std::ifstream status(path);
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Tgid:", 0) == 0) return tgid_[tid] = static_cast<pid_t>(std::stol(line.substr(5)));
  return -1;
}

std::int64_t Shim::reads_of(pid_t tid) {
  if (go_clocks_.empty()) return reads_;
  auto it = go_clocks_.find(tgid_of(tid));
  if (it == go_clocks_.end()) return reads_;
  return std::max<std::int64_t>(0, go_clock_reads(it->first, it->second.first));
}

std::int64_t Shim::read_clock(pid_t tid, bool wall_clock) {
  if (opt_.speed > 0) return now();
  if (auto it = go_clocks_.find(tgid_of(tid)); it != go_clocks_.end())
    return virtual_ + std::max<std::int64_t>(0, wall_clock ? go_clock_count_read(it->first, it->second.first)
                                                           : go_clock_reads(it->first, it->second.first));
  count_read(wall_clock);
  return now();
}

// Shows the programs' Go clocks the virtual time (before any thread is woken for it).
void Shim::publish_virtual() {
  for (auto it = go_clocks_.begin(); it != go_clocks_.end();) {
    if (it->second.second == virtual_ || set_go_clock(it->first, it->second.first, virtual_)) {
      it->second.second = virtual_;
      ++it;
    } else {
      it = go_clocks_.erase(it);  // the process has gone
    }
  }
}

// In the controller's virtual time: each deadline less its process's reads (see now()).
std::int64_t Shim::earliest_deadline() {
  std::int64_t best = -1;
  for (const auto& [tid, t] : threads_)
    if (t.wait != Wait::none && !t.wake_sent) {
      const std::int64_t d = opt_.speed > 0 ? t.deadline : t.deadline - reads_of(tid);
      if (best < 0 || d < best) best = d;
    }
  return best;
}

void Shim::wake_due() {
  publish_virtual();
  for (auto& [tid, t] : threads_)
    if (t.wait != Wait::none && !t.wake_sent && t.deadline <= now_of(tid)) {
      t.wake_sent = true;
      ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    }
}

void Shim::arm_timer() {
  if (timer_fd_ < 0) return;
  itimerspec spec{};
  std::int64_t d = earliest_deadline();
  if (d >= 0) {
    std::int64_t at = wall0_ + static_cast<std::int64_t>(static_cast<double>(d) / opt_.speed) + 1;
    spec.it_value = {at / kNs, at % kNs};
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

// Quiet: every thread sleeps in the kernel (state S) in an untimed wait, a short real sleep,
// or a wait the shim holds until a virtual deadline; not quiet when a thread runs, is stopped
// with an event the shim has yet to handle, has been woken, or waits in a poll / select the
// shim does not virtualize, nor while a packet is on its way (network_backlog_empty).
bool Shim::quiet(pid_t process, bool after_cpu_pass) {
  if (!network_backlog_empty()) return false;
  for (auto& [tid, t] : threads_)
    if (!t.parked && (process == 0 || tgid_of(tid) == process) && !thread_blocked(tid, t, after_cpu_pass)) return false;
  return true;
}

// /proc/TID/stat (0), syscall (1), schedstat (2), io (3), opened once per thread (closed when it exits:
// forget_thread) and read again with pread: quiet() runs on every look, and RUN looks every few
// tens of microseconds.
int Shim::proc_fd(pid_t tid, int which) {
  static const char* const kNames[] = {"stat", "syscall", "schedstat", "io"};
  auto [it, added] = proc_fds_.try_emplace(tid, std::array<int, 4>{-1, -1, -1, -1});
  int& fd = it->second[static_cast<std::size_t>(which)];
  if (fd < 0) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/%s", tid, kNames[which]);
    fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  return fd;
}

bool Shim::read_proc(pid_t tid, int which, char* buf, std::size_t size) {
  const int fd = proc_fd(tid, which);
  const ssize_t n = fd < 0 ? -1 : pread(fd, buf, size - 1, 0);
  if (n <= 0) {  // the thread is gone (or its id reused): open afresh next time
    if (fd >= 0) close(fd);
    proc_fds_[tid][static_cast<std::size_t>(which)] = -1;
    return false;
  }
  buf[n] = 0;
  return true;
}

bool Shim::thread_blocked(pid_t tid, Thread& t, bool after_cpu_pass) {
  if (t.wake_sent) return false;
  char buf[512];
  if (!read_proc(tid, 0, buf, sizeof buf)) return false;
  const char* close_paren = std::strrchr(buf, ')');
  if (!close_paren || close_paren[1] != ' ' || close_paren[2] != 'S') return false;
  if (t.wait != Wait::none) return true;
  if (after_cpu_pass && t.syscall_cpu == t.cpu_look) return t.syscall_blocks;  // not run since: the same call
  if (!read_proc(tid, 1, buf, sizeof buf)) return false;
  long nr = -1;
  if (std::sscanf(buf, "%ld", &nr) != 1) return false;
  // A short real sleep (--real-sleep-max) counts as blocked: in Go it is sysmon pacing
  // itself, which waits for *virtual* time to pass (e.g. retake() hands off a P held in a
  // syscall only after 10 ms of nanotime), so waiting for it to end would never end.
  t.syscall_blocks = !(nr == SYS_poll || nr == SYS_ppoll || nr == SYS_select || nr == SYS_pselect6 || nr == SYS_epoll_pwait2);
  // A run since the first pass changed the CPU time: this entry is then never matched.
  t.syscall_cpu = after_cpu_pass ? t.cpu_look : UINT64_MAX;
  return t.syscall_blocks;
}

// The CPU time a thread has run (the first field of /proc/TID/schedstat); 0 if unreadable.
std::uint64_t Shim::cpu_ns(pid_t tid) {
  char buf[128];
  return read_proc(tid, 2, buf, sizeof buf) ? std::strtoull(buf, nullptr, 10) : 0;
}

// Settled: quiet at one instant, so that only something outside the target can wake it.
// Three passes over the threads: CPU times, states (quiet()), CPU times again. A thread whose
// CPU time did not change across the passes has not run in between; found asleep (state S)
// at the second pass, it had not run since the first either, and a thread falls asleep only
// by running, so it was asleep from the first pass's read of it to the second's. So at the
// instant between the first pass and the second every thread was. (A thread woken and not
// yet run is not in state S.) Before, two quiet passes with the CPU times between them read
// each thread's state twice: the reads of /proc/TID/stat were most of the shim's CPU time
// (55 threads of the Volcano binaries, a look every few tens of microseconds in a RUN).
// process: only that process's threads (0: all).
bool Shim::settled(pid_t process) {
  const std::vector<std::uint64_t> before = cpu_times(process, true);
  return quiet(process, true) && cpu_times(process, false) == before;
}

// No packet waits in any CPU's network backlog (/proc/net/softnet_stat, column 12: the
// input and process queues' lengths, net/core/net-procfs.c softnet_seq_show; Linux 5.10+,
// older kernels count as empty). A loopback send queues its packet there and normally
// delivers it before the send returns, but when the kernel defers that work to ksoftirqd
// the packet reaches neither socket for up to milliseconds: a request the target sent, or
// an answer to it, that neither serve's look at its sockets nor a thread's state shows. Seen
// at 5-12 of the write gate's openings per run of bench/volcano_e3_vs_binary.py's `mini`, two
// runs and a Kueue oracle at once on 2 cores (serve's quiet period usually outlasts it). A
// packet between the queue and its socket at this read lands within microseconds.
bool Shim::network_backlog_empty() {
  if (softnet_fd_ == -2) softnet_fd_ = open("/proc/net/softnet_stat", O_RDONLY | O_CLOEXEC);
  if (softnet_fd_ < 0) return true;
  softnet_text_.resize(64 * 1024);  // a line of about 140 bytes per CPU
  const ssize_t n = pread(softnet_fd_, softnet_text_.data(), softnet_text_.size() - 1, 0);
  if (n <= 0) return true;
  softnet_text_[static_cast<std::size_t>(n)] = 0;
  for (char* line = softnet_text_.data(); *line;) {
    char* end = std::strchr(line, '\n');
    if (end) *end = 0;
    unsigned long column[12] = {};
    if (std::sscanf(line, "%lx %lx %lx %lx %lx %lx %lx %lx %lx %lx %lx %lx", &column[0], &column[1], &column[2],
                    &column[3], &column[4], &column[5], &column[6], &column[7], &column[8], &column[9], &column[10],
                    &column[11]) == 12 &&
        column[11] != 0)
      return false;
    if (!end) break;
    line = end + 1;
  }
  return true;
}

// Each thread's id and CPU time (parked ones left out), in thread order: two equal lists mean
// the same threads and none of them ran in between. first_pass: kept as each thread's
// cpu_look (thread_blocked). process: only that process's threads (0: all).
std::vector<std::uint64_t> Shim::cpu_times(pid_t process, bool first_pass) {
  std::vector<std::uint64_t> out;
  for (auto& [tid, t] : threads_)
    if (!t.parked && (process == 0 || tgid_of(tid) == process)) {
      out.push_back(static_cast<std::uint64_t>(tid));
      out.push_back(cpu_ns(tid));
      if (first_pass) t.cpu_look = out.back();
    }
  return out;
}

// The target's processes (by the Tgid of each thread, looked up once per thread).
std::set<pid_t> Shim::processes() {
  std::set<pid_t> out;
  for (const auto& [tid, t] : threads_)
    if (const pid_t pid = tgid_of(tid); pid > 0) out.insert(pid);
  return out;
}

// What the target's processes have written so far: the sum of /proc/PID/io wchar, which
// counts the write family only (fs/read_write.c), not send/sendmsg (net/socket.c). So it tells
// that no request went out only for Go processes, whose TCP writes are write/writev
// (internal/poll fd_unix.go Write, writev.go): -1 (look at the sockets) if a process is not
// one (no Go clock installed) or unreadable. Cheap: a pread per process.
std::int64_t Shim::bytes_written() {
  std::int64_t total = 0;
  for (pid_t pid : processes()) {
    char buf[512];
    if (go_clocks_.count(pid) == 0 || !read_proc(pid, 3, buf, sizeof buf)) return -1;
    const char* at = std::strstr(buf, "wchar:");
    if (!at) return -1;
    total += std::strtoll(at + 6, nullptr, 10);
  }
  return total;
}

// Per TCP socket of the target (by process, fd): the bytes written into it (acked + still
// queued: SIOCOUTQ) and received. The Go runtime writes to a pipe to wake its network poller
// (netpollBreak), so a change of wchar alone does not mean a request; this tells. Each socket
// is copied in with pidfd_getfd only for the look and closed at once: a copy kept open would
// keep the connection open after the target closed it.
bool Shim::tcp_traffic(std::set<pid_t>& procs, std::vector<std::uint64_t>& out) {
  out.clear();
  for (pid_t pid : procs) {
    auto pit = pidfds_.find(pid);
    if (pit == pidfds_.end()) pit = pidfds_.emplace(pid, static_cast<int>(syscall(SYS_pidfd_open, pid, 0))).first;
    if (pit->second < 0) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR* dir = opendir(path);
    if (!dir) return false;
    std::vector<int> fds;
    while (dirent* e = readdir(dir))
      if (e->d_name[0] != '.') fds.push_back(std::atoi(e->d_name));
    closedir(dir);
    std::sort(fds.begin(), fds.end());
    for (int fd : fds) {
      char link[64], target[64];
      std::snprintf(link, sizeof link, "/proc/%d/fd/%d", pid, fd);
      const ssize_t n = readlink(link, target, sizeof target - 1);
      if (n <= 0 || std::strncmp(target, "socket:", 7) != 0) continue;
      const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, pit->second, fd, 0));
      if (copy < 0) continue;  // closed since the listing
      int protocol = 0;
      socklen_t len = sizeof protocol;
      tcp_info info{};
      socklen_t info_len = sizeof info;
      int queued = 0;
      if (getsockopt(copy, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 && protocol == IPPROTO_TCP &&
          getsockopt(copy, IPPROTO_TCP, TCP_INFO, &info, &info_len) == 0 && ioctl(copy, SIOCOUTQ, &queued) == 0) {
        out.push_back(static_cast<std::uint64_t>(pid) << 32 | static_cast<std::uint32_t>(fd));
        out.push_back(info.tcpi_bytes_acked + static_cast<std::uint64_t>(queued));
        out.push_back(info.tcpi_bytes_received);
      }
      close(copy);
    }
  }
  return true;
}

std::string Shim::answer(const std::string& request) {
  if (request == "STATUS") {
    const std::int64_t v = opt_.speed > 0 ? now() : virtual_;
    const std::int64_t d = opt_.speed > 0 ? earliest_deadline() : to_virtual(earliest_deadline());
    return "now " + std::to_string(v) + " quiet " + (quiet() ? "1" : "0") + " deadline " + std::to_string(d) +
           " threads " + std::to_string(threads_.size()) + " reads " + std::to_string(reads_);
  }
  if (opt_.speed > 0 && request.rfind("ADVANCE", 0) == 0) return "error ADVANCE needs --control mode";
  if (request == "ADVANCE_TO_DEADLINE") {
    virtual_ = std::max(virtual_, to_virtual(earliest_deadline()));
    wake_due();
    return "now " + std::to_string(virtual_);
  }
  if (request.rfind("ADVANCE ", 0) == 0) {
    try {
      virtual_ = std::max(virtual_, parse_int(request.substr(8), "ADVANCE"));
    } catch (const std::invalid_argument& e) {
      return std::string("error ") + e.what();
    }
    wake_due();
    return "now " + std::to_string(virtual_);
  }
  return "error unknown request '" + request + "' (STATUS, ADVANCE <ns>, ADVANCE_TO_DEADLINE, RUN ...)";
}

// RUN <event> <until> <slack> <floor> <finish_at> (virtual ns, -1: none; timeshim.hpp):
// answered by finish_run once the run stops.
std::string Shim::start_run(const std::string& args, int fd) {
  if (opt_.speed > 0) return "error RUN needs --control mode";
  if (run_.active) return "error a RUN is in progress";
  if (no_epoll_pwait2_) return "error RUN needs epoll_pwait2 (Linux 5.11)";
  std::istringstream in(args);
  Run r;
  if (!(in >> r.event >> r.until >> r.slack >> r.floor >> r.finish_at) || r.slack < 0)
    return "error RUN <event> <until> <slack> <floor> <finish_at> (ns, -1: none)";
  r.active = true;
  r.fd = fd;
  r.written = bytes_written();
  std::set<pid_t> procs = processes();
  if (!tcp_traffic(procs, r.tcp)) return "error RUN: cannot read the target's sockets";
  r.wall_end = wall_ns(CLOCK_MONOTONIC) + kRunWallMax;
  run_ = r;
  run_timers();
  return {};
}

void Shim::finish_run(const char* why) {
  const std::string reply = "now " + std::to_string(virtual_) + " steps " + std::to_string(run_.steps) + " stop " + why +
                            " deadline " + std::to_string(to_virtual(earliest_deadline())) + "\n";
  send(run_.fd, reply.data(), reply.size(), MSG_NOSIGNAL);
  run_ = Run{};
}

// One look of a RUN: once the target has settled, either stop (it wrote something, which
// serve must take; its next timer is past the next cluster event, `until` or the end; no
// timer) or move its clock as serve's step would (api/clock.cpp shimmed_step: to its
// earliest timer, rounded up to the microsecond, plus the slack, never past the event, never
// before `floor`) and wake the threads due.
void Shim::run_timers() {
  if (!run_.active) return;
  const bool settled_now = settled();
  if (!settled_now && wall_ns(CLOCK_MONOTONIC) < run_.wall_end) return;  // look again shortly
  if (!settled_now) return finish_run("busy");
  if (const std::int64_t written = bytes_written(); written < 0 || written != run_.written) {
    std::set<pid_t> procs = processes();
    std::vector<std::uint64_t> tcp;
    if (!tcp_traffic(procs, tcp) || tcp != run_.tcp) return finish_run("wrote");  // a request to serve, or its answer
    run_.written = written;  // Go's netpollBreak writes to a pipe: not a request
  }
  if (run_.finish_at >= 0 && virtual_ >= run_.finish_at) return finish_run("end");
  const std::int64_t deadline = to_virtual(earliest_deadline());
  if (deadline < 0) return finish_run("no-timer");
  const std::int64_t timer = (deadline + 999) / 1000 * 1000;
  if (run_.event >= 0 && timer > run_.event) return finish_run("event");
  std::int64_t next = timer + run_.slack;
  if (run_.event >= 0) next = std::min(next, run_.event);
  if (run_.until >= 0 && next > run_.until) return finish_run("until");
  if (wall_ns(CLOCK_MONOTONIC) >= run_.wall_end) return finish_run("wall");
  virtual_ = std::max(virtual_, std::max(next, run_.floor));
  ++run_.steps;
  wake_due();
}

void Shim::on_client(Client& c) {
  char buf[4096];
  ssize_t n = read(c.fd, buf, sizeof buf);
  if (n <= 0) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
    if (run_.fd == c.fd) run_ = Run{};
    close(c.fd);
    clients_.erase(c.fd);
    return;
  }
  c.input.append(buf, static_cast<std::size_t>(n));
  for (std::size_t nl; (nl = c.input.find('\n')) != std::string::npos;) {
    std::string line = c.input.substr(0, nl);
    c.input.erase(0, nl + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    drain_children();  // answer about the target as it is now
    std::string reply = line.rfind("RUN ", 0) == 0 ? start_run(line.substr(4), c.fd) : answer(line);
    if (reply.empty()) continue;  // a RUN answers when it stops
    reply += "\n";
    send(c.fd, reply.data(), reply.size(), MSG_NOSIGNAL);
  }
}

int Shim::run() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&mask, s);
  sigprocmask(SIG_BLOCK, &mask, &original_mask_);
  signal_fd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  auto watch = [&](int fd) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
  };
  watch(signal_fd_);
  if (opt_.speed > 0) {
    timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    watch(timer_fd_);
  } else {
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (opt_.control_socket.size() >= sizeof addr.sun_path)
      throw std::invalid_argument("kubesim-timeshim: --control: socket path too long: " + opt_.control_socket);
    std::strcpy(addr.sun_path, opt_.control_socket.c_str());
    unlink(addr.sun_path);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listen_fd_, 8) != 0)
      throw std::runtime_error("kubesim-timeshim: --control " + opt_.control_socket + ": " + std::strerror(errno));
    watch(listen_fd_);
  }
  spawn();
  while (true) {
    drain_children();
    if (threads_.empty()) break;
    if (opt_.speed > 0) {
      wake_due();
      arm_timer();
    }
    epoll_event events[16];
    // During a RUN the target is looked at every kRunLook: a thread that goes to sleep in an
    // untimed wait makes no stop the shim would see.
    // So is a process whose sysmon waits to be let go (release_retakes).
    const bool look_again = run_.active || !retakes_.empty();
    const timespec look{0, run_look_};
    int n = no_epoll_pwait2_ ? -1 : epoll_pwait2(epoll_, events, 16, look_again ? &look : nullptr, nullptr);
    if (no_epoll_pwait2_ || (n < 0 && errno == ENOSYS)) {  // Linux < 5.11: start_run refuses RUN
      no_epoll_pwait2_ = true;
      n = epoll_wait(epoll_, events, 16, look_again ? 1 : -1);  // a sysmon to let go: a look every ms
    }
    if (!retakes_.empty()) release_retakes();
    if (n != 0) {
      run_look_ = kRunLook;
      // A target that stops more often than every look would keep epoll from timing out:
      // the RUN's wall-time bound holds all the same.
      if (run_.active && wall_ns(CLOCK_MONOTONIC) >= run_.wall_end) run_timers();
    } else {  // no stop to handle: the target may have settled
      const std::int64_t steps = run_.steps;
      run_timers();
      run_look_ = run_.steps != steps ? kRunLook : std::min(2 * run_look_, kRunLookMax);
    }
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == signal_fd_) {
        signalfd_siginfo info;
        while (read(signal_fd_, &info, sizeof info) == sizeof info)
          if (info.ssi_signo != SIGCHLD) forward_signal(static_cast<int>(info.ssi_signo));
      } else if (fd == timer_fd_) {
        std::uint64_t expirations;
        while (read(timer_fd_, &expirations, sizeof expirations) > 0) {
        }
      } else if (fd == listen_fd_) {
        int c = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) {
          clients_[c] = Client{c, {}};
          watch(c);
        }
      } else if (auto it = clients_.find(fd); it != clients_.end()) {
        on_client(it->second);
      }
    }
  }
  for (auto& [fd, c] : clients_) close(fd);
  if (listen_fd_ >= 0) unlink(opt_.control_socket.c_str());
  return exit_status_;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  int i = 1;
  auto value = [&](const std::string& flag) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument("kubesim-timeshim: " + flag + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--speed") {
      std::string v = value(a);
      try {
        std::size_t used = 0;
        o.speed = std::stod(v, &used);
        if (used != v.size() || !(o.speed > 0)) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        throw std::invalid_argument("kubesim-timeshim: --speed: expected a number > 0, got '" + v + "'");
      }
    } else if (a == "--control") {
      o.control_socket = value(a);
    } else if (a == "--epoch") {
      o.epoch_ns = parse_int(value(a), "--epoch (Unix seconds)") * kNs;
    } else if (a == "--real-sleep-max-us") {
      o.real_sleep_max_ns = parse_int(value(a), "--real-sleep-max-us") * 1000;
    } else if (a == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int(value(a), "--seed"));
    } else if (a == "--go-map-draws") {
      const std::string v = value(a);
      if (v != "pinned" && v != "per-goroutine")
        throw std::invalid_argument("kubesim-timeshim: --go-map-draws: expected pinned or per-goroutine, got '" + v +
                                    "'");
      o.map_draws_per_goroutine = v == "per-goroutine";
    } else if (a == "--verbose") {
      o.verbose = true;
    } else {
      throw std::invalid_argument("kubesim-timeshim: unknown option '" + a + "'");
    }
  }
  for (; i < argc; ++i) o.command.emplace_back(argv[i]);
  if (o.command.empty()) throw std::invalid_argument("kubesim-timeshim: no command after --");
  if ((o.speed > 0) == !o.control_socket.empty())
    throw std::invalid_argument("kubesim-timeshim: give exactly one of --speed X and --control SOCKET");
  return o;
}

int run(const Options& options) { return Shim(options).run(); }

}  // namespace kubesim::timeshim
