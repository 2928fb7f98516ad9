#!/usr/bin/env python3
"""Every command of the README (and of the tutorial "Your first scenario") is run by the test
suite: the lines of their fenced code blocks, continuation lines joined, comments dropped.
  - a `kubesim ...` or `build/kubesim ...` command is run here, from the repository's root,
    with its outputs redirected into a temporary folder (as tests/run_help_examples.py does);
    it must exit 0;
  - any other command must be in COVERED, which names the ctest that runs it, and that ctest
    must be registered (CMakeLists.txt, cmake/*.cmake); `scripts/test.sh` is what CI runs
    (.ci/run must call it).
A command in none of these fails the test: run it here, or name the test that runs it.
Also, every relative link of the README (to the site's pages, a picture) names a file that exists.

Usage: readme_commands_test.py KUBESIM_BINARY"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from checks import summary  # noqa: E402  tests/checks.py
from run_help_examples import adapt  # noqa: E402  the same redirection of outputs

PAGES = ["README.md", "docs/tutorials/first-scenario.md"]

# Commands other than kubesim's, and the ctest that runs each (what it runs, exactly).
COVERED = {
    "scripts/run-example.sh": "standalone",  # runs it in a copy of the repository
    "scripts/docs.sh": "docs_site",  # runs it, then checks the built site
    "cd build && cpack -G DEB && dpkg -i kubesim_0.1.0_amd64.deb": "package_deb",  # cpack; dpkg -i in CI
    "python3 -m venv venv && venv/bin/pip install --no-build-isolation .": "pip_venv",
}


def commands(path):
    """(line number, command) of every line of the file's fenced code blocks but YAML/Python ones."""
    out, fence, current = [], None, None
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("```"):
                fence = None if fence is not None else line[3:].strip()
                continue
            if fence is None or fence not in ("", "sh", "bash", "console"):
                continue
            text = re.sub(r"\s+#.*$", "", line).strip()
            if current is not None:
                current = (current[0], current[1] + " " + text.rstrip("\\").strip())
                if not text.endswith("\\"):
                    out.append(current)
                    current = None
            elif text:
                if text.endswith("\\"):
                    current = (n, text.rstrip("\\").strip())
                else:
                    out.append((n, text))
    return out


def registered_tests():
    names = set()
    for path in [os.path.join(ROOT, "CMakeLists.txt")] + glob.glob(os.path.join(ROOT, "cmake", "*.cmake")):
        with open(path, encoding="utf-8") as f:
            names.update(re.findall(r"add_test\(NAME (\w+)", f.read()))
    return names


def run_kubesim(kubesim, argv, tmp, index):
    r = subprocess.run([kubesim, *adapt(argv, tmp, index)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    return None if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip()[:300]}"


def broken_links(path):
    """The README's relative links (and images) whose file does not exist."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        file = target.split("#", 1)[0]
        if file and "://" not in target and not os.path.exists(os.path.join(ROOT, os.path.dirname(path), file)):
            bad.append(f"{path}: links to {target}, which does not exist")
    return bad


def main():
    kubesim = os.path.abspath(sys.argv[1])
    tests = registered_tests()
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci_runs_tests = re.search(r"^exec scripts/test\.sh", f.read(), re.M) is not None
    passed, failures = 0, []
    with tempfile.TemporaryDirectory(prefix="kubesim-readme-") as tmp:
        for page in PAGES:
            for n, command in commands(page):
                where = f"{page}:{n}: {command}"
                words = shlex.split(command)
                if words[0] in ("kubesim", "build/kubesim"):
                    error = run_kubesim(kubesim, words[1:], tmp, passed + len(failures))
                elif command == "scripts/test.sh":
                    error = None if ci_runs_tests else ".ci/run does not exec scripts/test.sh"
                elif command in COVERED:
                    error = None if COVERED[command] in tests else f"ctest {COVERED[command]} is not registered"
                else:
                    error = "run by no test (run it in tests/docs/readme_commands_test.py or add it to COVERED)"
                print(f"[{error or 'ok'}] {where}")
                if error:
                    failures.append(f"{where}: {error}")
                else:
                    passed += 1
    links = broken_links("README.md")
    return summary("readme_commands", passed + (not links), failures + links)


if __name__ == "__main__":
    sys.exit(main())
