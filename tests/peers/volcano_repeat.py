#!/usr/bin/python3
"""The real Volcano v1.7.0 binaries on simulated time, twice at once: one jobs.csv (issue 27).

Usage: volcano_repeat.py KUBESIM KUBESIM_TIMESHIM PEERS_DIR WORK_DIR
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository. Skips (exit 0,
one line) when the Volcano binaries are absent.

Runs bench/volcano_e3_vs_binary.py's `mini` experiment (E3's shape in 90 s: 42 jobs, 3 nodes of
16 cores) twice at once: vc-controller-manager and vc-scheduler under one kubesim-timeshim on
`kubesim serve --clock cosim --cosim-write-gate all`, with GOGC=off for the binaries. Why
GOGC=off: with the GC on, two runs still differed (E3 at 1/8: 3 jobs.csv in 5 runs; this case:
5873 vs 5876 steps), with it off they did not (docs/evidence/cosim.md, "The Volcano binaries").
Two causes are fixed in the shim (a thread more or less in vc-scheduler, changing what the GC
marks; zero-timeout polls); with the GC on still 1 pair of 3 differs: the first GC's mark worker
start (runtime mgc.go gcBgMarkStartWorkers, notetsleepg) lets goroutines run on another thread
for as long as real time decides, and GC timing reaches the program's clock through each GC's
wall-clock read (mgc.go gcMarkTermination).
"""
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "peers"))
from real_scheduler import first_difference, peers_dir  # noqa: E402


def main():
    if len(sys.argv) != 5:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    kubesim, timeshim, peers, work = sys.argv[1:5]
    peers = os.path.abspath(peers_dir(REPO, peers))
    if not os.path.exists(os.path.join(peers, "volcano", "vc-scheduler-volcano-v1.7.0-linux-amd64.xz")):
        print(f"SKIP the Volcano binaries twice: {peers}/volcano not found (the oracle binaries live in ../shared/peers)")
        return 0
    env = dict(os.environ, KUBESIM_PEERS=peers, GOGC="off")
    bench = os.path.join(REPO, "bench", "volcano_e3_vs_binary.py")
    start = time.monotonic()
    runs = [subprocess.Popen([sys.executable, bench, kubesim, timeshim, os.path.join(work, f"run{i}"), "--experiment",
                              "mini", "--scale", "8", "--seeds", "1", "--gate", "all"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i in (1, 2)]
    outputs = [r.communicate()[0] for r in runs]
    wall = time.monotonic() - start
    jobs = []
    for i, (r, out) in enumerate(zip(runs, outputs), 1):
        path = os.path.join(work, f"run{i}", "real", "jobs.csv")
        if r.returncode != 0 or not os.path.exists(path):
            print(f"FAIL run {i}: exit {r.returncode}\n{out}")
            return 1
        jobs.append(open(path, "rb").read())
    served = [line for out in outputs for line in out.splitlines() if "serve ended" in line]
    if jobs[0] != jobs[1]:
        print(f"FAIL the two runs' jobs.csv differ: {first_difference(jobs)}")
        return 1
    print(f"PASS the Volcano binaries twice at once: identical jobs.csv ({len(jobs[0].splitlines()) - 1} jobs), "
          f"{wall:.1f} s wall; "
          + "; ".join(served))
    return 0


if __name__ == "__main__":
    sys.exit(main())
