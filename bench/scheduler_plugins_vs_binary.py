#!/usr/bin/python3
"""The study's E3 / E4 with its scheduler-plugins configuration: the built-in model against the
real scheduler-plugins v0.26.7 kube-scheduler on simulated time (issue 27, "Must hold" 2;
docs/derivations/scheduler-plugins.md, "E3 and E4 against the binary").

Usage: scheduler_plugins_vs_binary.py KUBESIM KUBESIM_TIMESHIM WORK_DIR [--experiment e3|e4|sp-tenants]
           [--scale N] [--seeds K] [--real-seeds K] [--v LEVEL] [--gate off|batch|one|all]
           [--map-draws per-goroutine|pinned] [--start S] [--ideal] [--reuse-real]
Needs $KUBESIM_PEERS, the folder of the oracle binaries, with
scheduler-plugins/kube-scheduler-scheduler-plugins-v0.26.7-linux-amd64.xz (skips without it).

Writes examples/multitenant/E.yaml with cores, memory and jobs (per burst and stream) divided by
--scale (default 1) and every burst and stream --start seconds later (default 1: the binary
takes 0.4 s of simulated time to start, its informers' cache sync polling every 100 ms, while
the study's scheduler was running before its workload came), its pods named for the Helm
chart's scheduler-plugins-scheduler, and the
study's ElasticQuotas (examples/scheduler-plugins/all-cap-quota.yaml, cores and memory divided
the same way). --experiment sp-tenants takes tests/peers/scheduler-plugins-case as it is. Runs
the model (`kubesim run --scheduler scheduler-plugins`, seeds 1..K, default 5; latency model
ideal with the queue flush loops at a phase per seed, plus what the binary has on serve: the
token bucket of its client, which client-go waits for on the simulated clock, and its writes
(bindings, status patches) landing one tick, 1 us, after its decision, as serve's cosim clock
makes them (src/api/clock.hpp); --ideal leaves those two out) and the binary
with the chart's configuration (tests/peers/scheduler-plugins-case/sp-scheduler-config.yaml)
under `kubesim serve --clock cosim` (serve seeds 1..--real-seeds, default 5: serve passes its
seed to the timeshim; `--cosim-write-gate` --gate, default all: docs/evidence/cosim.md;
`--cosim-go-map-draws` --map-draws, default per-goroutine, so that the binary's ties among
preemption nodes, broken by a Go map walk, go different ways within a run and between seeds, as
in the real program; pinned makes a seed's run repeatable but breaks every such tie of a run the
same way), and prints each tenant's mean queue time on both sides (each side's mean over its
seeds) and the difference. --reuse-real keeps the binary's runs of an earlier call.
"""
import csv
import json
import os
import subprocess
import sys
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "peers"))
from real_scheduler import unpack_peer  # noqa: E402
from real_scheduler_plugins import serve_command  # noqa: E402
CASE = os.path.join(REPO, "tests", "peers", "scheduler-plugins-case")
PACKED = "scheduler-plugins/kube-scheduler-scheduler-plugins-v0.26.7-linux-amd64.xz"
SCHEDULER_NAME = "scheduler-plugins-scheduler"  # the chart's profile (sp-scheduler-config.yaml)


def scale_quantity(q, scale):
    """'512G' / 8 -> '64G'; 384 / 8 -> 48 (the study's quantities divide exactly by 1, 2, 4, 8)."""
    s = str(q)
    digits = s.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return f"{int(digits) // scale}{s[len(digits):]}" if s[len(digits):] else int(digits) // scale


