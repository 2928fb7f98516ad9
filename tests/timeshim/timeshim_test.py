#!/usr/bin/python3
"""kubesim-timeshim on its test program (tools/timeshim/probe.cpp), for ctest.

Usage: timeshim_test.py KUBESIM_TIMESHIM TIMESHIM_PROBE

Checks:
  a. controller mode (--control SOCKET): the probe's clocks start at the cosim epoch
     (REALTIME 2026-01-01T00:00:00Z, MONOTONIC 1 s); each of its waits (a nanosleep, a timed
     futex under a condition variable, an epoll_wait, a second thread's sleep) reports its
     virtual deadline, ends exactly when the controller advances to it and not before; the
     probe then sees exactly the virtual time;
  b. --speed 10: the same waits last their virtual length on the probe's clocks (at least,
     plus a tolerance for a loaded machine) in a tenth of it in wall time, and the exit
     status is the probe's;
  c. bad command lines: one line on stderr, exit 2.
Prints PASS/FAIL lines; exit 1 on any failure.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from checks import check, failures  # noqa: E402


def clocks(text):
    """[(label, realtime_ns, monotonic_ns)] from the probe's output."""
    out = []
    for line in text.splitlines():
        p = line.split()
        if len(p) == 5 and p[1] == "realtime":
            out.append((p[0], int(p[2]), int(p[4])))
    return out


def start_controlled(shim, probe, work, name):
    """The probe (waits of 1 s) under the shim in controller mode: (process, socket, ask, deadline)."""
    path = os.path.join(work, name)
    proc = subprocess.Popen([shim, "--control", path, "--", probe, "1000"], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = s.makefile("rw")

    def ask(request):
        f.write(request + "\n")
        f.flush()
        return f.readline().split()
    return proc, s, ask, deadline


def controller(shim, probe, work):
    proc, s, ask, deadline = start_controlled(shim, probe, work, "control.sock")

    def wait_quiet():
        while time.monotonic() < deadline:
            st = ask("STATUS")
            if st[3] == "1":
                return int(st[1]), int(st[5])
            time.sleep(0.005)
        raise TimeoutError("the probe never became quiet")

    seen = []
    try:
        # The probe's deadlines: 1 s sleep, 1 s condition variable, 1 s epoll, 1.5 s thread sleep.
        now, d = wait_quiet()
        early = ask(f"ADVANCE {d - 1}")  # one ns short of the deadline: nothing may wake
        time.sleep(0.2)
        still, d_again = wait_quiet()
        seen.append((now, d, int(early[1]), d_again))
        while True:
            ask("ADVANCE_TO_DEADLINE")
            now, d = wait_quiet()
            seen.append((now, d))
            if d < 0:
                break
    except (TimeoutError, IndexError, BrokenPipeError, ConnectionResetError):
        pass
    s.close()
    out, _ = proc.communicate(timeout=30)
    got = clocks(out)
    want = [("start", 0), ("slept", 1000), ("cv-waited", 2000), ("epoll-waited", 3000), ("joined", 4500)]
    epoch = 1767225600 * 10**9
    exact = [(label, (r - epoch) // 10**6, (m - 10**9) // 10**6) for label, r, m in got]
    check("controller: clocks and deadlines exact",
          proc.returncode == 0 and exact == [(l, ms, ms) for l, ms in want],
          f"exit {proc.returncode}; probe saw (label, REALTIME-epoch ms, MONOTONIC-1s ms) {exact}")
    first = seen[0] if seen else None
    check("controller: a wait does not end before its deadline",
          first is not None and first[1] == 10**9 and first[3] == 10**9 and first[2] == 10**9 - 1,
          f"first STATUS now/deadline, after ADVANCE deadline-1 ns, deadline again: {first}")


def run_request(shim, probe, work):
    """RUN steps the program's clock through its own timers up to the event limit (2.5 s): the
    1 s sleep and the 1 s condition-variable wait, each a step, then stops settled with the
    1 s epoll wait (due at 3 s) next; its writes to stdout (a pipe) are no reason to stop."""
    proc, s, ask, deadline = start_controlled(shim, probe, work, "run.sock")
    reply = []
    try:
        while time.monotonic() < deadline and ask("STATUS")[3] != "1":
            time.sleep(0.005)
        reply = ask(f"RUN {25 * 10**8} -1 0 0 -1")
        while ask("ADVANCE_TO_DEADLINE") and time.monotonic() < deadline:
            time.sleep(0.05)
    except (IndexError, BrokenPipeError, ConnectionResetError):
        pass
    s.close()
    out, _ = proc.communicate(timeout=30)
    epoch = 1767225600 * 10**9
    got = [(label, (r - epoch) // 10**6) for label, r, m in clocks(out)]
    check("controller: RUN takes the program's timer steps up to the event, then stops",
          reply == ["now", str(2 * 10**9), "steps", "2", "stop", "event", "deadline", str(3 * 10**9)] and
          got == [("start", 0), ("slept", 1000), ("cv-waited", 2000), ("epoll-waited", 3000), ("joined", 4500)],
          f"RUN answered {reply}; probe saw {got}")


def speed(shim, probe):
    t0 = time.monotonic()
    r = subprocess.run([shim, "--speed", "10", "--", probe, "2000"], capture_output=True, text=True, timeout=120)
    wall = time.monotonic() - t0
    got = clocks(r.stdout)
    gaps = [(b[2] - a[2]) / 1e9 for a, b in zip(got, got[1:])]
    want = [2.0, 2.0, 2.0, 1.5]
    # Each gap is at least its wait; a late wake-up costs 10x its wall latency (tolerance 1 s
    # virtual, 100 ms of wall time on a loaded machine).
    ok = r.returncode == 0 and len(gaps) == 4 and all(w <= g <= w + 1.0 for g, w in zip(gaps, want))
    real_gaps = [(b[1] - a[1]) / 1e9 for a, b in zip(got, got[1:])]
    # The two clocks are read one after the other, while virtual time runs: near, not equal.
    same = all(abs(a - b) < 0.5 for a, b in zip(real_gaps, gaps))
    check("--speed 10: virtual waits, 10x faster", ok and wall < sum(want) / 3 and same,
          f"exit {r.returncode}; MONOTONIC gaps {['%.3f' % g for g in gaps]} s (waits {want}), REALTIME gaps "
          f"{['%.3f' % g for g in real_gaps]} s; wall {wall:.2f} s for {sum(want)} s of waits")
    r = subprocess.run([shim, "--speed", "10", "--", "sh", "-c", "exit 7"], capture_output=True, text=True, timeout=60)
    check("exit status passed on", r.returncode == 7, f"sh -c 'exit 7' under the shim exits {r.returncode}")


def bad_input(shim):
    for args, expect in [([], "no command"), (["--speed", "0", "--", "true"], "--speed"),
                         (["--speed", "2", "--control", "/tmp/x", "--", "true"], "exactly one"),
                         (["--bogus", "--", "true"], "unknown option"), (["--speed"], "needs a value"),
                         (["--speed", "2", "--", "/nonexistent/program"], "cannot run")]:
        r = subprocess.run([shim, *args], capture_output=True, text=True, timeout=60)
        lines = r.stderr.strip().splitlines()
        check(f"bad input {args}", r.returncode in (2, 127) and len(lines) == 1 and expect in lines[0],
              f"exit {r.returncode}, stderr {lines}")


def main():
    shim, probe = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as work:
        controller(shim, probe, work)
        run_request(shim, probe, work)
    speed(shim, probe)
    bad_input(shim)
    print(f"{'FAIL' if failures else 'PASS'}: kubesim-timeshim tests ({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
