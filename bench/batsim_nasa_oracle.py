#!/usr/bin/env python3
"""The NASA iPSC/860 trace on Batsim's 128-host platform under batsched's three policies:
kubesim's time for each (its process's CPU time, user + sys, which a loaded machine does not
inflate much, the best of --repeat runs and their median and range; its wall time; and the
simulation + outputs it reports), its makespan
and mean wait, beside Batsim 4.2.1 + batsched's time for the same run, how many jobs start
at the same time on the same machines under both, and which schedule.csv figures differ (as
tests/batsim_oracle.py compares them). The peer (../shared/peers/batsim, or --peer
DIR) is run when present; --peer-out DIR reads the outputs of an earlier peer run
(DIR/<policy>/_jobs.csv and _schedule.csv); without either, the peer's time recorded in issue 13 (36-42 s for
EASY on this machine) is printed, labelled as recorded.

  bench/batsim_nasa_oracle.py build/kubesim [--peer DIR | --peer-out DIR | --no-peer] [--model batsim]
                              [--repeat N]
"""
import argparse
import csv
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from batsim_oracle import schedule_differences  # noqa: E402  (the oracle test's comparison)

POLICIES = {"fcfs": "fcfs", "easy_bf": "easy-backfill", "conservative_bf": "conservative-backfill"}


def read_jobs(path):
    with open(path, newline="") as f:
        return {r["job_id"]: r for r in csv.DictReader(f)}


def summary(jobs):
    done = [j for j in jobs.values() if j["final_state"] != "REJECTED"]
    waits = [float(j["waiting_time"]) for j in done]
    makespan = max(float(j["finish_time"]) for j in done) if done else 0.0
    return len(done), makespan, sum(waits) / len(waits) if waits else 0.0


def timed(cmd, **kw):
    """Runs cmd; returns (its CompletedProcess, wall seconds, CPU seconds: user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, **kw)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "data", "batsim")
    default_peer = os.path.normpath(os.path.join(here, "..", "..", "shared", "peers", "batsim"))
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("--peer", help="Batsim + batsched folder (run.sh): run it too (default: %s when present)" % default_peer)
    ap.add_argument("--peer-out", help="folder with <policy>/_jobs.csv of an earlier peer run")
    ap.add_argument("--no-peer", action="store_true", help="do not run the peer even when present")
    ap.add_argument("--model", default="batsim")
    ap.add_argument("--repeat", type=int, default=1, help="kubesim runs per policy (the best time is printed)")
    ap.add_argument("--platform", default=os.path.join(data, "platform_cluster128.xml"))
    ap.add_argument("--workload", default=os.path.join(data, "nasa_ipsc_exact_delay.json"))
    a = ap.parse_args()
    if not a.peer and not a.peer_out and not a.no_peer and os.path.isfile(os.path.join(default_peer, "run.sh")):
        a.peer = default_peer
    work = tempfile.mkdtemp(prefix="batsim_nasa_")
    for policy, setup in POLICIES.items():
        out = os.path.join(work, "kubesim-" + policy)
        process, reported, cpu = float("inf"), float("inf"), float("inf")
        cpu_times = []
        for _ in range(a.repeat):
            r, wall, used = timed([a.kubesim, "run", "--platform", a.platform, "--workload", a.workload, "--scheduler",
                                   setup, "--model", a.model, "--out", out], capture_output=True, text=True)
            process, cpu = min(process, wall), min(cpu, used)
            cpu_times.append(used)
            if r.returncode != 0:
                print(f"{policy}: kubesim failed: {r.stderr.strip()}")
                return 1
            wall = re.search(r"in ([0-9.]+) s wall", r.stdout)
            reported = min(reported, float(wall.group(1)) if wall else float("nan"))
        ours = read_jobs(os.path.join(out, "jobs.csv"))
        n, makespan, wait = summary(ours)
        # Several runs: also their CPU time's median and range, as a shared machine spreads them.
        spread = (f" (of {a.repeat} runs: median {statistics.median(cpu_times):.3f}, {min(cpu_times):.3f}-"
                  f"{max(cpu_times):.3f} s)" if a.repeat > 1 else "")
        line = (f"{policy:16} kubesim {cpu:.3f} s CPU (user + sys){spread}, {process:.3f} s wall (process; "
                f"simulation + outputs {reported:.3f} s): {n} jobs run, makespan {makespan:.4f} s, mean wait {wait:.6f} s")
        peer_jobs, peer_schedule = None, None
        if a.peer:
            pout = os.path.join(work, "peer-" + policy)
            r, wall, used = timed([os.path.join(a.peer, "run.sh"), a.platform, a.workload, policy, pout],
                                  capture_output=True)
            line += f"; Batsim + batsched {used:.1f} s CPU, {wall:.1f} s wall (run now)"
            if r.returncode == 0:
                peer_jobs = read_jobs(os.path.join(pout, "_jobs.csv"))
                peer_schedule = os.path.join(pout, "_schedule.csv")
            else:
                line += " but failed"
        else:
            line += "; Batsim + batsched 36-42 s wall (recorded in issue 13 for easy_bf, not run now)"
            if a.peer_out:
                peer_jobs = read_jobs(os.path.join(a.peer_out, policy, "_jobs.csv"))
                peer_schedule = os.path.join(a.peer_out, policy, "_schedule.csv")
        if peer_jobs is not None:
            pn, pm, pw = summary(peer_jobs)
            same_start = sum(1 for k, p in peer_jobs.items() if k in ours and p["starting_time"] == ours[k]["starting_time"])
            same_both = sum(1 for k, p in peer_jobs.items() if k in ours and p["starting_time"] == ours[k]["starting_time"]
                            and p["allocated_resources"] == ours[k]["allocated_resources"])
            line += (f"\n{'':16} batsched: makespan {pm:.4f} s, mean wait {pw:.6f} s; same start time "
                     f"{same_start}/{len(peer_jobs)}, same start and machines {same_both}/{len(peer_jobs)}")
            if os.path.isfile(peer_schedule or ""):
                far, near = schedule_differences(peer_schedule, os.path.join(out, "schedule.csv"))
                line += "; schedule.csv: " + (
                    "; ".join(far) if far else
                    f"every figure within the oracle test's tolerance, these not to the digit: {'; '.join(near)}"
                    if near else "every figure the same")
        print(line, flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
