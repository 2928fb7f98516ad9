#!/usr/bin/env python3
"""A/B timing of two builds of a Google Benchmark program on a loaded machine.

Runs the baseline and the candidate alternately (A B A B ...), one benchmark per process,
so that load from other processes falls on both alike, and prints per benchmark the median
real and cpu times, their ratio (candidate / baseline) and the median peak RSS of each side.

  bench/ab_bench.py BASELINE_BUILD/kubesim_bench build/kubesim_bench \
      --filter BM_DefaultProfile_Ideal --runs 9
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run_once(binary, bench_filter):
    """One process: (real ms, cpu ms, the process's peak RSS MiB) per benchmark name."""
    proc = subprocess.Popen([binary, f"--benchmark_filter={bench_filter}", "--benchmark_format=json"],
                            stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{binary} exited with {proc.returncode}")
    result = {}
    for b in json.loads(out)["benchmarks"]:
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        result[b["name"]] = (b["real_time"] * scale, b["cpu_time"] * scale, usage.ru_maxrss / 1024.0)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("baseline")
    ap.add_argument("candidate")
    ap.add_argument("--filter", default="BM_DefaultProfile_Ideal")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    samples = {"A": {}, "B": {}}
    for i in range(args.runs):
        for side, binary in (("A", args.baseline), ("B", args.candidate)):
            for name, values in run_once(binary, args.filter).items():
                samples[side].setdefault(name, []).append(values)
        print(f"run {i + 1}/{args.runs} done", file=sys.stderr)
    for name in samples["A"]:
        a, b = samples["A"][name], samples["B"].get(name, [])
        if not b:
            continue
        med = lambda xs, k: statistics.median(x[k] for x in xs)
        print(f"{name}: runs {len(a)}+{len(b)}")
        print(f"  real ms  A {med(a, 0):9.1f}  B {med(b, 0):9.1f}  B/A {med(b, 0) / med(a, 0):.3f}")
        print(f"  cpu ms   A {med(a, 1):9.1f}  B {med(b, 1):9.1f}  B/A {med(b, 1) / med(a, 1):.3f}")
        print(f"  peak RSS MiB  A {med(a, 2):9.1f}  B {med(b, 2):9.1f}  (of the whole process)")
        print(f"  cpu ms A all: {' '.join(f'{x[1]:.0f}' for x in a)}")
        print(f"  cpu ms B all: {' '.join(f'{x[1]:.0f}' for x in b)}")


if __name__ == "__main__":
    main()
