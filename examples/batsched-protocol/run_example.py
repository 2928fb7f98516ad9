#!/usr/bin/env python3
"""The example of examples/batsched-protocol/README.md, as the test suite runs it: the 40-line
Python FCFS scheduler (fcfs_scheduler.py) drives `kubesim run --batsim-socket` on a Batsim
workload (the NASA iPSC trace's first 1000 jobs), and its jobs.csv must equal `kubesim run --scheduler fcfs` (batsched's FCFS as kubesim
models it) job for job; then, where the real batsched is at hand (the oracles' peers folder beside
the repository, or $KUBESIM_PEERS/batsim), batsched's easy_bf over the protocol against `--scheduler easy-backfill`.

  run_example.py KUBESIM
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PLATFORM = os.path.join(ROOT, "data", "batsim", "platform_cluster128.xml")
NASA = os.path.join(ROOT, "data", "batsim", "nasa_ipsc_exact_delay.json")
WORKLOAD = None  # the NASA trace's first 1000 jobs, written by main()
FIELDS = ("final_state", "starting_time", "finish_time", "allocated_resources")


def jobs(path):
    with open(path, newline="") as f:
        return {r["job_id"]: tuple(r[k] for k in FIELDS) for r in csv.DictReader(f)}


def over_protocol(kubesim, scheduler_cmd, endpoint, out):
    sched = subprocess.Popen(scheduler_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        r = subprocess.run([kubesim, "run", "--platform", PLATFORM, "--workload", WORKLOAD, "--model", "batsim",
                            "--batsim-socket", endpoint, "--quiet", "--out", out], capture_output=True, text=True,
                           timeout=120)
        sched.wait(timeout=30)
    finally:
        if sched.poll() is None:
            sched.kill()
    if r.returncode != 0 or sched.returncode != 0:
        sys.exit(f"over the protocol: kubesim {r.returncode} {r.stderr.strip()}; scheduler {sched.returncode} "
                 f"{sched.stderr.read().strip()}")
    return jobs(os.path.join(out, "jobs.csv"))


def builtin(kubesim, setup, out):
    subprocess.run([kubesim, "run", "--platform", PLATFORM, "--workload", WORKLOAD, "--model", "batsim",
                    "--scheduler", setup, "--quiet", "--out", out], check=True, capture_output=True)
    return jobs(os.path.join(out, "jobs.csv"))


def check(name, a, b):
    if a != b:
        bad = [j for j in sorted(a) if a.get(j) != b.get(j)][:5]
        sys.exit(f"{name}: jobs.csv differs, e.g. " + "; ".join(f"job {j}: {a.get(j)} vs {b.get(j)}" for j in bad))
    print(f"{name}: {len(a)} jobs, the same starts and machines")


def main():
    global WORKLOAD
    kubesim = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="batsched_example_") as work:
        with open(NASA) as f:
            trace = json.load(f)
        trace["jobs"] = trace["jobs"][:1000]
        WORKLOAD = os.path.join(work, "nasa1000.json")
        with open(WORKLOAD, "w") as f:
            json.dump(trace, f)
        py = over_protocol(kubesim, [sys.executable, os.path.join(HERE, "fcfs_scheduler.py"), f"ipc://{work}/fcfs.sock"],
                           f"ipc://{work}/fcfs.sock", os.path.join(work, "py"))
        check("fcfs_scheduler.py over the protocol vs --scheduler fcfs", py, builtin(kubesim, "fcfs", os.path.join(work, "fcfs")))
        peers = os.environ.get("KUBESIM_PEERS") or os.path.join(ROOT, "..", "shared", "peers")
        batsched = os.path.join(peers, "batsim", "bin", "batsched")
        if not os.path.isfile(batsched):
            print(f"batsched is absent ({os.path.normpath(batsched)}): its part of the example is skipped")
            return 0
        subprocess.run(["bash", os.path.join(peers, "batsim", "install-runtime.sh")], check=True)
        easy = over_protocol(kubesim, [batsched, "-v", "easy_bf", "-s", f"ipc://{work}/easy.sock", "--verbosity", "quiet"],
                             f"ipc://{work}/easy.sock", os.path.join(work, "easy"))
        check("batsched easy_bf over the protocol vs --scheduler easy-backfill", easy,
              builtin(kubesim, "easy-backfill", os.path.join(work, "easy-builtin")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
