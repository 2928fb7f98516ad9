#!/usr/bin/env python3
"""The conventions every subcommand shares (docs/reference/running.md, src/cli/cli_conventions.hpp),
from the command line, in an empty working folder:

- `kubesim version` prints what `kubesim --version` prints;
- unknown subcommands and flags: exit 2, one line with "did you mean NAME?";
- the default output folder results/<subcommand>/<input name> (run, bsp); -o and --output aliases of --out;
- calibrate's renamed --jobs: the same model as --measured, with a deprecation note;
- run --decisions: no FILE gives OUT/decisions.csv, a relative FILE is under --out;
- run --scheduler-config without --scheduler: configures a scenario's kube-scheduler (as with
  --scheduler default-scheduler), refused (FILE:LINE, exit 2) for a scenario naming its schedulers;
- serve: the default kubeconfig is OUT/kubesim.kubeconfig and --builtin-scheduler off says so;
- the generated man pages name every option of --help, and the bash completion completes.

Usage: cli_conventions_test.py KUBESIM   (run from the repository's root)
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
E2 = os.path.join(ROOT, "examples/multitenant/e2.yaml")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def kubesim(*args, cwd):
    return subprocess.run([KUBESIM, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def errors(cwd):
    version = kubesim("version", cwd=cwd)
    check("version == --version", version.returncode == 0 and version.stdout == kubesim("--version", cwd=cwd).stdout,
          version.stdout + version.stderr)
    for argv, hint in [(["runn"], 'unknown command "runn" (did you mean run?)'),
                       (["run", "--scenaro", E2], "did you mean --scenario?"),
                       (["run", "--scenario", E2, "--otu", "x"], "did you mean --out?"),
                       (["compare", "--scenario", E2, "--schedulers", "default-scheduler", "--seeds", "1", "--job", "2"],
                        "did you mean --jobs?")]:
        p = kubesim(*argv, cwd=cwd)
        check("kubesim " + " ".join(argv[:2]) + ": " + hint, p.returncode == 2 and hint in p.stderr and
              len(p.stderr.splitlines()) == 1, "exit %d: %s" % (p.returncode, p.stderr))


def outputs(cwd):
    p = kubesim("run", "--scenario", E2, "--quiet", cwd=cwd)
    check("run: default --out results/run/e2", p.returncode == 0 and
          os.path.exists(os.path.join(cwd, "results/run/e2/report.html")), p.stderr)
    for alias in ["-o", "--output"]:
        p = kubesim("run", "--scenario", E2, "--quiet", alias, "alias" + alias, cwd=cwd)
        check("run " + alias + " is --out", p.returncode == 0 and os.path.exists(os.path.join(cwd, "alias" + alias, "jobs.csv")),
              p.stderr)
    p = kubesim("run", "--scenario", E2, "--quiet", "--decisions", "--out", "d1", cwd=cwd)
    check("run --decisions: OUT/decisions.csv", p.returncode == 0 and os.path.exists(os.path.join(cwd, "d1/decisions.csv")),
          p.stderr)
    p = kubesim("run", "--scenario", E2, "--quiet", "--decisions", "mine.csv", "--out", "d2", cwd=cwd)
    check("run --decisions mine.csv: under --out", p.returncode == 0 and os.path.exists(os.path.join(cwd, "d2/mine.csv"))
          and not os.path.exists(os.path.join(cwd, "mine.csv")), p.stderr)
    p = kubesim("bsp", "--data", os.path.join(ROOT, "data/gang"), "--steps", "5", "--quiet", cwd=cwd)
    check("bsp: default --out results/bsp/gang", p.returncode == 0 and
          os.path.exists(os.path.join(cwd, "results/bsp/gang/results.csv")), p.stderr)
    swf = os.path.join(ROOT, "data/swf/KIT-10-80.swf")
    p = kubesim("convert", "swf-to-batsim", swf, "--out", "a.json", cwd=cwd)
    q = kubesim("convert", "swf-to-batsim", swf, "--output", "b.json", cwd=cwd)
    jobs = [json.load(open(os.path.join(cwd, n)))["jobs"] if os.path.exists(os.path.join(cwd, n)) else None
            for n in ("a.json", "b.json")]
    check("convert --out and --output", p.returncode == q.returncode == 0 and jobs[0] and jobs[0] == jobs[1],
          p.stderr + q.stderr)


def calibrate(cwd):
    workload = os.path.join(ROOT, "data/batkube/200_delay170.json")
    measured = os.path.join(ROOT, "data/batkube/real-k3s/200_delay170_1_jobs.csv")
    new = kubesim("calibrate", "--workload", workload, "--measured", measured, "--out", "new.yaml", cwd=cwd)
    old = kubesim("calibrate", "--workload", workload, "--jobs", measured, "-o", "old.yaml", cwd=cwd)
    same = new.returncode == old.returncode == 0 and \
        open(os.path.join(cwd, "new.yaml")).read() == open(os.path.join(cwd, "old.yaml")).read()
    check("calibrate --jobs: alias of --measured with a note", same and "--jobs is deprecated: use --measured" in old.stderr,
          new.stderr + old.stderr)


def scheduler_config(cwd):
    small = os.path.join(ROOT, "examples/compare/small.yaml")
    config = os.path.join(ROOT, "examples/scheduler-config/most-allocated.yaml")
    runs = [kubesim("run", "--scenario", small, *extra, "--out", out, "--quiet", cwd=cwd)
            for out, extra in [("sc0", []), ("sc1", ["--scheduler-config", config]),
                               ("sc2", ["--scheduler", "default-scheduler", "--scheduler-config", config])]]
    pods = [open(os.path.join(cwd, out, "pods.csv")).read() if r.returncode == 0 else out
            for out, r in zip(("sc0", "sc1", "sc2"), runs)]
    check("run --scheduler-config without --scheduler: applied to the scenario's kube-scheduler",
          pods[1] == pods[2] and pods[0] != pods[1], " ".join(r.stderr for r in runs))
    shared = os.path.join(ROOT, "examples/multi-scheduler/shared-cluster.yaml")
    p = kubesim("run", "--scenario", shared, "--scheduler-config", config, "--out", "sc3", cwd=cwd)
    check("run --scheduler-config on a scenario naming its schedulers: refused with FILE:LINE",
          p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "shared-cluster.yaml:16:" in p.stderr
          and not os.path.exists(os.path.join(cwd, "sc3")), "exit %d: %s" % (p.returncode, p.stderr))


def serve(cwd):
    proc = subprocess.Popen([KUBESIM, "serve", "--cluster", os.path.join(ROOT, "examples/serve/cluster.yaml"),
                             "--port", "0", "--builtin-scheduler", "off", "--out", "srv"], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kubeconfig = os.path.join(cwd, "srv/kubesim.kubeconfig")
    deadline = time.monotonic() + 20
    while not os.path.exists(kubeconfig) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    written = os.path.exists(kubeconfig)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    check("serve: kubeconfig in OUT/kubesim.kubeconfig", written, out + err)
    check("serve --builtin-scheduler off: says it waits", "waiting for an external scheduler" in out, out)
    check("serve: outputs replace the folder on exit", os.path.exists(os.path.join(cwd, "srv/jobs.csv")), out + err)


def reference(cwd):
    p = kubesim("man", "--out", "man", cwd=cwd)
    page = open(os.path.join(cwd, "man/kubesim-run.1")).read() if p.returncode == 0 else ""
    helped = set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", kubesim("run", "--help", cwd=cwd).stdout, re.M))
    missing = [o for o in helped if o.replace("-", "\\-") not in page]
    check("man: kubesim-run.1 names every option of run --help", p.returncode == 0 and helped and not missing,
          "missing %s" % missing)
    script = kubesim("completion", "bash", cwd=cwd).stdout
    with open(os.path.join(cwd, "kubesim.bash"), "w") as f:
        f.write(script)
    words = subprocess.run(["bash", "-c", "source kubesim.bash; COMP_WORDS=(kubesim run --sce); COMP_CWORD=2; _kubesim; "
                            "echo ${COMPREPLY[@]}"], cwd=cwd, capture_output=True, text=True).stdout.split()
    check("completion: kubesim run --sce -> --scenario", words == ["--scenario"], str(words))


def main():
    global KUBESIM
    KUBESIM = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as cwd:
        errors(cwd)
        outputs(cwd)
        calibrate(cwd)
        scheduler_config(cwd)
        serve(cwd)
        reference(cwd)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
