#!/usr/bin/python3
"""`kubesim sweep --emit k8s-indexed-job` against `kubesim serve` (issue 17, "Must hold").

Usage: k8s_indexed_job_test.py KUBESIM

Runs examples/sweep/e3-schedulers.yaml locally (12 cells; `sweep merge` rebuilds the same
results.csv), emits its Indexed Job (2 cells per index: 6 completion indexes), starts `kubesim serve` on a small cluster (--clock realtime=20, port 0),
and checks with kubectl that the manifest is accepted by `kubectl apply --dry-run=server`
(nothing created), then applied it runs to completion with one pod per index: pod names
<job>-<index>-xxxxx, the batch.kubernetes.io/job-completion-index annotation, the
JOB_COMPLETION_INDEX env var, hostname <job>-<index>, status.completedIndexes 0-5.
Prints one PASS/FAIL line per check; exit status 1 when any failed. Needs kubectl.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)
    return ok


def main():
    kubesim = os.path.abspath(sys.argv[1])
    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("SKIP: kubectl is not installed")
        return 0
    tmp = tempfile.mkdtemp(prefix="kubesim-k8s-sweep-")
    server = None
    try:
        out = os.path.join(tmp, "out")
        p = subprocess.run([kubesim, "sweep", "examples/sweep/e3-schedulers.yaml", "--out", out,
                            "--emit", "k8s-indexed-job"], cwd=REPO, capture_output=True, text=True)
        manifest = os.path.join(out, "k8s", "kubesim-sweep-e3-schedulers.yaml")
        if not check("emit", p.returncode == 0 and os.path.exists(manifest), p.stdout.strip() + p.stderr.strip()):
            return 1
        # The shipped example runs locally too; `sweep merge` rebuilds the same results.
        p = subprocess.run([kubesim, "sweep", "examples/sweep/e3-schedulers.yaml", "--out", out, "-j", "2", "--quiet"],
                           cwd=REPO, capture_output=True, text=True)
        results = open(os.path.join(out, "results.csv")).read() if p.returncode == 0 else ""
        os.remove(os.path.join(out, "results.csv")) if results else None
        m = subprocess.run([kubesim, "sweep", "merge", out], capture_output=True, text=True)
        again = open(os.path.join(out, "results.csv")).read() if m.returncode == 0 else None
        check("example runs; merge rebuilds results.csv", results.count("\n") == 37 and again == results,
              f"{results.count(chr(10)) - 1} rows; " + (m.stdout + m.stderr + p.stderr).strip())
        job = yaml.safe_load(open(manifest))
        spec = job["spec"]
        check("emit: Indexed Job", spec["completionMode"] == "Indexed" and spec["completions"] == 6
              and spec["parallelism"] == 4, json.dumps({k: spec[k] for k in ("completionMode", "completions", "parallelism")}))

        kubeconfig = os.path.join(tmp, "kubeconfig")
        server = subprocess.Popen([kubesim, "serve", "--cluster", os.path.join(REPO, "examples/serve/cluster.yaml"),
                                   "--clock", "realtime=20", "--keep-serving", "--port", "0", "--kubeconfig", kubeconfig,
                                   "--out", os.path.join(tmp, "serve-out"), "--quiet"],
                                  cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while not os.path.exists(kubeconfig) and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        if not check("serve started", os.path.exists(kubeconfig)):
            return 1

        def kc(*args, timeout=40):
            r = subprocess.run([kubectl, "--kubeconfig", kubeconfig, "--cache-dir", os.path.join(tmp, "cache"), *args],
                               capture_output=True, text=True, timeout=timeout)
            return r.returncode, r.stdout, r.stderr

        rc, so, se = kc("apply", "--dry-run=server", "-f", manifest)
        check("kubectl apply --dry-run=server", rc == 0 and "created (server dry run)" in so, (so + se).strip())
        rc, so, se = kc("get", "jobs", "-o", "name")
        check("dry run created nothing", rc == 0 and so.strip() == "", (so + se).strip() or "no jobs")

        rc, so, se = kc("apply", "-f", manifest)
        check("kubectl apply", rc == 0 and "created" in so, (so + se).strip())
        name = job["metadata"]["name"]
        rc, so, se = kc("wait", "--for=condition=complete", f"job/{name}", "--timeout=60s", timeout=70)
        check("job completes", rc == 0, (so + se).strip())
        rc, so, se = kc("get", "job", name, "-o", "json")
        status = json.loads(so)["status"] if rc == 0 else {}
        check("status", status.get("succeeded") == 6 and status.get("completedIndexes") == "0-5",
              json.dumps({k: status.get(k) for k in ("succeeded", "failed", "completedIndexes")}))
        rc, so, se = kc("get", "pods", "-l", f"job-name={name}", "-o", "json")
        pods = json.loads(so)["items"] if rc == 0 else []
        indexes = sorted(int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]) for p in pods)
        check("one pod per index", indexes == list(range(6)), f"{len(pods)} pods, indexes {indexes}")
        bad = []
        for p in pods:
            ix = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
            c = p["spec"]["containers"][0]
            env = [e for e in c.get("env", []) if e["name"] == "JOB_COMPLETION_INDEX"]
            if not re.fullmatch(rf"{name}-{ix}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", p["metadata"]["name"]):
                bad.append(p["metadata"]["name"] + ": name")
            if p["spec"].get("hostname") != f"{name}-{ix}":
                bad.append(p["metadata"]["name"] + ": hostname")
            if not env or "job-completion-index" not in env[0]["valueFrom"]["fieldRef"]["fieldPath"]:
                bad.append(p["metadata"]["name"] + ": env")
            if p["status"]["phase"] != "Succeeded":
                bad.append(p["metadata"]["name"] + ": " + p["status"]["phase"])
        check("pods: <job>-<index>-xxxxx, hostname, JOB_COMPLETION_INDEX, Succeeded", not bad and len(pods) == 6,
              ", ".join(bad) or ", ".join(sorted(p["metadata"]["name"] for p in pods)))
    finally:
        if server and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
