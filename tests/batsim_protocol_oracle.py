#!/usr/bin/env python3
"""Differential test of `kubesim run --batsim-socket` (batsim_server/): the real batsched 1.4.0
(../shared/peers/batsim, an oracle, never shipped) drives kubesim over Batsim's v4 protocol, and
every job must start at the same time on the same machines (and end in the same state at the
same time) as under kubesim's own model of that policy (`kubesim run --scheduler fcfs |
easy-backfill | conservative-backfill`) and as under Batsim 4.2.1 + batsched.

Batsched's killer and killer2 (KILL_JOB, decisions dated after their message, a scheduler busy
until its reply's "now") and filler with set_job_metadata (SET_JOB_METADATA: jobs.csv's
metadata column is compared too) run on a generated trace of 12 jobs on 8 machines (killer2
asserts in batsched on longer ones), compared with Batsim + batsched only (kubesim has no model
of them).

Traces: the generated ones of tests/batsim_oracle.py (a zero-latency platform, --model ideal),
and the NASA iPSC/860 trace (data/batsim/nasa_ipsc_exact_delay.json) on Batsim's
platform_cluster128.xml with Batsim's message latencies (--model batsim), trimmed to its first
--nasa-jobs jobs (0: the whole trace, 18,066 jobs).

  tests/batsim_protocol_oracle.py KUBESIM [--peer DIR] [--seeds N] [--jobs N] [--nasa-jobs N]
                                  [--policies P,P..] [--kill-policies P,P..] [--keep DIR]
Exit status: 0 all equal, 1 a difference (the first ones are printed), 77 peer absent (skipped).
"""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batsim_oracle import FIELDS, POLICIES, batsched_command, default_peer, peer_missing, platform_xml, read_jobs, run_peer, workload  # noqa: E402


