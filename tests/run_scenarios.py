#!/usr/bin/env python3
"""Whole-run tests: every scenario in tests/scenarios.txt runs through the CLI twice (outputs
must be byte-identical) and its outputs are compared with tests/golden/<name>/. A line whose
arguments start with `compare` runs `kubesim compare` (once with one thread, once with three),
and its first scheduler's seed-1 folder must equal what `kubesim run` writes for it. Outputs over
200 kB are kept as a SHA-256 (<file>.sha256). Then every bad input in tests/bad/ must fail
with exactly one line on stderr naming the file and line, and leave no output behind.

Usage: run_scenarios.py [--update] KUBESIM_BINARY"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data")  # the shipped data (data/README.md)
GOLDEN = os.path.join(ROOT, "tests", "golden")
MAX_INLINE = 200_000
# CSV outputs are kept inline (when small); charts and the HTML report only as a SHA-256.
INLINE_SUFFIXES = (".csv",)


def scenarios():
    with open(os.path.join(ROOT, "tests", "scenarios.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, args = (part.strip() for part in line.split("|", 1))
            # ${ROOT}: the repository as a relative path (runs start there): reports show a
            # model file's path as given, and goldens must not depend on where the clone is.
            yield name, args.replace("${DATA}", DATA).replace("${ROOT}", ".").split()


def run(binary, args, out):
    """`kubesim run ARGS`, or `kubesim compare ...` when ARGS start with "compare"."""
    command = ["run"] if not args or args[0].startswith("-") else []
    return subprocess.run([binary, *command, *args, "--out", out, "--quiet"], capture_output=True, text=True,
                          cwd=ROOT)


def option(args, name):
    return args[args.index(name) + 1] if name in args else None


def check_compare_run(binary, args, compare_out, out):
    """The first contender's seed-1 folder holds what `kubesim run --scheduler` writes."""
    first = option(args, "--schedulers").split(",")[0]
    setup, _, config = first.partition("=")
    label = setup + ("+" + os.path.splitext(os.path.basename(config))[0] if config else "")
    run_args, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a in ("--schedulers", "--seeds", "--jobs"):
            skip = True
        else:
            run_args.append(a)
    run_args += ["--scheduler", setup, "--seed", "1"] + (["--scheduler-config", config] if config else [])
    r = run(binary, run_args, out)
    if r.returncode != 0:
        return [f"run of {label} seed 1 failed: {r.stderr.strip()}"]
    ours = os.path.join(compare_out, label, "seed-1")
    if output_files(ours) != output_files(out):
        return [f"{label}/seed-1 holds {output_files(ours)}, run writes {output_files(out)}"]
    return [f"{label}/seed-1/{f} differs from run's" for f in output_files(out)
            if read(os.path.join(ours, f)) != read(os.path.join(out, f))]


def output_files(out):
    """Every file a run wrote, as paths relative to its output directory, sorted (without the
    .kubesim-output marker, which says only that kubesim wrote the folder)."""
    found = []
    for dirpath, _, files in os.walk(out):
        for f in files:
            if f != ".kubesim-output":
                found.append(os.path.relpath(os.path.join(dirpath, f), out))
    return sorted(found)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_scenarios(binary, update, tmp):
    failures = 0
    for name, args in scenarios():
        outs = [os.path.join(tmp, name, str(i)) for i in (1, 2)]
        compare = args[0] == "compare"
        results = [run(binary, args + (["--jobs", jobs] if compare else []), out) for out, jobs in zip(outs, ("1", "3"))]
        if any(r.returncode != 0 for r in results):
            print(f"FAIL {name}: exit {results[0].returncode}: {results[0].stderr.strip()}")
            failures += 1
            continue
        golden_dir = os.path.join(GOLDEN, name)
        problems = []
        files = output_files(outs[0])
        if files != output_files(outs[1]):
            problems.append("the two runs wrote different files")
        if update and os.path.isdir(golden_dir):
            shutil.rmtree(golden_dir)
        elif os.path.isdir(golden_dir):
            expected = sorted(f[:-len(".sha256")] if f.endswith(".sha256") else f for f in output_files(golden_dir))
            if expected != files:
                problems.append(f"wrote {files}, golden has {expected}")
        for fname in files:
            first, second = (read(os.path.join(out, fname)) for out in outs)
            if first != second:
                problems.append(f"{fname} differs between two runs with the same seed")
            digest = hashlib.sha256(first).hexdigest()
            inline = os.path.join(golden_dir, fname)
            hashed = inline + ".sha256"
            if update:
                os.makedirs(os.path.dirname(inline), exist_ok=True)
                # A comparison's per-run outputs are kept as digests (they are many).
                if len(first) > MAX_INLINE or not fname.endswith(INLINE_SUFFIXES) or (compare and os.sep in fname):
                    with open(hashed, "w") as f:
                        f.write(digest + "\n")
                else:
                    with open(inline, "wb") as f:
                        f.write(first)
            elif os.path.exists(inline):
                if read(inline) != first:
                    problems.append(f"{fname} differs from {os.path.relpath(inline, ROOT)}")
            elif os.path.exists(hashed):
                if read(hashed).decode().strip() != digest:
                    problems.append(f"{fname} does not match {os.path.relpath(hashed, ROOT)}")
            else:
                problems.append(f"no golden file for {fname} (run with --update)")
        if compare:
            problems += check_compare_run(binary, args, outs[0], os.path.join(tmp, name, "run"))
        if name.endswith("-ideal"):
            problems += check_other_seed(binary, args, outs[0], os.path.join(tmp, name, "seed2"))
        if problems:
            failures += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            print(f"ok   {name}")
    return failures


