#!/usr/bin/env python3
"""Every example that `kubesim --version` and each subcommand's `--help` print runs, from the
repository's root, on the shipped files: every subcommand's --help shows a working
example. Outputs go to a temporary folder: `--out DIR` and `-o FILE` are redirected there;
a `serve` example gets `--port 0` and its own kubeconfig, must answer GET /version, and
must stop cleanly (exit 0) on SIGTERM.

Usage: run_help_examples.py KUBESIM_BINARY"""
import json
import os
import re
import signal
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request

from checks import summary  # tests/checks.py, beside this script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBCOMMANDS = [[], ["run"], ["serve"], ["compare"], ["convert"], ["convert", "swf-to-batsim"]]


def examples(text):
    """The `kubesim ...` command lines of a help text, continuation lines joined."""
    lines, current = [], None
    for raw in text.splitlines():
        line = raw.strip()
        if current is not None:
            current += " " + line.rstrip("\\").strip()
            if not line.endswith("\\"):
                lines.append(current)
                current = None
        elif re.match(r"kubesim (run|serve|compare|convert) ", line):
            if line.endswith("\\"):
                current = line.rstrip("\\").strip()
            else:
                lines.append(line)
    return lines


def adapt(argv, tmp, index):
    """Redirects the example's outputs into tmp and makes a serve example stop by itself."""
    out = []
    skip = False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a in ("--out", "-o", "--output", "--port", "--kubeconfig"):
            skip = True
            continue
        out.append(a)
    name = os.path.join(tmp, f"example-{index}")
    if argv[0] == "serve":
        out += ["--port", "0", "--kubeconfig", name + ".kubeconfig", "--out", name, "--quiet"]
    elif argv[0] == "convert":
        out += ["-o", name + ".json"]
    else:
        out += ["--out", name, "--quiet"]
    return out


def run_serve(kubesim, argv, kubeconfig):
    """Starts a serve example, asks it for /version, stops it with SIGTERM; returns an error or None."""
    proc = subprocess.Popen([kubesim, *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(kubeconfig):
            if proc.poll() is not None or time.monotonic() > deadline:
                return f"no kubeconfig written (exit {proc.poll()})"
            time.sleep(0.05)
        with open(kubeconfig) as f:
            server = re.search(r"server: (\S+)", f.read()).group(1)
        with urllib.request.urlopen(server + "/version", timeout=10) as r:
            if "gitVersion" not in json.load(r):
                return "GET /version has no gitVersion"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        return None if proc.returncode == 0 else f"exit {proc.returncode} after SIGTERM: {err.strip()[:300]}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def main():
    kubesim = os.path.abspath(sys.argv[1])
    seen, failures = [], []
    version = subprocess.run([kubesim, "--version"], capture_output=True, text=True, cwd=ROOT)
    if version.returncode != 0 or not re.match(r"kubesim \d+\.\d+\.\d+", version.stdout):
        failures.append(f"--version printed {version.stdout!r}")
    texts = [version.stdout]
    for sub in SUBCOMMANDS:
        h = subprocess.run([kubesim, *sub, "--help"], capture_output=True, text=True, cwd=ROOT)
        found = examples(h.stdout)
        if not found:
            failures.append(f"`kubesim {' '.join(sub)} --help` shows no example")
        texts.append(h.stdout)
    for text in texts:
        for line in examples(text):
            if line not in seen:
                seen.append(line)
    with tempfile.TemporaryDirectory(prefix="kubesim-help-") as tmp:
        for i, line in enumerate(seen):
            argv = adapt(shlex.split(line)[1:], tmp, i)
            if argv[0] == "serve":
                error = run_serve(kubesim, argv, os.path.join(tmp, f"example-{i}.kubeconfig"))
            else:
                r = subprocess.run([kubesim, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300)
                error = None if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip()[:300]}"
            print(f"[{error or 'ok'}] {line}")
            if error:
                failures.append(line)
    return summary("help examples", len(seen) - len([f for f in failures if f in seen]), failures)


if __name__ == "__main__":
    sys.exit(main())
