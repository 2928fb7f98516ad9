#!/usr/bin/env python3
"""Differential test: kubesim's FCFS / EASY / conservative backfilling against the real Batsim
4.2.1 + batsched 1.4.0 (batsim/ in $KUBESIM_PEERS or ../shared/peers, an oracle, never shipped).

For each seed, a random Batsim workload (job sizes up to the machine count and a few beyond it,
which both must reject; bursts of up to 8 jobs submitted at the same instant; run times and
walltimes in whole seconds or with decimals; walltimes that overestimate the run time, and some
that underestimate it so the job is killed at its walltime) runs on a generated platform of M
one-core hosts (M = 8, 16, 32 in turn) whose links have no latency, so Batsim's messages take
no simulated time, through `batsim/run.sh` and through `kubesim run --model ideal` with each
policy. Every job's final state, start time, finish time and machines must match (jobs.csv,
compared per job id, times at Batsim's printed precision), and so must every figure of
schedule.csv but the version and Batsim's wall-clock times (scheduling_time, simulation_time).
A figure may differ by one unit in its sixth decimal, or by 1e-11 of itself: Batsim sums
SimGrid's double clock values, whose rounding kubesim's exact microseconds do not carry (a mean
on a rounding tie of the printed decimals can round either way; the NASA trace's time_computing,
a sum of 303,638 machine intervals, is 474238015.000569 s in Batsim, 474238015.000000 s here).

  tests/batsim_oracle.py KUBESIM [--peer DIR] [--seeds N] [--jobs N] [--machines M,M..] [--policies P,P..]
                         [--keep DIR]
Exit status: 0 all equal, 1 a difference (the first ones are printed), 77 peer absent (skipped).
"""
import argparse
import concurrent.futures
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

POLICIES = {"fcfs": "fcfs", "easy_bf": "easy-backfill", "conservative_bf": "conservative-backfill"}
FIELDS = ("final_state", "starting_time", "finish_time", "allocated_resources")
# batsched variants run with options: name -> batsched's arguments (filler sends SET_JOB_METADATA).
BATSCHED_VARIANTS = {"filler-metadata": ["-v", "filler", "--variant_options", '{"set_job_metadata": true}']}


def batsched_command(batsched, policy, endpoint):
    """batsched running `policy` (a variant, or a name of BATSCHED_VARIANTS) on `endpoint`."""
    return [batsched, *BATSCHED_VARIANTS.get(policy, ["-v", policy]), "-s", endpoint, "--verbosity", "quiet"]
# schedule.csv figures that are not the simulation's: the program's version and wall-clock times.
SCHEDULE_SKIP = ("batsim_version", "scheduling_time", "simulation_time")


