#!/usr/bin/env python3
"""Checks kubesim's FGD-protocol results on the default openb trace against the authors'
published ones (data/openb/fgd_expected_default_alloc.csv, from hkust-adsl/
kubernetes-scheduler-simulator experiments/analysis/expected_results).

Must hold, for every policy: the mean over the seeds of the GPU allocation ratio at arrived
90, 95, 100 and 130 % within 2 sd of the published runs (or 0.3 percentage points, whichever is
larger) of the published mean; and at 100 % the published ranking
FGD > BestFit > {GpuPacking, GpuClustering} > DotProd > Random.

    scripts/openb_check.py --kubesim build/kubesim                 # seeds 42-51 (60 runs)
    scripts/openb_check.py --kubesim build/kubesim --seeds 42-44   # the trimmed check (ctest)
    scripts/openb_check.py --results OUT   # an existing sweep's OUT/analysis_allo_discrete.csv

Exit status 0 when everything holds, 1 otherwise (each failure on its own line).
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "openb")
WORKLOAD = "openb_pod_list_default"
COLUMNS = ["90", "95", "100", "130"]
POLICIES = ["01-Random", "02-DotProd", "03-GpuClustering", "04-GpuPacking", "05-BestFit", "06-FGD"]
# At 100 %: each group above the next (members of a group are not ordered).
RANKING = [["06-FGD"], ["05-BestFit"], ["04-GpuPacking", "03-GpuClustering"], ["02-DotProd"], ["01-Random"]]


def read_rows(path, seeds=None):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["workload"] == WORKLOAD]
    if seeds is not None:
        rows = [r for r in rows if int(r["seed"]) in seeds]
    return rows


def by_policy(rows):
    out = {}
    for p in POLICIES:
        picked = [r for r in rows if r["sc_policy"] == p]
        out[p] = {c: [float(r[c]) for r in picked] for c in COLUMNS}
    return out


def run_sweep(kubesim, seeds, out):
    plan = os.path.join(out, "plan.yaml")
    with open(plan, "w") as f:
        f.write("name: openb-default-check\nscenarios:\n")
        f.write("  - {openbNodes: %s, openbPods: %s}\n" % (os.path.join(DATA, "openb_node_list_gpu_node.csv"),
                                                       os.path.join(DATA, WORKLOAD + ".csv")))
        f.write("policies: [random, dotprod, gpuclustering, gpupacking, bestfit, fgd]\ntune: 1.3\n")
        f.write("seeds: [%s]\n" % ", ".join(str(s) for s in seeds))
    subprocess.run([kubesim, "sweep", plan, "--out", os.path.join(out, "sweep")], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out, "sweep")


def check(ours, published):
    failures = []
    print("%-17s %s" % ("policy", "  ".join("%-24s" % ("at %s%%: ours / published" % c) for c in COLUMNS)))
    for p in POLICIES:
        cells = []
        for c in COLUMNS:
            mine, theirs = ours[p][c], published[p][c]
            if not mine:
                failures.append("%s: no results at arrived %s%%" % (p, c))
                cells.append("%-24s" % "-")
                continue
            m, pm, sd = statistics.mean(mine), statistics.mean(theirs), statistics.stdev(theirs)
            tolerance = max(2 * sd, 0.3)
            cells.append("%-24s" % ("%6.2f / %6.2f+-%.2f" % (m, pm, sd)))
            if abs(m - pm) > tolerance:
                failures.append("%s at arrived %s%%: mean %.2f, published %.2f (tolerance %.2f)" % (p, c, m, pm, tolerance))
        print("%-17s %s" % (p, "  ".join(cells)))
    means = {p: statistics.mean(ours[p]["100"]) for p in POLICIES if ours[p]["100"]}
    for upper, lower in zip(RANKING, RANKING[1:]):
        for a in upper:
            for b in lower:
                if a in means and b in means and not means[a] > means[b]:
                    failures.append("ranking at 100%%: %s (%.2f) is not above %s (%.2f)" % (a, means[a], b, means[b]))
    return failures


def parse_seeds(text):
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kubesim", help="run the six policies on the default trace with this kubesim binary")
    ap.add_argument("--results", help="an existing sweep output folder (holding analysis_allo_discrete.csv)")
    ap.add_argument("--seeds", default="42-51", help="seeds, e.g. 42-51 or 42,43 (default 42-51)")
    args = ap.parse_args()
    if bool(args.kubesim) == bool(args.results):
        ap.error("give --kubesim or --results")
    seeds = parse_seeds(args.seeds)
    published = by_policy(read_rows(os.path.join(DATA, "fgd_expected_default_alloc.csv")))
    with tempfile.TemporaryDirectory() as tmp:
        out = run_sweep(args.kubesim, seeds, tmp) if args.kubesim else args.results
        ours = by_policy(read_rows(os.path.join(out, "analysis_allo_discrete.csv"), set(seeds)))
    failures = check(ours, published)
    for f in failures:
        print("FAIL: " + f)
    print("openb check: %s (seeds %s)" % ("passed" if not failures else "%d failure(s)" % len(failures), args.seeds))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
