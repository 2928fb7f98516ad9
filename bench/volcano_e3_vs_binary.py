#!/usr/bin/python3
"""The study's E3 with Volcano queues: the built-in model against the real vc-controller-manager
+ vc-scheduler v1.7.0 on simulated time (issue 28; docs/volcano.md, "E3 with Volcano queues").

Usage: volcano_e3_vs_binary.py KUBESIM KUBESIM_TIMESHIM WORK_DIR [--experiment e3|e4|mini] [--scale N] [--seeds K] [--reuse-real]
                               [--gate batch|one|all]
Needs $KUBESIM_PEERS, the folder of the oracle binaries, with volcano/. Writes E3
(examples/multitenant/e3.yaml; cores and jobs divided by --scale, default 1) as explicit
batch/v1 Jobs of schedulerName volcano whose pods carry scheduling.volcano.sh/queue-name =
their tenant, and examples/volcano/tenants.yaml's queues (weights 4 : 2 : 1); --experiment e4
writes E4 (examples/multitenant/e4.yaml) instead, with a backfill queue of weight 1 and the
backfill PriorityClass (-9999) on its pods; runs the model
(`kubesim run --scheduler volcano --model ideal`, seeds 1..K) and the two binaries under one
kubesim-timeshim (`/bin/sh -c "controller & exec scheduler"`: the shim follows forks), and
prints each tenant's mean queue time on both sides and the first session whose starts per
tenant differ (model seed 1). --reuse-real keeps WORK_DIR/real from an earlier call. --gate passes serve's
--cosim-write-gate (for repeatability runs: compare WORK_DIR/real/jobs.csv of two calls). The real run takes 20-30 min of wall time
on a loaded 2-core machine (--scale 8: about 20 min there).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "peers"))
from real_scheduler import unpack_peer  # noqa: E402
CRDS = ["scheduling.volcano.sh_queues.yaml", "scheduling.volcano.sh_podgroups.yaml",
        "nodeinfo.volcano.sh_numatopologies.yaml", "batch.volcano.sh_jobs.yaml", "bus.volcano.sh_commands.yaml"]
# The study's experiments (examples/multitenant/e3.yaml, e4.yaml): per tenant bursts
# [start, cpu, memory, jobs, sleep] and streams (start, cpu, memory, jobs, sleep, interval).
EXPERIMENTS = {
    "e3": {"tenant1": ([[0, 4, "8G", 96, 180], [90, 4, "8G", 96, 180]], []),
           "tenant2": ([[30, 4, "8G", 32, 120], [120, 4, "8G", 32, 120]], []),
           "tenant3": ([[150, 2, "4G", 96, 60]], [(60, 2, "4G", 25, 60, 5)])},
    # E4: E3's tenants 30 s later and a backfill tenant (PriorityClass backfill, -9999) at t=0.
    "e4": {"tenant1": ([[30, 4, "8G", 96, 180], [120, 4, "8G", 96, 180]], []),
           "tenant2": ([[60, 4, "8G", 32, 120], [150, 4, "8G", 32, 120]], []),
           "tenant3": ([[180, 2, "4G", 96, 60]], [(90, 2, "4G", 25, 60, 5)]),
           "backfill": ([[0, 8, "16G", 48, 360]], [])},
    # Not the study's: E3's shape in 80 s, for tests/peers/volcano_repeat.py (with --scale 8:
    # 42 jobs, 3 nodes of 16 cores, each tenant's burst queued behind another's).
    "mini": {"tenant1": ([[0, 4, "8G", 96, 30], [15, 4, "8G", 96, 30]], []),
             "tenant2": ([[10, 4, "8G", 32, 20]], []),
             "tenant3": ([[20, 2, "4G", 96, 10]], [(5, 2, "4G", 16, 10, 3)])}}
# The queues' weights: examples/volcano/tenants.yaml's 4 : 2 : 1; backfill (YuniKorn guarantee
# 2 vcores, 1/16 of tenant3's) gets the least integer weight, 1.
WEIGHTS = {"tenant1": 4, "tenant2": 2, "tenant3": 1, "backfill": 1}
PRIORITY_CLASSES = {"backfill": -9999}  # examples/multitenant/manifests/backfill-priority-class.yaml
TENANTS = EXPERIMENTS["e3"]  # set by --experiment in main()

def job(ns, name, at, cpu, memory, sleep):
    res = {"cpu": str(cpu), "memory": memory}
    pod = {"metadata": {"annotations": {"scheduling.volcano.sh/queue-name": ns}},
           "spec": {"schedulerName": "volcano", "restartPolicy": "Never",
                    **({"priorityClassName": ns} if ns in PRIORITY_CLASSES else {}),
                    "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep", str(sleep)],
                                    "resources": {"requests": res, "limits": res}}]}}
    return at, {"at": at, "manifest": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": ns},
                                       "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 6, "template": pod}}}


def write_inputs(work, scale, experiment):
    """The scenario (bursts before streams per tenant, then stably by time, as scenario.hpp) and the queues."""
    jobs = []
    for ns, (bursts, streams) in TENANTS.items():
        for b, (start, cpu, memory, n, sleep) in enumerate(bursts):
            jobs += [job(ns, f"{ns}-b{b}-{i:03d}", start, cpu, memory, sleep) for i in range(n // scale)]
        for s, (start, cpu, memory, n, sleep, interval) in enumerate(streams):
            jobs += [job(ns, f"{ns}-s{s}-{i:03d}", start + i * interval, cpu, memory, sleep) for i in range(n // scale)]
    jobs.sort(key=lambda j: j[0])
    priority_classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n},
                         "value": v, "globalDefault": False} for n, v in PRIORITY_CLASSES.items() if n in TENANTS]
    scenario = {"name": f"{experiment}-volcano-{scale}", "cluster": {"nodes": 3, "cpu": 128 // scale, "memory": f"{512 // scale}Gi"},
                "manifests": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in TENANTS] + priority_classes,
                "jobs": [j for _, j in jobs]}
    queues = [{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": n},
               "spec": {"weight": w, "reclaimable": True, "capability": {"cpu": 384 // scale, "memory": f"{1536 // scale}G"}}}
              for n, w in WEIGHTS.items() if n in TENANTS]
    os.makedirs(os.path.join(work, "conf"), exist_ok=True)
    with open(os.path.join(work, "scenario.yaml"), "w") as f:
        json.dump(scenario, f)
    with open(os.path.join(work, "queues.yaml"), "w") as f:
        f.write("\n---\n".join(json.dumps(q) for q in queues) + "\n")


def waits(summary):
    return {r["tenant"]: float(r["average_queue_time_s"]) for r in csv.DictReader(open(summary)) if r["tenant"] in TENANTS}


def starts(pods):
    """{second: {tenant: pods started in that second}}: the sessions' decisions (a real session
    runs 0.1 s after the whole second, the model's on it: the same index)."""
    out = {}
    for r in csv.DictReader(open(pods)):
        if r["started"] and r["namespace"] in TENANTS:
            by = out.setdefault(int(float(r["started"])), {})
            by[r["namespace"]] = by.get(r["namespace"], 0) + 1
    return out