def schedule_differences(peer_path, ours_path):
    """schedule.csv's figures that differ: (those by more than one unit in the sixth decimal and
    1e-11 of themselves, those by less; see the module's comment), each "key: batsim X kubesim Y"."""
    with open(peer_path, newline="") as f:
        peer = next(csv.DictReader(f))
    with open(ours_path, newline="") as f:
        ours = next(csv.DictReader(f))
    far, near = [], []
    for key, value in peer.items():
        if key in SCHEDULE_SKIP or value == ours.get(key):
            continue
        try:
            theirs, mine = float(value), float(ours.get(key))
            close = abs(theirs - mine) <= max(1.000001e-6, 1e-11 * abs(theirs))
        except (TypeError, ValueError):
            close = False
        (near if close else far).append(f"{key}: batsim {value!r} kubesim {ours.get(key)!r}")
    return far, near


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
        burst = rng.choice([1, 1, 1, 2, 4, 8])
        for _ in range(min(burst, jobs - i)):
            i += 1
            size = rng.choice([1, 1, 2, rng.randint(1, machines), machines, rng.randint(1, machines // 2 or 1)])
            if rng.random() < 0.03:
                size = machines + rng.randint(1, 4)  # larger than the cluster: rejected
            # Run times and walltimes with decimal parts (batsched plans with exact rationals of
            # their doubles) as well as whole seconds.
            run = rng.randint(1, 120) + rng.choice([0, 0, rng.randint(1, 999) / 1000])
            walltime = round(run * rng.choice([1, 1.5, 2, 3]) + rng.randint(0, 20)
                             + rng.choice([0, 0, rng.randint(1, 9) / 10]), 3)
            if rng.random() < 0.12:
                walltime = max(1, int(run) - rng.randint(1, int(run)))  # killed at its walltime
            name = f"d{run}"
            profiles[name] = {"type": "delay", "delay": float(run)}
            out.append({"id": str(i), "subtime": round(t, 3), "walltime": float(walltime), "res": size,
                        "profile": name})
    return {"nb_res": machines, "jobs": out, "profiles": profiles}


def run_peer(peer, plat, wpath, policy, out, seconds=120):
    """Batsim + batsched `policy` on one workload, as the peer's run.sh runs them, but over an ipc
    socket instead of run.sh's random TCP port: two concurrent runs (this test's three
    policies, batsim_protocol_oracle's) could draw the same port, and a Batsim connected to another
    run's batsched, or to whatever else holds the port, waits for ever. The socket lives in a short
    temporary folder (ipc paths have a length limit). Each run is bounded by `seconds` and retried
    once. Returns True when Batsim wrote _schedule.csv and both exited 0."""
    os.makedirs(out, exist_ok=True)
    for name in ("_jobs.csv", "_schedule.csv"):
        if os.path.exists(os.path.join(out, name)):
            os.remove(os.path.join(out, name))
    sock_dir = tempfile.mkdtemp(prefix="kbs")
    endpoint = f"ipc://{sock_dir}/batsched"
    for _ in range(2):
        with open(os.path.join(out, "batsched.log"), "w") as slog, open(os.path.join(out, "batsim.log"), "w") as blog:
            sched = subprocess.Popen(batsched_command(os.path.join(peer, "bin", "batsched"), policy, endpoint),
                                     stdout=slog, stderr=subprocess.STDOUT)
            try:
                sim = subprocess.run([os.path.join(peer, "bin", "batsim"), "-p", plat, "-w", wpath,
                                      "-e", os.path.abspath(out) + "/", "-s", endpoint, "-q"],
                                     stdout=blog, stderr=subprocess.STDOUT, timeout=seconds)
                ok = sim.returncode == 0 and sched.wait(timeout=seconds) == 0
            except subprocess.TimeoutExpired:
                blog.write(f"\nbatsim_oracle: no end after {seconds} s, both killed\n")
                ok = False
            finally:
                if sched.poll() is None:
                    sched.kill()
                    sched.wait()
        if ok and os.path.isfile(os.path.join(out, "_schedule.csv")):
            break
    shutil.rmtree(sock_dir, ignore_errors=True)
    return ok and os.path.isfile(os.path.join(out, "_schedule.csv"))


def default_peer():
    """The oracle's folder: $KUBESIM_PEERS_BATSIM, else batsim/ in $KUBESIM_PEERS or in the
    ../shared/peers beside the repository (as tests/peers/real_scheduler.py finds its peers), so
    that the oracle runs from a worktree too."""
    here = os.path.dirname(os.path.abspath(__file__))
    peers = os.environ.get("KUBESIM_PEERS") or os.path.join(here, "..", "..", "shared", "peers")
    return os.environ.get("KUBESIM_PEERS_BATSIM") or os.path.join(peers, "batsim")


def peer_missing(peer, *files):
    """None when the oracle at `peer` is usable (its bin/batsim, bin/batsched and `files`, its
    runtime libraries installed), else the line to print before skipping (exit status 77)."""
    needed = (os.path.join("bin", "batsim"), os.path.join("bin", "batsched")) + files
    if not all(os.path.isfile(os.path.join(peer, f)) for f in needed):
        return f"skipped: the Batsim + batsched oracle is absent ({os.path.normpath(peer)})"
    install = os.path.join(peer, "install-runtime.sh")
    if os.path.isfile(install) and subprocess.run(["bash", install], capture_output=True).returncode != 0:
        return "skipped: the oracle's runtime libraries could not be installed (install-runtime.sh failed)"
    return None


def read_jobs(path):
    with open(path, newline="") as f:
        return {r["job_id"]: r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("--peer", default=default_peer())
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=80)
    ap.add_argument("--machines", default="8,16,32", help="machine counts, one per seed in turn")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--keep", help="keep the generated files and outputs in this folder")
    a = ap.parse_args()
    if (missing := peer_missing(a.peer)):
        print(missing)
        return 77
    work = a.keep or tempfile.mkdtemp(prefix="batsim_oracle_")
    os.makedirs(work, exist_ok=True)
    policies = a.policies.split(",")
    sizes = [int(m) for m in a.machines.split(",")]
    differences = 0
    compared = {p: 0 for p in policies}
    schedules_identical = 0  # schedule.csv files equal to Batsim's in every compared figure
    try:
        for seed in range(1, a.seeds + 1):
            machines = sizes[(seed - 1) % len(sizes)]
            plat = os.path.join(work, f"platform{machines}.xml")
            with open(plat, "w") as f:
                f.write(platform_xml(machines))
            w = workload(random.Random(seed), a.jobs, machines)
            wpath = os.path.join(work, f"w{seed}.json")
            with open(wpath, "w") as f:
                json.dump(w, f)
            # The peer's runs of one trace at once (each mostly waits on its messages).
            with concurrent.futures.ThreadPoolExecutor(len(policies)) as pool:
                peer_ok = dict(zip(policies, pool.map(
                    lambda policy: run_peer(a.peer, plat, wpath, policy, os.path.join(work, f"peer-{policy}-{seed}")),
                    policies)))
            for policy in policies:
                peer_out = os.path.join(work, f"peer-{policy}-{seed}")
                ks_out = os.path.join(work, f"kubesim-{policy}-{seed}")
                if not peer_ok[policy]:
                    print(f"seed {seed} {policy}: the oracle failed (see {peer_out}/batsim.log)")
                    return 1
                r = subprocess.run([a.kubesim, "run", "--platform", plat, "--workload", wpath, "--scheduler",
                                    POLICIES[policy], "--model", "ideal", "--out", ks_out],
                                   capture_output=True, text=True, timeout=120)
                if r.returncode != 0:
                    print(f"seed {seed} {policy}: kubesim failed: {r.stderr.strip()}")
                    return 1
                peer = read_jobs(os.path.join(peer_out, "_jobs.csv"))
                ours = read_jobs(os.path.join(ks_out, "jobs.csv"))
                schedule_far, schedule_near = schedule_differences(os.path.join(peer_out, "_schedule.csv"),
                                                                   os.path.join(ks_out, "schedule.csv"))
                schedules_identical += not schedule_far and not schedule_near
                if schedule_far:
                    differences += 1
                    print(f"seed {seed} ({machines} machines) {policy} schedule.csv: " + "; ".join(schedule_far))
                for job_id in sorted(peer, key=int):
                    compared[policy] += 1
                    p, o = peer[job_id], ours.get(job_id)
                    diff = [f"{k}: batsim {p[k]!r} kubesim {o[k]!r}" for k in FIELDS if p[k] != o[k]] \
                        if o else ["missing in kubesim's jobs.csv"]
                    if diff:
                        differences += 1
                        if differences <= 10:
                            print(f"seed {seed} ({machines} machines) {policy} job {job_id} "
                                  f"(res {p['requested_number_of_resources']}): " + "; ".join(diff))
        print(f"{sum(compared.values())} job(s) compared over {a.seeds} trace(s) ("
              + ", ".join(f"{p} {n}" for p, n in compared.items()) + f"): {differences} difference(s); "
              f"schedule.csv: {schedules_identical} of {a.seeds * len(policies)} identical, the others within "
              "one unit of their last decimal")
        return 1 if differences else 0
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
