#!/usr/bin/env python3
"""kill -9 trials (issue 16, "Must hold"): `kill -9 at any moment leaves --out either as before
or complete`.

Usage: kill9_test.py KUBESIM [--trials N] [--keep]

For each command below (a scenario run with tables, charts and report; a platform + workload
run; a scenario whose tenants run alone into sub-folders; a comparison), in a temporary folder:
  1. reference runs, uninterrupted, of seed 1 and seed 2 into folders of their own: the hashes
     of every file (relative path -> sha256) of each;
  2. a complete seed-2 run into OUT (what is there "before");
  3. N trials (default 100 spread over the commands): run seed 1 or 2 (alternately) into OUT
     and SIGKILL it after a delay drawn from random.Random(16): half uniform over 0..1.2 times
     the command's uninterrupted wall time, half within 15 % of its end (where the files are
     written and swapped in). After each kill, OUT must hash exactly as before the trial or as
     the reference of the seed that was killed, with no temporary file in it.
  4. an uninterrupted run into OUT: it succeeds, equals its reference, and leaves no staging
     folder beside OUT (the stale ones of killed runs are removed).
Prints one PASS/FAIL line per command with the counts of kills that left OUT as before and as
complete; exit status 1 when any check failed.
"""
import argparse
import hashlib
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EX = os.path.join(ROOT, "examples")
DATA = os.path.join(ROOT, "data")

COMMANDS = [
    ("run-scenario", ["run", "--scenario", f"{EX}/multitenant/e2.yaml"]),
    ("run-platform", ["run", "--platform", f"{DATA}/batkube/platform_graphene_16nodes.xml",
                      "--workload", f"{DATA}/batkube/200_delay170.json"]),
    ("run-tenants-alone", ["run", "--scenario", f"{EX}/multitenant/e1.yaml"]),
    ("compare", ["compare", "--scenario", f"{EX}/compare/small.yaml", "--schedulers",
                 f"default-scheduler,default-scheduler={EX}/scheduler-config/most-allocated.yaml",
                 "--seeds", "2"]),
]

from checks import check, failures, keep_or_remove  # noqa: E402 (tests/checks.py, beside this script)


def tree_hashes(folder):
    """relative path -> sha256 of every file under folder ({} when it does not exist)."""
    out = {}
    for base, _, files in os.walk(folder):
        for f in files:
            path = os.path.join(base, f)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, folder)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def command(kubesim, args, seed, out):
    # compare's seeds are its --seeds count: vary the comparison by its seed count instead.
    if args[0] == "compare":
        args = args[:-1] + [str(int(args[-1]) + seed - 1)]
        return [kubesim, *args, "--out", out, "--quiet"]
    return [kubesim, *args, "--seed", str(seed), "--out", out, "--quiet"]


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    return time.monotonic() - t0


def trials(kubesim, tmp, name, args, n, rng):
    ref = {}
    wall = 0.0
    for seed in (1, 2):
        folder = os.path.join(tmp, f"{name}-ref-{seed}")
        wall = max(wall, run(command(kubesim, args, seed, folder)))
        ref[seed] = tree_hashes(folder)
    if ref[1] == ref[2]:
        check(f"{name}: seeds 1 and 2 differ", False, "the trials could not tell before from after")
        return
    out = os.path.join(tmp, name, "out")
    run(command(kubesim, args, 2, out))
    kept = completed = 0
    bad = []
    for k in range(n):
        seed = 1 + k % 2
        before = tree_hashes(out)
        delay = (rng.uniform(0, 1.2 * wall) if k % 4 < 2 else wall * rng.uniform(0.85, 1.15))
        p = subprocess.Popen(command(kubesim, args, seed, out), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        try:
            p.wait(delay)
        except subprocess.TimeoutExpired:
            p.kill()
        p.wait()
        after = tree_hashes(out)
        temporaries = [f for f in after if ".tmp." in f]
        if after == before and not temporaries:
            kept += 1
        elif after == ref[seed] and not temporaries:
            completed += 1
        else:
            differ = sorted(set(after) ^ set(ref[seed]) | {f for f in after if after.get(f) != ref[seed].get(f)
                                                            and after.get(f) != before.get(f)})
            bad.append(f"trial {k} (seed {seed}, kill at {delay:.3f} s, exit {p.returncode}): "
                       f"{len(after)} files, differing {differ[:4]}")
    check(f"{name}: {n} kill -9 trials leave --out as before or complete", not bad,
          f"{kept} as before, {completed} complete (uninterrupted wall {wall:.2f} s)"
          + (f"; {len(bad)} bad: {bad[:2]}" if bad else ""))
    run(command(kubesim, args, 1, out))
    parent = os.path.dirname(out)
    staging = [f for f in os.listdir(parent) if ".staging." in f]
    check(f"{name}: the next run completes and removes stale staging folders",
          tree_hashes(out) == ref[1] and not staging, f"left beside --out: {staging}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kubesim")
    ap.add_argument("--trials", type=int, default=100, help="kill -9 trials over all commands")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    kubesim = os.path.abspath(args.kubesim)
    tmp = tempfile.mkdtemp(prefix="kubesim-kill9-")
    rng = random.Random(16)
    t0 = time.monotonic()
    try:
        for name, cmd in COMMANDS:
            trials(kubesim, tmp, name, cmd, args.trials // len(COMMANDS), rng)
    except RuntimeError as e:
        check("uninterrupted runs succeed", False, str(e))
    print(f"{args.trials // len(COMMANDS) * len(COMMANDS)} trials in {time.monotonic() - t0:.1f} s; "
          f"{len(failures)} failed", flush=True)
    return keep_or_remove(tmp, args.keep)


if __name__ == "__main__":
    sys.exit(main())