def without_column(text, column):
    rows = [line.split(",") for line in text.decode().splitlines()]
    index = rows[0].index(column)
    return [row[:index] + row[index + 1:] for row in rows]


def check_other_seed(binary, args, first_out, out):
    """With the ideal model the seed only drives the scheduler's random tie-break among
    equally scored nodes, so another seed may change which node a pod got, and nothing
    else on these platforms of identical nodes."""
    r = run(binary, [*args, "--seed", "2"], out)
    if r.returncode != 0:
        return [f"seed 2 failed: {r.stderr.strip()}"]
    problems = []
    for fname, column in (("jobs.csv", "allocated_resources"), ("pods.csv", "node")):
        a = without_column(read(os.path.join(first_out, fname)), column)
        b = without_column(read(os.path.join(out, fname)), column)
        if a != b:
            problems.append(f"seed 2 changes {fname} beyond the {column} column")
    return problems


def check_rejected_jobs(binary, tmp):
    """A job larger than the cluster (examples/batsim/parallel.json's job 5: 200 machines of
    128) is rejected on release under each batch policy, as batsched does: REJECTED in jobs.csv
    (Batsim's final state) and counted on stderr. The SWF form of the same jobs (processors =
    machines, the default) gives the same jobs.csv but for the profile names."""
    failures = 0
    platform = f"{DATA}/batsim/platform_cluster128.xml"
    cases = [(setup, ["--workload", f"{ROOT}/examples/batsim/parallel.json"], "d10")
             for setup in ("fcfs", "easy-backfill", "conservative-backfill")]
    cases.append(("easy-backfill", ["--swf", f"{ROOT}/examples/batsim/parallel.swf"], "swf10"))
    jobs_csv = {}
    for setup, workload, profile in cases:
        label = f"{setup} {os.path.basename(workload[1])}"
        out = os.path.join(tmp, "rejected-" + label.replace(" ", "-"))
        r = subprocess.run([binary, "run", "--platform", platform, *workload, "--scheduler", setup, "--model", "batsim",
                            "--out", out, "--quiet"], capture_output=True, text=True)
        problems = []
        want = (f"kubesim: 1 job(s) REJECTED in jobs.csv, the first: job 5: {setup}: the job needs more machines "
                "than the cluster has (rejected on release)")
        if r.returncode != 0:
            problems.append(f"exit status {r.returncode}")
        elif want not in r.stderr.splitlines():
            problems.append(f"stderr lacks {want!r}")
        else:
            text = read(os.path.join(out, "jobs.csv")).decode()
            rows = [line.split(",") for line in text.splitlines()]
            row = [x for x in rows if x[0] == "5"]
            if not row or row[0][rows[0].index("final_state")] != "REJECTED" or row[0][rows[0].index("profile")] != profile:
                problems.append(f"jobs.csv's job 5 is not REJECTED: {row}")
            jobs_csv[label] = without_column(text.encode(), "profile")
        if problems:
            failures += 1
            print(f"FAIL rejected job under {label}: " + "; ".join(problems) + f": {r.stderr.strip()}")
        else:
            print(f"ok   rejected job under {label}")
    if jobs_csv.get("easy-backfill parallel.json") != jobs_csv.get("easy-backfill parallel.swf"):
        failures += 1
        print("FAIL parallel.swf (processors = machines) does not give parallel.json's jobs.csv")
    return failures


