#!/usr/bin/env python3
"""End-to-end throughput of `kubesim run`: reading, simulating and writing included.

Generates a SimGrid <cluster> platform of NODES hosts of CORES cores and a Batsim workload of
PODS one-cpu delay jobs of RUN_S seconds, RATE of them submitted each second, then runs
`kubesim run --platform ... --workload ...` on them and prints, per run, the wall time, the CPU
time (user + sys of the process), the peak RSS and the pods per second of both times. With
--baseline, the baseline binary and the candidate run alternately (A B A B ...) so that the
load of other processes falls on both alike, and the medians and ratios are printed.

  # issue 30's throughput condition: 200k pods on 5,000 nodes, >= 100,000 pods/s
  bench/run_e2e_bench.py build/kubesim --runs 5
  # issue 30's scale condition: 10 M pods on 50,000 nodes, under 10 minutes and 8 GiB
  nice bench/run_e2e_bench.py build/kubesim --nodes 50000 --pods 10000000 --rate 1000 --run-s 100 --runs 1

The generated inputs are kept in --dir (default /tmp/kubesim-e2e-NODES-PODS-RATE-RUN_S) and
reused when present.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def write_platform(path, nodes, cores):
    with open(path, "w") as f:
        f.write("<?xml version='1.0'?>\n"
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<platform version="4.1">\n<zone id="AS0" routing="Full">\n'
                f'  <cluster id="c" prefix="node-" suffix="" radical="0-{nodes - 1}" core="{cores}"\n'
                '      speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us"/>\n'
                '</zone>\n</platform>\n')


def write_workload(path, pods, rate, run_s):
    """Streamed in chunks: 10 M jobs never sit in memory as one string."""
    with open(path, "w") as f:
        f.write('{\n  "nb_res": 1,\n  "jobs": [\n')
        chunk = []
        for i in range(pods):
            sep = "," if i + 1 < pods else ""
            chunk.append(f'{{"id":"{i}","subtime":{i // rate},"res":1,"profile":"p"}}{sep}\n')
            if len(chunk) == 100000:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
        f.write(f'  ],\n  "profiles": {{"p": {{"type": "delay", "delay": {run_s}}}}}\n}}\n')


def ensure_inputs(args):
    d = args.dir or os.path.join(tempfile.gettempdir(),
                                 f"kubesim-e2e-{args.nodes}-{args.pods}-{args.rate}-{args.run_s}")
    os.makedirs(d, exist_ok=True)
    platform, workload = os.path.join(d, "platform.xml"), os.path.join(d, "workload.json")
    if not os.path.exists(platform):
        write_platform(platform + ".tmp", args.nodes, args.cores)
        os.replace(platform + ".tmp", platform)
    if not os.path.exists(workload):
        t = time.monotonic()
        write_workload(workload + ".tmp", args.pods, args.rate, args.run_s)
        os.replace(workload + ".tmp", workload)
        print(f"generated {workload} ({os.path.getsize(workload) / 2**20:.0f} MiB) in {time.monotonic() - t:.1f} s",
              flush=True)
    return d, platform, workload


def run_once(binary, d, platform, workload, args, tag):
    out = os.path.join(d, f"out-{tag}")
    cmd = [binary, "run", "--platform", platform, "--workload", workload, "--out", out, "--quiet",
           "--model", args.model]
    t = time.monotonic()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} exited with {code}")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "rss_mib": usage.ru_maxrss / 1024.0}


def show(tag, r, pods):
    print(f"{tag}: wall {r['wall']:.2f} s ({pods / r['wall']:,.0f} pods/s), cpu {r['cpu']:.2f} s "
          f"({pods / r['cpu']:,.0f} pods/s), peak RSS {r['rss_mib']:,.0f} MiB", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kubesim", help="the kubesim binary to measure")
    ap.add_argument("--baseline", help="a baseline kubesim binary, run alternately with the candidate")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--cores", type=int, default=32)
    ap.add_argument("--pods", type=int, default=200000)
    ap.add_argument("--rate", type=int, default=2000, help="pods submitted per simulated second")
    ap.add_argument("--run-s", type=int, default=60, help="each pod's run time (simulated seconds)")
    ap.add_argument("--model", default="ideal", help="kubesim run --model (ideal, realistic or a YAML file)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", help="where the generated inputs and outputs go")
    args = ap.parse_args()
    if min(args.nodes, args.cores, args.pods, args.rate, args.run_s, args.runs) < 1:
        ap.error("--nodes, --cores, --pods, --rate, --run-s and --runs must be positive")

    d, platform, workload = ensure_inputs(args)
    sides = [("baseline", args.baseline), ("candidate", args.kubesim)] if args.baseline else [("candidate", args.kubesim)]
    results = {tag: [] for tag, _ in sides}
    for i in range(args.runs):
        for tag, binary in sides:
            r = run_once(binary, d, platform, workload, args, tag)
            results[tag].append(r)
            show(f"run {i + 1} {tag}", r, args.pods)
    med = {tag: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "rss_mib")}
           for tag, rs in results.items()}
    for tag in med:
        show(f"median {tag} ({args.runs} runs)", med[tag], args.pods)
    if args.baseline:
        b, c = med["baseline"], med["candidate"]
        print(f"ratio candidate/baseline: wall {c['wall'] / b['wall']:.3f}, cpu {c['cpu'] / b['cpu']:.3f}, "
              f"peak RSS {c['rss_mib'] / b['rss_mib']:.3f}")


if __name__ == "__main__":
    main()
