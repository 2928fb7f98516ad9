#!/usr/bin/env python3
"""Differential test: kubesim's FCFS / EASY / conservative backfilling against the real Batsim
4.2.1 + batsched 1.4.0 (../shared/peers/batsim, an oracle, never shipped).

For each seed, a random Batsim workload (job sizes up to the machine count and a few beyond it,
which both must reject; bursts of jobs submitted at the same instant; run times; walltimes that
overestimate the run time, and some that underestimate it so the job is killed at its walltime)
runs on a generated platform of M one-core hosts whose links have no latency, so Batsim's
messages take no simulated time, through `batsim/run.sh` and through `kubesim run --model ideal`
with the same policy. Every job's final state, start time, finish time and machines must match
(jobs.csv, compared per job id, times at Batsim's printed precision).

  tests/batsim_oracle.py KUBESIM [--peer DIR] [--seeds N] [--jobs N] [--machines M] [--keep DIR]
Exit status: 0 all equal, 1 a difference (the first ones are printed), 77 peer absent (skipped).
"""
import argparse
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile

POLICIES = {"fcfs": "fcfs", "easy_bf": "easy-backfill", "conservative_bf": "conservative-backfill"}
FIELDS = ("final_state", "starting_time", "finish_time", "allocated_resources")


def platform_xml(machines):
    # Batsim needs a master host; zero latency and a huge bandwidth make its messages instantaneous
    # at the microsecond precision of jobs.csv.
    return f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<zone id="AS0" routing="Full">
  <cluster id="c1" prefix="a" suffix="" radical="0-{machines - 1}" speed="1Gf" bw="1000GBps" lat="0us"
      bb_bw="1000GBps" bb_lat="0us"/>
  <cluster id="c2" prefix="master_host" suffix="" radical="0-0" speed="1Gf" bw="1000GBps" lat="0us"
      bb_bw="1000GBps" bb_lat="0us">
    <prop id="role" value="master"/>
  </cluster>
  <link id="backbone" bandwidth="1000GBps" latency="0us"/>
  <zoneRoute src="c1" dst="c2" gw_src="ac1_router" gw_dst="master_hostc2_router">
    <link_ctn id="backbone"/>
  </zoneRoute>
</zone>
</platform>
"""


def workload(rng, jobs, machines):
    out, profiles, t = [], {}, 0
    i = 0
    while i < jobs:
        # Arrivals: gaps of 0..40 s with a millisecond part, or a burst at one instant.
        t += rng.choice([0, 0, rng.randint(1, 40)]) + rng.randint(0, 999) / 1000 * rng.choice([0, 1])
        burst = rng.choice([1, 1, 1, 2, 4])
        for _ in range(min(burst, jobs - i)):
            i += 1
            size = rng.choice([1, 1, 2, rng.randint(1, machines), machines, rng.randint(1, machines // 2 or 1)])
            if rng.random() < 0.03:
                size = machines + rng.randint(1, 4)  # larger than the cluster: rejected
            run = rng.randint(1, 120)
            walltime = run * rng.choice([1, 1.5, 2, 3]) + rng.randint(0, 20)
            if rng.random() < 0.12:
                walltime = max(1, run - rng.randint(1, run))  # killed at its walltime
            name = f"d{run}"
            profiles[name] = {"type": "delay", "delay": float(run)}
            out.append({"id": str(i), "subtime": round(t, 3), "walltime": float(walltime), "res": size,
                        "profile": name})
    return {"nb_res": machines, "jobs": out, "profiles": profiles}


def read_jobs(path):
    with open(path, newline="") as f:
        return {r["job_id"]: r for r in csv.DictReader(f)}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("--peer", default=os.path.join(here, "..", "..", "shared", "peers", "batsim"))
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=60)
    ap.add_argument("--machines", type=int, default=16)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--keep", help="keep the generated files and outputs in this folder")
    a = ap.parse_args()
    run_sh = os.path.join(a.peer, "run.sh")
    if not os.path.isfile(run_sh):
        print(f"skipped: the Batsim + batsched oracle is absent ({os.path.normpath(a.peer)})")
        return 77
    install = os.path.join(a.peer, "install-runtime.sh")
    if os.path.isfile(install) and subprocess.run(["bash", install], capture_output=True).returncode != 0:
        print("skipped: the oracle's runtime libraries could not be installed (install-runtime.sh failed)")
        return 77
    import json
    work = a.keep or tempfile.mkdtemp(prefix="batsim_oracle_")
    os.makedirs(work, exist_ok=True)
    differences = 0
    compared = 0
    try:
        plat = os.path.join(work, "platform.xml")
        with open(plat, "w") as f:
            f.write(platform_xml(a.machines))
        for seed in range(1, a.seeds + 1):
            w = workload(random.Random(seed), a.jobs, a.machines)
            wpath = os.path.join(work, f"w{seed}.json")
            with open(wpath, "w") as f:
                json.dump(w, f)
            for policy in a.policies.split(","):
                peer_out = os.path.join(work, f"peer-{policy}-{seed}")
                ks_out = os.path.join(work, f"kubesim-{policy}-{seed}")
                r = subprocess.run([run_sh, plat, wpath, policy, peer_out], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"seed {seed} {policy}: the oracle failed (see {peer_out}/batsim.log)")
                    return 1
                r = subprocess.run([a.kubesim, "run", "--platform", plat, "--workload", wpath, "--scheduler",
                                    POLICIES[policy], "--model", "ideal", "--out", ks_out],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"seed {seed} {policy}: kubesim failed: {r.stderr.strip()}")
                    return 1
                peer = read_jobs(os.path.join(peer_out, "_jobs.csv"))
                ours = read_jobs(os.path.join(ks_out, "jobs.csv"))
                for job_id in sorted(peer, key=int):
                    compared += 1
                    p, o = peer[job_id], ours.get(job_id)
                    diff = [f"{k}: batsim {p[k]!r} kubesim {o[k]!r}" for k in FIELDS if o is None or p[k] != o[k]] \
                        if o else ["missing in kubesim's jobs.csv"]
                    if diff:
                        differences += 1
                        if differences <= 10:
                            print(f"seed {seed} {policy} job {job_id} (res {p['requested_number_of_resources']}): "
                                  + "; ".join(diff))
        print(f"{compared} job(s) compared over {a.seeds} seed(s) x {len(a.policies.split(','))} "
              f"polic(ies): {differences} difference(s)")
        return 1 if differences else 0
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