def run_protocol(kubesim, batsched, plat, wpath, policy, model, out, sock_dir):
    """batsched `policy` listening on an ipc socket, kubesim connected to it. Returns (ok, message, seconds)."""
    endpoint = f"ipc://{sock_dir}/{policy}-{os.path.basename(out)}"
    sched = subprocess.Popen(batsched_command(batsched, policy, endpoint), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        r = subprocess.run([kubesim, "run", "--platform", plat, "--workload", wpath, "--batsim-socket", endpoint,
                            "--model", model, "--quiet", "--out", out], capture_output=True, text=True, timeout=900)
        seconds = time.monotonic() - t0
        rc = sched.wait(timeout=60)
    finally:
        if sched.poll() is None:
            sched.kill()
            sched.wait()
    if r.returncode != 0:
        return False, f"kubesim failed: {r.stderr.strip()}", seconds
    if rc != 0:
        return False, f"batsched exited with {rc}: {sched.stderr.read().strip()[-500:]}", seconds
    return True, "", seconds


def compare(name, runs, shown):
    """runs: {label: jobs dict}; prints the first differences. Returns the number of differing jobs."""
    labels = list(runs)
    reference = runs[labels[0]]
    differences = 0
    for job_id in sorted(reference, key=lambda j: int(j) if j.isdigit() else j):
        for label in labels[1:]:
            o = runs[label].get(job_id)
            p = reference[job_id]
            diff = [f"{k}: {labels[0]} {p[k]!r} {label} {o[k]!r}" for k in FIELDS + ("metadata",)
                    if p[k] != o[k]] if o else \
                [f"missing in {label}"]
            if diff:
                differences += 1
                if shown[0] < 10:
                    shown[0] += 1
                    print(f"{name} job {job_id}: " + "; ".join(diff))
    for label in labels[1:]:
        if len(runs[label]) != len(reference):
            differences += 1
            print(f"{name}: {label} has {len(runs[label])} jobs, {labels[0]} {len(reference)}")
    return differences


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("--peer", default=default_peer())
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=60)
    ap.add_argument("--nasa-jobs", type=int, default=1500, help="the NASA trace's first N jobs (0: all)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--kill-policies", default="killer,killer2,filler-metadata",
                    help="batsched variants kubesim has no model of (KILL_JOB, SET_JOB_METADATA), run on a trace of "
                         "12 jobs")
    ap.add_argument("--keep", help="keep the generated files and outputs in this folder")
    a = ap.parse_args()
    batsched = os.path.join(a.peer, "bin", "batsched")
    if (missing := peer_missing(a.peer)):
        print(missing)
        return 77
    work = a.keep or tempfile.mkdtemp(prefix="batsim_protocol_")
    os.makedirs(work, exist_ok=True)
    sock_dir = tempfile.mkdtemp(prefix="kbs")  # short: ipc paths have a length limit
    policies = a.policies.split(",")
    data = os.path.join(here, "..", "data", "batsim")
    traces = []  # (name, platform, workload, model)
    for seed in range(1, a.seeds + 1):
        machines = (8, 16, 32)[(seed - 1) % 3]
        plat = os.path.join(work, f"platform{machines}.xml")
        with open(plat, "w") as f:
            f.write(platform_xml(machines))
        wpath = os.path.join(work, f"w{seed}.json")
        with open(wpath, "w") as f:
            json.dump(workload(random.Random(seed), a.jobs, machines), f)
        traces.append((f"seed {seed} ({machines} machines)", plat, wpath, "ideal"))
    if a.kill_policies:
        with open(os.path.join(work, "platform8.xml"), "w") as f:
            f.write(platform_xml(8))
        wpath = os.path.join(work, "w-kill.json")
        with open(wpath, "w") as f:
            json.dump(workload(random.Random(1), 12, 8), f)
        traces.append(("12 jobs (8 machines)", os.path.join(work, "platform8.xml"), wpath, "ideal"))
    with open(os.path.join(data, "nasa_ipsc_exact_delay.json")) as f:
        nasa = json.load(f)
    if a.nasa_jobs:
        nasa["jobs"] = nasa["jobs"][:a.nasa_jobs]
    nasa_path = os.path.join(work, "nasa.json")
    with open(nasa_path, "w") as f:
        json.dump(nasa, f)
    traces.append((f"NASA ({len(nasa['jobs'])} jobs)", os.path.join(data, "platform_cluster128.xml"), nasa_path,
                   "batsim"))
    differences, shown, compared, protocol_seconds = 0, [0], 0, {}
    try:
        for t, (name, plat, wpath, model) in enumerate(traces):
            trace_policies = a.kill_policies.split(",") if name.startswith("12 jobs") else policies

            def one(policy):
                d = os.path.join(work, f"{t}-{policy}")
                ok, msg, secs = run_protocol(a.kubesim, batsched, plat, wpath, policy, model, d + "-protocol", sock_dir)
                if not ok:
                    return msg, secs
                if not run_peer(a.peer, plat, wpath, policy, d + "-batsim"):
                    return f"the oracle failed (see {d}-batsim/batsim.log)", secs
                if policy not in POLICIES:
                    return "", secs
                r = subprocess.run([a.kubesim, "run", "--platform", plat, "--workload", wpath, "--scheduler",
                                    POLICIES[policy], "--model", model, "--quiet", "--out", d + "-builtin"],
                                   capture_output=True, text=True)
                return (f"kubesim --scheduler failed: {r.stderr.strip()}" if r.returncode else ""), secs
            with concurrent.futures.ThreadPoolExecutor(len(policies)) as pool:
                results = dict(zip(trace_policies, pool.map(one, trace_policies)))
            for policy in trace_policies:
                msg, secs = results[policy]
                protocol_seconds[(name, policy)] = secs
                if msg:
                    print(f"{name} {policy}: {msg}")
                    return 1
                d = os.path.join(work, f"{t}-{policy}")
                runs = {"batsched-over-protocol": read_jobs(os.path.join(d + "-protocol", "jobs.csv"))}
                if policy in POLICIES:
                    runs[f"kubesim-{POLICIES[policy]}"] = read_jobs(os.path.join(d + "-builtin", "jobs.csv"))
                runs["batsim+batsched"] = read_jobs(os.path.join(d + "-batsim", "_jobs.csv"))
                if policy not in POLICIES:
                    killed = sum(1 for j in runs["batsim+batsched"].values() if j["final_state"] == "COMPLETED_KILLED")
                    meta = sum(1 for j in runs["batsim+batsched"].values() if j["metadata"])
                    print(f"{name} {policy}: {len(runs['batsim+batsched'])} jobs, {killed} killed by KILL_JOB, "
                          f"{meta} with metadata in Batsim")
                compared += len(runs["batsched-over-protocol"])
                differences += compare(f"{name} {policy}", runs, shown)
        print(f"{compared} job(s) compared over {len(traces)} trace(s) x {len(policies)} policies (or "
              f"{a.kill_policies or 'no killing policy'} on the 12 jobs) "
              f"(batsched over the protocol vs kubesim's model vs Batsim + batsched): {differences} difference(s)")
        for (name, policy), secs in protocol_seconds.items():
            if name.startswith("NASA"):
                print(f"  {name} {policy}: kubesim + batsched over the protocol took {secs:.1f} s wall")
        return 1 if differences else 0
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
