#!/usr/bin/env python3
"""The repository stands on its own (a user's clone has no ../shared beside it):
  1. the README's main command, scripts/run-example.sh, runs in a copy of the repository's
     files placed in an empty folder (KUBESIM= points it at the built binary, so the copy is
     not rebuilt) and prints its results;
  2. no file of the repository names the steering repository's shared folder, except the
     oracle tests (tests/peers/, files named *oracle*), the data README's origin notes and
     the CI script;
  3. every hand derivation a file cites (a markdown file of docs/derivations) is in the
     repository, and no source or test cites notes outside it (the machine's work folder).

Usage: standalone_test.py KUBESIM_BINARY"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import summary  # tests/checks.py, beside this script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOWED = ("data/README.md", ".ci/run")
NEEDLE = "shared" + "/"  # spelled so that this file does not name it


def repository_files():
    """The tracked files plus the untracked ones not ignored (what a commit would hold)."""
    r = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                       cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"standalone_test: git ls-files failed in {ROOT}: {r.stderr.strip()}")
    return sorted(p for p in r.stdout.split("\0") if p and os.path.isfile(os.path.join(ROOT, p)))


def is_oracle_test(path):
    return path.startswith("tests/peers/") or "oracle" in os.path.basename(path)


def check_no_shared(files):
    bad = []
    for path in files:
        if path in ALLOWED or is_oracle_test(path) or path.startswith("data/"):
            continue
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if NEEDLE in line:
                        bad.append(f"{path}:{n}: {line.strip()[:120]}")
        except UnicodeDecodeError:
            continue
    return bad


def check_citations(files):
    """Cited derivations that are missing, and citations of paths outside the repository."""
    bad = []
    outside = "/" + "work/"  # spelled so that this file does not match itself
    for path in files:
        if path.startswith("data/") or is_oracle_test(path) or path in ALLOWED:
            continue
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    for cited in re.findall(r"docs/derivations/[\w.-]+\.md", line):
                        if not os.path.isfile(os.path.join(ROOT, cited)):
                            bad.append(f"{path}:{n}: cites {cited}, which does not exist")
                    if path.startswith(("src/", "tests/", "bench/", "python/")) and outside in line:
                        bad.append(f"{path}:{n}: cites a path outside the repository: {line.strip()[:120]}")
        except UnicodeDecodeError:
            continue
    return bad


def run_in_copy(kubesim, files):
    with tempfile.TemporaryDirectory(prefix="kubesim-clone-") as tmp:
        clone = os.path.join(tmp, "kubesim")
        for path in files:
            os.makedirs(os.path.dirname(os.path.join(clone, path)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, path), os.path.join(clone, path))
        assert not os.path.exists(os.path.join(tmp, "shared"))
        env = dict(os.environ, KUBESIM=kubesim)
        r = subprocess.run(["scripts/run-example.sh"], cwd=clone, env=env, capture_output=True, text=True,
                           timeout=300)
        errors = []
        if r.returncode != 0:
            errors.append(f"scripts/run-example.sh exited {r.returncode}: {r.stderr.strip()[:500]}")
        # The human summary (headline with makespan and waits) and where the report is; no raw CSV.
        if ("All 200 jobs finished in" not in r.stdout or "mean wait" not in r.stdout
                or "results/spaced/report.html" not in r.stdout):
            errors.append(f"scripts/run-example.sh printed no human summary:\n{r.stdout[:500]}")
        if not os.path.exists(os.path.join(clone, "results", "spaced", "report.html")):
            errors.append("scripts/run-example.sh wrote no results/spaced/report.html")
        return errors


def main():
    kubesim = os.path.abspath(sys.argv[1])
    files = repository_files()
    failures = [f"names {NEEDLE}: {b}" for b in check_no_shared(files)]
    failures += check_citations(files)
    failures += run_in_copy(kubesim, files)
    return summary("standalone", 3 - min(3, len(failures)), failures)


if __name__ == "__main__":
    sys.exit(main())