def check_bad_inputs(binary, tmp):
    """tests/bad/<case>.<ext> with a first-line comment or sidecar <case>.expect holding the
    text the error must contain; the error names the case's file, or the file of an "@FILE" line
    (relative to tests/bad: a file the case names, kept in tests/bad/files/)."""
    failures = 0
    bad_dir = os.path.join(ROOT, "tests", "bad")
    for entry in sorted(os.listdir(bad_dir)):
        if entry.endswith(".expect") or os.path.isdir(os.path.join(bad_dir, entry)):
            continue
        path = os.path.join(bad_dir, entry)
        expect = read(path + ".expect").decode().strip().split("\n")
        kind, want = expect[0], [w for w in expect[1:] if not w.startswith("@")]
        named = [os.path.join(bad_dir, w[1:]) for w in expect[1:] if w.startswith("@")] or [path]
        base = {
            "workload": ["--platform", f"{DATA}/batkube/platform_graphene_16nodes.xml", "--workload", path],
            "platform": ["--platform", path, "--workload", f"{DATA}/batkube/200_delay170.json"],
            "cluster": ["--cluster", path, "--workload", f"{DATA}/batkube/200_delay170.json"],
            "swf": ["--cluster", f"{ROOT}/examples/nasa/cluster.yaml", "--swf-processors", "cores", "--swf", path],
            "scheduler": ["--platform", f"{DATA}/batkube/platform_graphene_16nodes.xml", "--workload",
                          f"{DATA}/batkube/200_delay170.json", "--scheduler-config", path],
            "model": ["--platform", f"{DATA}/batkube/platform_graphene_16nodes.xml", "--workload",
                      f"{DATA}/batkube/200_delay170.json", "--model", path],
            "scenario": ["--scenario", path],
            "scenario-config": ["--scenario", path, "--scheduler-config",
                                f"{ROOT}/examples/scheduler-config/most-allocated.yaml"],
            "volcano": ["--platform", f"{DATA}/batkube/platform_graphene_16nodes.xml", "--workload",
                        f"{DATA}/batkube/200_delay170.json", "--scheduler", "volcano", "--scheduler-config", path],
            "compare-config": ["compare", "--scenario", f"{ROOT}/examples/compare/small.yaml", "--seeds", "2",
                               "--schedulers", f"default-scheduler,default-scheduler={path}"],
            "compare-scenario": ["compare", "--scenario", path, "--schedulers", "default-scheduler"],
        }[kind]
        out = os.path.join(tmp, "bad-" + entry)
        r = run(binary, base, out)
        lines = r.stderr.strip().split("\n")
        problems = []
        if r.returncode == 0:
            problems.append("exit status 0")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr")
        if named[0] not in r.stderr:
            problems.append(f"error does not name {os.path.basename(named[0])}")
        for w in want:
            if w not in r.stderr:
                problems.append(f"error lacks {w!r}")
        if os.path.exists(out):
            problems.append("an output directory was created")
        if problems:
            failures += 1
            print(f"FAIL bad input {entry}: {'; '.join(problems)}: {r.stderr.strip()}")
        else:
            print(f"ok   bad input {entry}: {lines[0]}")
    return failures


def main():
    update = "--update" in sys.argv
    binary = os.path.abspath([a for a in sys.argv[1:] if a != "--update"][0])
    tmp = tempfile.mkdtemp(prefix="kubesim-scenarios-")
    try:
        failures = check_scenarios(binary, update, tmp)
        failures += check_rejected_jobs(binary, tmp)
        failures += check_bad_inputs(binary, tmp)
    finally:
        shutil.rmtree(tmp)
    print(f"{'FAILED' if failures else 'PASSED'}: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