def first_divergence(real, model):
    """The first second whose starts per tenant differ, as a line (or that none differ)."""
    for t in sorted(set(real) | set(model)):
        if real.get(t, {}) != model.get(t, {}):
            fmt = lambda d: ", ".join(f"{n} {d.get(n, 0)}" for n in TENANTS)  # noqa: E731
            return f"first different session: {t} s: real {fmt(real.get(t, {}))}; model {fmt(model.get(t, {}))}"
    return f"every session starts the same pods per tenant ({len(real)} sessions with starts)"


def main():
    global TENANTS
    parser = argparse.ArgumentParser(description="E3/E4 with Volcano queues: the model against the real binaries "
                                                 "(see this script's docstring).")
    parser.add_argument("kubesim")
    parser.add_argument("timeshim", metavar="kubesim_timeshim")
    parser.add_argument("work", metavar="work_dir")
    parser.add_argument("--experiment", choices=sorted(EXPERIMENTS), default="e3")
    parser.add_argument("--scale", type=int, default=1, help="cores and jobs divided by N")
    parser.add_argument("--seeds", type=int, default=3, help="model seeds 1..K")
    parser.add_argument("--reuse-real", action="store_true", help="keep WORK_DIR/real from an earlier call")
    parser.add_argument("--gate", choices=["batch", "one", "all"], help="serve's --cosim-write-gate")
    args = parser.parse_args()
    if args.scale < 1 or args.seeds < 1:
        parser.error("--scale and --seeds: expected a number >= 1")
    kubesim, timeshim, work = (os.path.abspath(a) for a in (args.kubesim, args.timeshim, args.work))
    scale, seeds, experiment = args.scale, args.seeds, args.experiment
    TENANTS = EXPERIMENTS[experiment]
    peers = os.environ.get("KUBESIM_PEERS", os.path.join(REPO, "..", "shared", "peers"))
    binaries = []
    for name in ("vc-controller-manager", "vc-scheduler"):
        binaries.append(unpack_peer(REPO, peers, f"volcano/{name}-volcano-v1.7.0-linux-amd64.xz", work, name,
                                    "the Volcano binaries"))
        if binaries[-1] is None:
            return 0
    controller, scheduler = binaries
    write_inputs(work, scale, experiment)
    scenario, queues = os.path.join(work, "scenario.yaml"), os.path.join(work, "queues.yaml")
    model = {}
    for seed in range(1, seeds + 1):
        out = os.path.join(work, f"model-{seed}")
        subprocess.run([kubesim, "run", "--scenario", scenario, "--scheduler", "volcano", "--scheduler-config", queues,
                        "--model", "ideal", "--seed", str(seed), "--out", out, "--quiet"], check=True)
        for t, w in waits(os.path.join(out, "summary.csv")).items():
            model.setdefault(t, []).append(w)
    with open(os.path.join(work, "conf", "volcano-scheduler.conf"), "w") as f:  # alone in its folder: see docs
        f.write(open(os.path.join(peers, "volcano", "volcano-scheduler.conf")).read())
    # serve splits --scheduler-command on blanks: ${IFS} keeps the shell's command one word.
    words = [controller, "--kubeconfig", "{kubeconfig}", "--logtostderr", "&exec", scheduler, "--kubeconfig",
             "{kubeconfig}", "--scheduler-conf", os.path.join(work, "conf", "volcano-scheduler.conf"),
             "--listen-address=127.0.0.1:0", "--logtostderr"]
    command = "/bin/sh -c " + "${IFS}".join(words).replace("${IFS}&exec", "&exec")
    applies = [a for c in CRDS for a in ("--apply", os.path.join(peers, "volcano", "crds", c))]
    real = os.path.join(work, "real")
    # --gate all|batch: serve's --cosim-write-gate (repeatability runs).
    gate = ["--cosim-write-gate", args.gate] if args.gate else []
    # --reuse-real: the binaries' run of an earlier call (same inputs); only the model runs again.
    if not args.reuse_real or not os.path.exists(os.path.join(real, "summary.csv")):
        subprocess.run([kubesim, "serve", "--scenario", scenario, "--model", "ideal", "--builtin-scheduler", "off",
                        "--clock", "cosim", "--port", "0", *gate, *applies, "--apply", queues, "--out", real,
                        "--kubeconfig", os.path.join(work, "kubeconfig"), "--scheduler-log", os.path.join(work, "binaries.log"),
                        "--timeshim", timeshim, "--scheduler-command", command], check=True)
    got = waits(os.path.join(real, "summary.csv"))
    print("tenant   real mean queue (s)   model mean queue (s), seeds 1-%d   model vs real" % seeds)
    for t in TENANTS:
        m = sum(model[t]) / len(model[t])
        print(f"{t}  {got[t]:10.1f}  {m:10.1f}  {(m - got[t]) / got[t] * 100:+.1f}%")
    print(first_divergence(starts(os.path.join(real, "pods.csv")), starts(os.path.join(work, "model-1", "pods.csv"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
