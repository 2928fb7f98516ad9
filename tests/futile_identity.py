#!/usr/bin/env python3
"""Futile scheduling attempts skipped exactly (issue 30, sched/kube/futile_retry.cpp).

Runs short prefixes of the shipped traces twice, once with every futile attempt made in full
(KUBESIM_UNSKIPPED=all: the filters run, deadlocks run to the end) and once with the replay,
and requires byte-identical outputs (jobs.csv, schedule.csv, pods.csv):
- prefixes that end without a deadlock: the default run (replay and deadlock end on);
- a prefix that deadlocks at once (NASA on 16 nodes: a 128-rank job holds them all) with only
  the replay on (KUBESIM_UNSKIPPED=deadlock), so that the hundreds of thousands of futile
  attempts of the run to its end are replayed and compared.
Then the default run of that deadlocked prefix must end at the deadlock with one line naming it.
Usage: futile_identity.py KUBESIM
"""
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NASA = ROOT / "data/swf/NASA-iPSC-1993-3.1-cln.swf"


def prefix(src, jobs, dst):
    lines, n = [], 0
    for line in src.read_text().splitlines():
        if not line.startswith(";"):
            n += 1
            if n > jobs:
                break
        lines.append(line)
    dst.write_text("\n".join(lines) + "\n")
    return dst


def run(kubesim, args, out, unskipped):
    env = dict(os.environ)
    env.pop("KUBESIM_UNSKIPPED", None)
    if unskipped:
        env["KUBESIM_UNSKIPPED"] = unskipped
    r = subprocess.run([kubesim, "run", *args, "--quiet", "--out", str(out)], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: kubesim run {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")
    return r.stderr


def same(kubesim, tmp, name, args, mode):
    a, b = tmp / (name + "-full"), tmp / (name + "-skip")
    run(kubesim, args, a, "all")
    run(kubesim, args, b, mode)
    for f in ("jobs.csv", "schedule.csv", "pods.csv"):
        if (a / f).read_bytes() != (b / f).read_bytes():
            sys.exit(f"FAIL: {name}: {f} differs with the futile attempts skipped")
    print(f"ok: {name}: outputs identical ({mode or 'default'})")


def main():
    kubesim = sys.argv[1]
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        nasa400 = prefix(NASA, 400, tmp / "nasa400.swf")
        nasa60 = prefix(NASA, 60, tmp / "nasa60.swf")
        cluster128 = str(ROOT / "data/batsim/platform_cluster128.xml")
        graphene16 = str(ROOT / "data/batsim/platform_graphene_16nodes.xml")
        same(kubesim, tmp, "nasa400-cluster128", ["--platform", cluster128, "--swf", str(nasa400)], None)
        same(kubesim, tmp, "batkube-200-1node",
             ["--platform", str(ROOT / "data/batkube/1node_6core.xml"),
              "--workload", str(ROOT / "data/batkube/200_delay170.json")], None)
        deadlocked = ["--platform", graphene16, "--swf", str(nasa60)]
        same(kubesim, tmp, "nasa60-graphene16 (deadlocked, run to its end)", deadlocked, "deadlock")
        err = run(kubesim, deadlocked, tmp / "deadlock", None)
        lines = [l for l in err.splitlines() if "deadlock at" in l]
        if len(lines) != 1 or "pod(s) pending that no node can take" not in lines[0]:
            sys.exit(f"FAIL: the deadlocked run did not end with one line naming the deadlock: {err!r}")
        print("ok: " + lines[0])


if __name__ == "__main__":
    main()
