#!/usr/bin/env python3
"""openb figures (issue 26's speed conditions), printed one per line:

  protocol   one run of the FGD paper's protocol on the default trace (1,213 nodes, 10,789
             pods after inflation to 1.3x) per policy: median CPU and wall seconds of --repeat
             runs, peak memory (target: FGD under 1 s on one core)
  replay     the trace's own dynamics (149 days, 8,152 pods) through the simulation (the
             kube-scheduler model, realistic latencies) under each policy's profile
             (examples/gpu-sharing/<policy>.yaml), then with the default profile and the ideal
             model: median CPU and wall seconds of --repeat runs, peak memory (target: under
             5 s per policy)
  sweep      with --sweep: examples/openb/fgd-paper.yaml (1,020 runs) with `kubesim sweep` on
             this machine's cores: wall and CPU seconds, peak memory (target: under 20 min
             on 2 cores)

CPU seconds are the child's user+system time (load-independent enough on a shared machine);
wall seconds are the elapsed time; peak memory is the largest peak RSS of the line's runs.

Usage: bench/openb_bench.py KUBESIM [--repeat N] [--only protocol|replay] [--sweep]"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "openb")
NODES = os.path.join(DATA, "openb_node_list_gpu_node.csv")
PODS = os.path.join(DATA, "openb_pod_list_default.csv")
# The replay's policies: (name, profile in examples/gpu-sharing/).
REPLAY_PROFILES = [("fgd", "fgd"), ("bestfit", "bestfit"), ("gpupacking", "packing"), ("gpuclustering", "clustering"),
                   ("dotprod", "dotprod"), ("random", "random")]


def measure(argv):
    """(cpu seconds, wall seconds, peak RSS in MB) of one child process (its own rusage, wait4)."""
    start = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, argv)
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kubesim")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sweep", action="store_true", help="also run the paper's 1,020-run plan")
    ap.add_argument("--only", choices=["protocol", "replay"], help="run only the protocol or only the replay lines")
    args = ap.parse_args()
    kubesim = os.path.abspath(args.kubesim)
    with tempfile.TemporaryDirectory() as tmp:
        for policy in ([] if args.only == "replay" else ["fgd", "bestfit", "gpupacking", "gpuclustering", "dotprod", "random"]):
            runs = [measure([kubesim, "run", "--openb-nodes", NODES, "--openb-pods", PODS, "--openb-protocol",
                             "--openb-policy", policy, "--seed", "42", "--out", os.path.join(tmp, f"p-{policy}-{i}"), "--quiet"])
                    for i in range(args.repeat)]
            print("protocol %-13s cpu %.3f s  wall %.3f s  (median of %d)  peak %.0f MB" %
                  (policy, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), len(runs),
                   max(r[2] for r in runs)))
        replays = [(policy, "realistic", ["--scheduler", "default-scheduler", "--scheduler-config",
                                          os.path.join(ROOT, "examples", "gpu-sharing", profile + ".yaml")])
                   for policy, profile in REPLAY_PROFILES]
        replays += [("default", "realistic", []), ("default", "ideal", [])]
        if args.only == "protocol":
            replays = []
        for label, model, extra in replays:
            runs = [measure([kubesim, "run", "--openb-nodes", NODES, "--openb-pods", PODS, "--model", model, *extra,
                             "--out", os.path.join(tmp, f"replay-{label}-{model}-{i}"), "--quiet"])
                    for i in range(args.repeat)]
            print("replay   %-13s %-9s cpu %.3f s  wall %.3f s  (median of %d)  peak %.0f MB (149 days, 8,152 pods)" %
                  (label, model, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), len(runs),
                   max(r[2] for r in runs)))
        if args.sweep:
            cpu, wall, mb = measure([kubesim, "sweep", os.path.join(ROOT, "examples", "openb", "fgd-paper.yaml"),
                                     "--out", os.path.join(tmp, "sweep")])
            print("sweep    fgd-paper     cpu %.1f s  wall %.1f s on %d cores  peak %.0f MB (1,020 runs)" %
                  (cpu, wall, os.cpu_count() or 1, mb))
    return 0


if __name__ == "__main__":
    sys.exit(main())
