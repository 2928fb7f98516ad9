#!/usr/bin/env python3
"""openb traces end to end (issue 26, items 4-6), on the trimmed trace of examples/openb:

- `run --openb-protocol` for every policy: the authors' five files and report.html, one row
  per arrived pod, allocation never above arrival, byte-identical outputs for the same seed,
  different ones for another seed;
- examples/openb/small.yaml through `kubesim sweep`: the three merged discrete CSVs with one
  row per policy and seed, in the authors' order, identical to the single runs' rows, and
  openb.html with their curves;
- examples/openb/fgd-paper.yaml expands to the paper's 1,020 cells (not run here: bench/);
- bad rows (a missing field, gpu_milli above 1000, an unknown GPU model, a negative value):
  exit 2, one line FILE:LINE, nothing written.

Usage: openb_test.py KUBESIM_BINARY"""
import csv
import filecmp
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples", "openb")
NODES, PODS = os.path.join(EX, "small_nodes.csv"), os.path.join(EX, "small_pods.csv")
FILES = ["analysis_allo.csv", "analysis_frag.csv", "analysis_allo_discrete.csv", "analysis_frag_discrete.csv",
         "analysis_frag_ratio_discrete.csv", "report.html"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(kubesim, args):
    return subprocess.run([kubesim] + args, capture_output=True, text=True)


def protocol(kubesim, out, policy, seed, nodes=NODES, pods=PODS):
    return run(kubesim, ["run", "--openb-nodes", nodes, "--openb-pods", pods, "--openb-protocol", "--openb-policy", policy,
                         "--seed", str(seed), "--out", out, "--quiet"])


def test_runs(kubesim, tmp):
    for policy in ["random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd"]:
        a, b, c = (os.path.join(tmp, f"{policy}-{k}") for k in "abc")
        for out, seed in ((a, 42), (b, 42), (c, 43)):
            r = protocol(kubesim, out, policy, seed)
            check(r.returncode == 0, f"{policy}: exit {r.returncode}: {r.stderr.strip()}")
        for f in FILES:
            check(os.path.isfile(os.path.join(a, f)), f"{policy}: {f} written")
            check(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False), f"{policy}: {f} same for the same seed")
        check(not filecmp.cmp(os.path.join(a, FILES[0]), os.path.join(c, FILES[0]), shallow=False),
              f"{policy}: another seed, another run")
        with open(os.path.join(a, "analysis_allo.csv")) as f:
            steps = list(csv.DictReader(f))
        check(len(steps) > 408, f"{policy}: one row per arrived pod, inflation included ({len(steps)})")
        check(all(int(s["used_gpu_milli"]) <= int(s["arrived_gpu_milli"]) for s in steps), f"{policy}: allocated <= arrived")
        last = steps[-1]
        arrived = int(last["arrived_gpu_milli"]) / int(last["total_gpus"]) / 10
        check(125 <= arrived <= 130.01, f"{policy}: inflated to 1.3x the GPUs ({arrived:.1f}%)")


def test_sweep(kubesim, tmp):
    out = os.path.join(tmp, "sweep")
    r = run(kubesim, ["sweep", os.path.join(EX, "small.yaml"), "--out", out])
    check(r.returncode == 0, f"sweep small.yaml: exit {r.returncode}: {r.stderr.strip()}")
    with open(os.path.join(out, "analysis_allo_discrete.csv")) as f:
        rows = list(csv.reader(f))
    check(rows[0][:6] == ["workload", "sc_policy", "tune", "seed", "total_gpus", "0"] and rows[0][-1] == "130",
          "the authors' header")
    keys = [tuple(r[:4]) for r in rows[1:]]
    check(len(keys) == 18 and keys == sorted(keys), f"18 rows in the authors' order ({len(keys)})")
    single = os.path.join(tmp, "fgd-a", "analysis_allo_discrete.csv")
    with open(single) as f:
        fgd42 = f.read().splitlines()[1]
    check(",".join(rows[1:][15]) == fgd42, "the sweep's FGD seed-42 row is the single run's")
    with open(os.path.join(out, "openb.html")) as f:
        check(f.read().count("<svg") == 3, "openb.html: the three curves of the one workload")
    for name in ["analysis_frag_discrete.csv", "analysis_frag_ratio_discrete.csv"]:
        with open(os.path.join(out, name)) as f:
            check(len(f.read().splitlines()) == 19, f"{name}: 18 rows")
    # The full plan: 17 workloads x 6 policies x 10 seeds.
    r = run(kubesim, ["sweep", os.path.join(EX, "fgd-paper.yaml"), "--out", os.path.join(tmp, "paper"),
                      "--emit", "k8s-indexed-job"])
    check(r.returncode == 0 and "1020 cells" in r.stdout, f"fgd-paper.yaml has 1020 cells: {r.stdout.strip()} {r.stderr.strip()}")


def test_bad_rows(kubesim, tmp):
    with open(PODS) as f:
        lines = f.read().splitlines()
    header, row = lines[0], lines[1].split(",")
    cases = {
        "missing": ",".join(row[:1] + [""] + row[2:]),
        "milli": ",".join(row[:4] + ["1001"] + row[5:]),
        "model": ",".join(row[:5] + ["H100"] + row[6:]),
        "negative": ",".join(row[:2] + ["-5"] + row[3:]),
    }
    for name, bad in cases.items():
        path = os.path.join(tmp, f"bad-{name}.csv")
        with open(path, "w") as f:
            f.write("\n".join([header] + lines[1:4] + [bad] + lines[4:8]) + "\n")
        out = os.path.join(tmp, f"bad-{name}-out")
        r = protocol(kubesim, out, "fgd", 42, pods=path)
        err = r.stderr.strip().splitlines()
        check(r.returncode == 2, f"bad {name}: exit 2 (got {r.returncode})")
        check(len(err) == 1 and f"bad-{name}.csv:5:" in err[0], f"bad {name}: one line FILE:5: ({err})")
        check(not os.path.exists(out), f"bad {name}: nothing written")
    path = os.path.join(tmp, "bad-nodes.csv")
    with open(NODES) as f:
        nl = f.read().splitlines()
    with open(path, "w") as f:
        f.write("\n".join(nl[:3] + ["n1,64000,262144,2"]) + "\n")
    r = protocol(kubesim, os.path.join(tmp, "bad-nodes-out"), "fgd", 42, nodes=path)
    check(r.returncode == 2 and "bad-nodes.csv:4:" in r.stderr, f"node without model: FILE:4 ({r.stderr.strip()})")


def main():
    kubesim = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        test_runs(kubesim, tmp)
        test_sweep(kubesim, tmp)
        test_bad_rows(kubesim, tmp)
    print("openb: %s" % ("passed" if not failures else f"{len(failures)} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