def write_inputs(work, experiment, scale, start):
    """Paths of the scenario, the quotas (the model's --scheduler-config) and what serve applies
    (the quotas and their namespaces that the scenario does not create). Every burst and stream
    begins `start` seconds later than in the study's scenario."""
    if experiment == "sp-tenants":
        return (os.path.join(CASE, "sp-tenants.yaml"),) + (os.path.join(CASE, "sp-quotas.yaml"),) * 2
    src = os.path.join(REPO, "examples", "multitenant", experiment + ".yaml")
    scenario = yaml.safe_load(open(src))
    scenario.pop("measuredResults", None)  # a path relative to the example; not compared here
    scenario["name"] = f"{experiment}-scheduler-plugins-{scale}"
    cluster = scenario["cluster"]
    cluster["cpu"], cluster["memory"] = cluster["cpu"] // scale, scale_quantity(cluster["memory"], scale)
    if "capacityCores" in scenario:
        scenario["capacityCores"] //= scale
    for m in scenario.get("manifests", []):
        if "file" in m:
            m["file"] = os.path.join(os.path.dirname(src), m["file"])
    for t in scenario["tenants"]:
        t["template"] = {**t.get("template", {}), "schedulerName": SCHEDULER_NAME}
        t["bursts"] = [[b[0] + start, b[1], b[2], b[3] // scale, b[4]] for b in t.get("bursts", [])]
        for s in t.get("streams", []):
            s["jobs"] //= scale
            s["start"] = s.get("start", 0) + start
    quotas = list(yaml.safe_load_all(open(os.path.join(REPO, "examples", "scheduler-plugins", "all-cap-quota.yaml"))))
    for q in quotas:
        for bound in ("min", "max"):
            q["spec"][bound] = {r: scale_quantity(v, scale) for r, v in q["spec"][bound].items()}
    # A quota's namespace must exist before serve accepts it (E3 has no backfill tenant).
    tenants = {t["namespace"] for t in scenario["tenants"]} | {"default"}
    namespaces = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": q["metadata"]["namespace"]}}
                  for q in quotas if q["metadata"]["namespace"] not in tenants]
    os.makedirs(work, exist_ok=True)
    paths = tuple(os.path.join(work, n) for n in ("scenario.yaml", "quotas.yaml", "serve-quotas.yaml"))
    with open(paths[0], "w") as f:
        json.dump(scenario, f)
    for path, objects in ((paths[1], quotas), (paths[2], namespaces + quotas)):
        with open(path, "w") as f:
            f.write("\n---\n".join(json.dumps(o) for o in objects) + "\n")
    return paths


def waits(summary):
    return {r["tenant"]: float(r["average_queue_time_s"]) for r in csv.DictReader(open(summary))
            if r["tenant"] and not r["tenant"].startswith("(")}


def run_real(kubesim, timeshim, binary, scenario, quotas, out, seed, verbosity, gate, map_draws):
    """One binary run in OUT (its working directory: the configuration names kubesim.kubeconfig
    relative to it); returns the wall seconds."""
    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    r = subprocess.run(serve_command(kubesim, timeshim, binary, scenario, quotas, verbosity, gate)
                       + ["--cosim-go-map-draws", map_draws, "--seed", str(seed)],
                       cwd=out, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"serve exited {r.returncode} in {out}: {r.stderr.strip()[-500:]}")
    return time.monotonic() - t0


def mean(xs):
    return sum(xs) / len(xs)


def main():
    kubesim, timeshim, work = (os.path.abspath(a) for a in sys.argv[1:4])
    args = sys.argv[4:]
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
    experiment, scale = opt("--experiment", "e3"), int(opt("--scale", "1"))
    seeds, real_seeds, verbosity = int(opt("--seeds", "5")), int(opt("--real-seeds", "5")), int(opt("--v", "2"))
    gate, map_draws = opt("--gate", "all"), opt("--map-draws", "per-goroutine")
    binary = unpack_peer(REPO, "-", PACKED, work, "sp-scheduler", "the real scheduler-plugins scheduler")
    if binary is None:
        return 0
    scenario, quotas, serve_quotas = write_inputs(work, experiment, scale, float(opt("--start", "1")))
    # The binary's queue flush loops tick from when it started (0.57 s into a run, after its
    # informers' sync), not at whole seconds as the ideal model's do, where they would coincide
    # with the workload's own whole-second events: the model's loops take a phase per seed.
    model_file = os.path.join(work, "model.yaml")
    with open(model_file, "w") as f:
        f.write("base: ideal\nqueueFlushPhase: random\n" + ("" if "--ideal" in args else
                "clientRateLimit: true\nbindLatency: fixed:0.000001\nstatusPatchLatency: fixed:0.000001\n"))
    model, real = {}, {}
    for seed in range(1, seeds + 1):
        out = os.path.join(work, f"model-{seed}")
        subprocess.run([kubesim, "run", "--scenario", scenario, "--scheduler", "scheduler-plugins",
                        "--scheduler-config", quotas, "--model", model_file, "--seed", str(seed), "--out", out,
                        "--quiet"], check=True)
        for t, w in waits(os.path.join(out, "summary.csv")).items():
            model.setdefault(t, []).append(w)
    for seed in range(1, real_seeds + 1):
        out = os.path.join(work, f"real-{seed}")
        summary = os.path.join(out, "out", "summary.csv")
        if "--reuse-real" not in args or not os.path.exists(summary):
            load = open("/proc/loadavg").read().split()[0]
            wall = run_real(kubesim, timeshim, binary, scenario, serve_quotas, out, seed, verbosity, gate, map_draws)
            print(f"binary seed {seed}: {wall:.1f} s wall (load {load} before)", flush=True)
        for t, w in waits(summary).items():
            real.setdefault(t, []).append(w)
    print(f"{experiment} at 1/{scale}: mean queue time (s) per tenant, binary seeds 1-{real_seeds}, model seeds 1-{seeds}")
    print("tenant     binary    model   model vs binary   binary per seed")
    for t in real:
        r, m = mean(real[t]), mean(model[t])
        print(f"{t:9s} {r:7.1f} {m:8.1f}   {(m - r) / r * 100:+6.1f}%          "
              + " ".join(f"{x:.1f}" for x in real[t]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
