#!/usr/bin/python3
"""`kubesim serve` with real clients (issue 4, "Must hold").

Usage: run_api_tests.py KUBESIM [--only a,b,c,d] [--keep] [--data DIR]

Starts `kubesim serve ... --port 0 --kubeconfig TMP/kubeconfig --out TMP/out` for each part,
waits for the kubeconfig, and checks:
  a. kubectl: get nodes, apply a Job (sleep 5) on a small cluster with --clock realtime=10,
     get pods -w seeing its transitions, wait --for=condition=complete, get pods -A,
     describe node, describe pod, delete -f;
  b. the multi-tenant study's submission code (tests/api/study_client.py, copied from
     the study's notebook, goughes/k8s-scheduling): queue and run times from the API's timestamps equal the sleep
     durations and the schedule the simulation wrote to pods.csv;
  c. tests/api/external_scheduler.py drives the Batkube spaced workload in --clock cosim with
     --builtin-scheduler off, twice: every job completes, same makespan;
  d. error responses are Status objects with the right code and reason (400, 404, 405, 409,
     403 quota, 413, 415, 422, 410) and the server keeps serving after each.
Each check prints one line, PASS or FAIL, with what it compared; the exit status is 1 when any
check failed. Needs /usr/bin/python3 with python3-kubernetes (for b and c) and kubectl (a).
"""
import argparse
import csv
import http.client
import json
import math
import random
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY = sys.executable or "/usr/bin/python3"

failures = []
passes = 0


def check(name, ok, detail=""):
    global passes
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if ok:
        passes += 1
    else:
        failures.append(name)
    return ok


def note(msg):
    print(f"     {msg}", flush=True)


# ---- the server ----------------------------------------------------------------------------
class Server:
    def __init__(self, kubesim, tmp, name, args, start_timeout=15):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.out = os.path.join(self.dir, "out")
        self.cmd = [kubesim, "serve", *args, "--port", "0", "--kubeconfig", self.kubeconfig,
                    "--out", self.out]
        self.stdout_path = os.path.join(self.dir, "stdout")
        self.stderr_path = os.path.join(self.dir, "stderr")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, cwd=self.dir, stdin=subprocess.DEVNULL,
                                     stdout=open(self.stdout_path, "w"),
                                     stderr=open(self.stderr_path, "w"))
        self.wall = None
        self.host = self.port = None
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            if os.path.exists(self.kubeconfig):
                try:
                    kc = yaml.safe_load(open(self.kubeconfig))
                    url = urllib.parse.urlparse(kc["clusters"][0]["cluster"]["server"])
                    self.host, self.port = url.hostname, url.port
                    self.kc = kc
                    break
                except Exception:
                    pass  # written atomically, so this should not happen; retry
            time.sleep(0.02)
        self.startup = time.monotonic() - self.t0

    @property
    def up(self):
        return self.port is not None

    def describe(self):
        return " ".join(os.path.relpath(a, self.dir) if a.startswith(self.dir) else a
                        for a in self.cmd[1:])

    def stop(self, timeout=20):
        """SIGTERM (if still running) and wait; returns the exit status (None if it hung)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait(timeout)

    def wait(self, timeout):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        if self.wall is None:
            self.wall = time.monotonic() - self.t0
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stdout(self):
        return open(self.stdout_path).read()

    def stderr(self):
        return open(self.stderr_path).read()

    # plain HTTP, one keep-alive connection per caller
    def conn(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=10)

    def request(self, method, path, body=None, ctype="application/json", conn=None, headers=None):
        """Returns (status, parsed JSON or raw text, raw bytes)."""
        c = conn or self.conn()
        h = {"Accept": "application/json"}
        if body is not None:
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
            h["Content-Type"] = ctype
        h.update(headers or {})
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        raw = r.read()
        if conn is None:
            c.close()
        try:
            obj = json.loads(raw) if raw else None
        except ValueError:
            obj = raw.decode(errors="replace")
        return r.status, obj, raw


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def final_line_ok(srv):
    """The contract: a serving line once listening, and at the end wall and simulated time."""
    lines = [l for l in srv.stdout().splitlines() if l.strip()]
    serving = any(re.match(r"kubesim: serving the Kubernetes API on http://127\.0\.0\.1:\d+\b", l)
                  for l in lines)
    ended = [l for l in lines if re.search(r"simulated [0-9.]+ s in [0-9.]+ s wall", l)]
    return serving, (ended[0] if ended else (lines[-1] if lines else ""))


def finish(srv, name, expect_self_exit=False, timeout=20):
    rc = srv.wait(timeout) if expect_self_exit else srv.stop(timeout)
    if rc is None:
        srv.kill()
    how = "exited by itself" if expect_self_exit else "after SIGTERM"
    check(f"{name}: server exit status", rc == 0, f"{rc} {how} (expected 0)")
    serving, last = final_line_ok(srv)
    check(f"{name}: serving line and final line", serving and "wall" in last and "simulated" in last,
          f"serving line {'found' if serving else 'missing'}; {last!r}")
    return rc


# ---- a: kubectl ----------------------------------------------------------------------------
CLUSTER_YAML = """\
nodeGroups:
  - name: small
    count: 2
    allocatable:
      cpu: "4"
      memory: 16Gi
      pods: "110"
"""

JOB_YAML = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: sleep5
  namespace: default
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: sleep
          image: busybox:1.36
          command: ["sleep"]
          args: ["5"]
          resources:
            requests: {cpu: "1", memory: 1Gi}
            limits: {cpu: "1", memory: 1Gi}
"""


def kubectl_runner(srv, tmp):
    kubectl = shutil.which("kubectl")
    cache = os.path.join(tmp, "kubectl-cache")

    def run(*args, timeout=40):
        cmd = [kubectl, "--kubeconfig", srv.kubeconfig, "--cache-dir", cache, *args]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            return p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            return None, e.stdout or "", (e.stderr or "") + " [timeout]"

    def popen(*args):
        cmd = [kubectl, "--kubeconfig", srv.kubeconfig, "--cache-dir", cache, *args]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return run, popen


def short(s, n=300):
    s = (s or "").strip().replace("\n", " | ")
    return s if len(s) <= n else s[:n] + "..."


def part_a(srv, tmp):
    if not shutil.which("kubectl"):
        check("a: kubectl installed", False, "kubectl not on PATH")
        return
    kubectl, kubectl_bg = kubectl_runner(srv, tmp)
    st, nodes, _ = srv.request("GET", "/api/v1/nodes")
    names = sorted(n["metadata"]["name"] for n in (nodes or {}).get("items", [])) if st == 200 else []
    check("a: GET /api/v1/nodes", st == 200 and len(names) == 2,
          f"status {st}, {len(names)} nodes {names} (cluster YAML: 2)")

    rc, out, err = kubectl("get", "nodes")
    rows = [l.split() for l in out.splitlines()[1:] if l.strip()]
    check("a: kubectl get nodes", rc == 0 and sorted(r[0] for r in rows) == names
          and all(r[1] == "Ready" for r in rows),
          f"rc {rc}, rows {[r[:2] for r in rows]} vs API {names} Ready; {short(err)}")

    jobfile = os.path.join(tmp, "job.yaml")
    with open(jobfile, "w") as f:
        f.write(JOB_YAML)

    # get pods -w before the Job exists; it must print the pod's status transitions
    watcher = kubectl_bg("get", "pods", "-n", "default", "-w")
    watch_lines = []
    reader = threading.Thread(target=lambda: watch_lines.extend(watcher.stdout), daemon=True)
    reader.start()
    time.sleep(1.0)  # let it list and start watching
    rc, out, err = kubectl("apply", "-f", jobfile)
    applied = check("a: kubectl apply -f job.yaml", rc == 0 and "job.batch/sleep5 created" in out,
                    f"rc {rc}, {short(out)} {short(err)}")
    if not applied:
        note("retrying with --validate=false (no OpenAPI on the server?)")
        rc, out, err = kubectl("apply", "--validate=false", "-f", jobfile)
        check("a: kubectl apply --validate=false -f job.yaml", rc == 0 and "created" in out,
              f"rc {rc}, {short(out)} {short(err)}")

    t = time.monotonic()
    rc, out, err = kubectl("wait", "--for=condition=complete", "job/sleep5", "--timeout=30s",
                           timeout=40)
    check("a: kubectl wait --for=condition=complete job/sleep5",
          rc == 0 and "condition met" in out,
          f"rc {rc} after {time.monotonic() - t:.1f} s wall (5 s simulated / 10 + start-up); "
          f"{short(out)} {short(err)}")

    time.sleep(0.5)
    watcher.send_signal(signal.SIGTERM)
    try:
        watcher.wait(5)
    except subprocess.TimeoutExpired:
        watcher.kill()
    reader.join(2)
    werr = watcher.stderr.read()
    statuses = []
    for l in watch_lines:
        f = l.split()
        if f and f[0].startswith("sleep5-") and len(f) >= 3:
            if not statuses or statuses[-1] != f[2]:
                statuses.append(f[2])
    # Pending/ContainerCreating, then Running, then Completed (kubectl's STATUS column)
    want = ["Running", "Completed"]
    it = iter(statuses)
    in_order = all(any(s == w for s in it) for w in want)
    check("a: kubectl get pods -w saw the transitions",
          bool(statuses) and statuses[0] in ("Pending", "ContainerCreating") and in_order,
          f"STATUS sequence {statuses}; expected Pending|ContainerCreating ... Running ... Completed"
          f"{'; stderr ' + short(werr) if werr.strip() else ''}")

    rc, out, err = kubectl("get", "pods", "-A")
    prow = [l.split() for l in out.splitlines()[1:] if "sleep5-" in l]
    pod = prow[0][1] if prow else None
    check("a: kubectl get pods -A", rc == 0 and len(prow) == 1 and prow[0][0] == "default"
          and prow[0][3] == "Completed",
          f"rc {rc}, rows {prow} (expected one default/sleep5-xxxxx Completed); {short(err)}")

    node = None
    if pod:
        st, p, _ = srv.request("GET", f"/api/v1/namespaces/default/pods/{pod}")
        node = (p or {}).get("spec", {}).get("nodeName") if st == 200 else None
        rc, out, err = kubectl("describe", "pod", pod)
        ok = (rc == 0 and re.search(rf"^Name:\s+{re.escape(pod)}$", out, re.M)
              and re.search(r"^Status:\s+Succeeded$", out, re.M)
              and re.search(r"^Controlled By:\s+Job/sleep5$", out, re.M)
              and node and re.search(rf"^Node:\s+{re.escape(node)}", out, re.M))
        check("a: kubectl describe pod", bool(ok),
              f"rc {rc}; Name {pod}, Status Succeeded, Controlled By Job/sleep5, Node {node}: "
              f"{'found' if ok else short(out + ' ' + err, 600)}")
    target = node or (names[0] if names else "none")
    rc, out, err = kubectl("describe", "node", target)
    ok = (rc == 0 and re.search(rf"^Name:\s+{re.escape(target)}$", out, re.M)
          and re.search(r"^Allocatable:", out, re.M) and re.search(r"^\s+cpu:\s+4$", out, re.M)
          and "Allocated resources" in out)
    check("a: kubectl describe node", bool(ok),
          f"rc {rc}; Name {target}, Allocatable cpu 4, Allocated resources: "
          f"{'found' if ok else short(out + ' ' + err, 600)}")

    rc, out, err = kubectl("delete", "-f", jobfile)
    check("a: kubectl delete -f job.yaml", rc == 0 and 'job.batch "sleep5" deleted' in out,
          f"rc {rc}, {short(out)} {short(err)}")
    deadline = time.monotonic() + 5
    while True:
        st_job, _, _ = srv.request("GET", "/apis/batch/v1/namespaces/default/jobs/sleep5")
        st_pods, pods, _ = srv.request("GET", "/api/v1/namespaces/default/pods?labelSelector=job-name%3Dsleep5")
        left = len((pods or {}).get("items", [])) if st_pods == 200 else -1
        if (st_job == 404 and left == 0) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    check("a: Job and its pod gone after delete", st_job == 404 and left == 0,
          f"GET job -> {st_job} (expected 404), pods with job-name=sleep5 -> {left} (expected 0, "
          f"background propagation)")


# ---- b: the study's submission code --------------------------------------------------------
STUDY_CLUSTER = """\
nodeGroups:
  - name: worker
    count: 1
    allocatable:
      cpu: "5"
      memory: 64Gi
      pods: "110"
"""
# [namespace, cpu, mem, num_jobs, sleep, bursts [[start, cpu, mem, jobs, sleep]], interval, exp]
STUDY_PARAMS = ["E2", ["tenant1", "tenant2"], [
    ["tenant1", "0", "4G", 1, "60", [[0, "2", "4G", 3, "60"]], 1, "E2"],
    ["tenant2", "0", "4G", 1, "60", [[0, "1", "2G", 2, "30"]], 1, "E2"],
]]


def parse_ts(s):
    from datetime import datetime
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def part_b(srv, tmp):
    workdir = os.path.join(tmp, "b-study")
    os.makedirs(workdir, exist_ok=True)
    t = time.monotonic()
    p = subprocess.run([PY, os.path.join(HERE, "study_client.py"), srv.kubeconfig,
                        json.dumps(STUDY_PARAMS)], cwd=workdir, capture_output=True, text=True,
                       timeout=60)
    wall = time.monotonic() - t
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    try:
        res = json.loads(last)
    except ValueError:
        res = {"error": "no JSON result"}
    if not check("b: study client ran", p.returncode == 0 and "pods" in res,
                 f"rc {p.returncode} in {wall:.1f} s wall; {short(res.get('error', ''))} "
                 f"{short(p.stderr, 800) if p.returncode else ''}"):
        return None
    pods = res["pods"]
    nse = res.get("namespace_errors", [])
    check("b: Kubernetes.create_namespace (V1Namespace without kind/apiVersion)", not nse,
          f"errors {short(' ; '.join(nse), 400)}" if nse else "namespaces tenant1, tenant2 created")
    check("b: one pod per study Job", len(pods) == 5 and all(r["job"] and r["pod"].startswith(r["job"] + "-")
                                                               for r in pods),
          f"{len(pods)} pods (3 tenant1 + 2 tenant2), named <job>-xxxxx: "
          f"{[r['pod'] for r in pods]}")
    runs = [(r["pod"], r["run"], r["sleep"]) for r in pods]
    check("b: run time (finished_at - started_at) == sleep", all(r == s for _, r, s in runs),
          f"(pod, run, sleep) {[(p[-5:], r, s) for p, r, s in runs]}")
    depvars = os.path.join(workdir, "results", "E2", "E2-default-scheduler-run1-depvars.csv")
    ok = os.path.exists(depvars)
    rows = read_csv(depvars) if ok else []
    check("b: save_results wrote the study's depvars CSV", ok and len(rows) == 2,
          f"{os.path.relpath(depvars, tmp)}: {rows}")
    return pods


def part_b_compare(srv, pods):
    """After the server has written its outputs: compare the API's view with pods.csv."""
    path = os.path.join(srv.out, "pods.csv")
    if not check("b: pods.csv written", os.path.exists(path), path):
        return
    rows = {r.get("pod") or r.get("name"): r for r in read_csv(path)}
    note(f"pods.csv columns: {list(next(iter(rows.values())).keys()) if rows else []}")
    mism = []
    base = None
    for r in pods:
        row = rows.get(r["pod"])
        if row is None:
            mism.append((r["pod"], "missing from pods.csv"))
            continue
        created, st, fin = float(row["created"]), float(row["started"]), float(row["finished"])
        a_start = parse_ts(r["started"]).timestamp()
        a_fin = parse_ts(r["finished"]).timestamp()
        if base is None:
            base = a_start - st  # the date of simulated time 0, as seen through the API
        # metav1.Time has whole seconds: each API time is within 1 s of the simulated one,
        # run times of whole-second sleeps are exact, and the study's queue time (container
        # start - Job creation; the ideal model creates the pod when the Job is created)
        # is within 1 s of started - created in pods.csv.
        if abs((a_start - base) - st) >= 1 or abs((a_fin - base) - fin) >= 1:
            mism.append((r["pod"], f"API started/finished {a_start - base:.0f}/{a_fin - base:.0f} "
                                   f"vs pods.csv {st}/{fin}"))
        if round(fin - st, 6) != r["sleep"] or r["run"] != r["sleep"]:
            mism.append((r["pod"], f"run {r['run']} vs pods.csv {fin - st} vs sleep {r['sleep']}"))
        if abs(r["queue"] - (st - created)) >= 1:
            mism.append((r["pod"], f"queue {r['queue']} vs pods.csv started {st} - created {created}"))
    check("b: API timestamps and study queue/run times match pods.csv", not mism,
          f"{len(pods)} pods compared; mismatches {mism}")
    # the schedule itself: tenant1's third 2-cpu pod waits for the first two (60 s) on 5 cpus
    q = sorted((r["namespace"], r["queue"]) for r in pods)
    t1 = sorted(x for n, x in q if n == "tenant1")
    check("b: study queue times follow the schedule", len(t1) == 3 and t1[0] <= 2 and t1[1] <= 2
          and 58 <= t1[2] <= 62,
          f"tenant1 queue times {t1} (expected ~0, ~0, ~60 on a 5-cpu node), tenant2 "
          f"{sorted(x for n, x in q if n == 'tenant2')}")


# ---- c: external scheduler in cosim ------------------------------------------------------
def makespan_of(out):
    rows = read_csv(os.path.join(out, "jobs.csv"))
    done = [r for r in rows if r.get("final_state") == "COMPLETED_SUCCESSFULLY"]
    ms = max((float(r["finish_time"]) for r in done), default=None)
    return rows, done, ms


def part_c(kubesim, tmp, data):
    platform = os.path.join(data, "batkube", "platform_graphene_16nodes.xml")
    workload = os.path.join(data, "batkube", "spaced_200_delay170.json")
    if not (os.path.exists(platform) and os.path.exists(workload)):
        check("c: Batkube data present", False, f"{platform}, {workload}")
        return
    figures = []
    for run in (1, 2):
        srv = Server(kubesim, tmp, f"c-run{run}", ["--platform", platform, "--workload", workload,
                                                    "--clock", "cosim", "--builtin-scheduler", "off"])
        if not check(f"c{run}: server up", srv.up, f"kubeconfig after {srv.startup:.2f} s; "
                     f"{short(srv.stderr())}"):
            srv.kill()
            return
        t = time.monotonic()
        sched = subprocess.Popen([PY, os.path.join(HERE, "external_scheduler.py"),
                                  "--kubeconfig", srv.kubeconfig, "--max-seconds", "25"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The server ends by itself once every job has finished; give up 5 s after the
        # scheduler has (it stops when the server's port closes, or after 25 s).
        rc = None
        sched_end = None
        while rc is None and time.monotonic() - t < 30:
            rc = srv.wait(0.1)
            if sched_end is None and sched.poll() is not None:
                sched_end = time.monotonic()
            if rc is None and sched_end is not None and time.monotonic() - sched_end > 5:
                note(f"server still running 5 s after the scheduler ended "
                     f"({time.monotonic() - t:.1f} s wall)")
                break
        try:
            sout, serr = sched.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            sched.kill()
            sout, serr = sched.communicate()
        wall = time.monotonic() - t
        if rc is None:
            srv.stop(5)
            srv.kill()
        try:
            stats = json.loads(sout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            stats = {}
        check(f"c{run}: server ended by itself with status 0", rc == 0,
              f"status {rc} after {wall:.2f} s wall; scheduler {stats} {short(serr, 600)}")
        serving, last = final_line_ok(srv)
        note(f"server's last line: {last!r}")
        if not os.path.exists(os.path.join(srv.out, "jobs.csv")):
            check(f"c{run}: jobs.csv written", False, srv.out)
            return
        rows, done, ms = makespan_of(srv.out)
        # The summary says who bound the pods, as pods.csv and the scheduler's own count do
        # (it once read "0 scheduling attempts").
        bound = sum(1 for r in read_csv(os.path.join(srv.out, "pods.csv")) if r.get("scheduled"))
        said = re.search(r"scheduling attempts: 0 by kubesim's schedulers; (\d+) pod\(s\) bound through the API",
                         srv.stdout())
        check(f"c{run}: the summary's bound pods agree with pods.csv and the scheduler",
              said is not None and int(said.group(1)) == bound == stats.get("bindings"),
              f"summary {said.group(0) if said else short(srv.stdout(), 600)!r}; pods.csv {bound} bound; "
              f"scheduler {stats.get('bindings')} bindings")
        check(f"c{run}: every job completed", len(rows) == 200 and len(done) == 200,
              f"{len(done)} of {len(rows)} rows COMPLETED_SUCCESSFULLY (workload: 200 jobs); "
              f"bindings {stats.get('bindings')}, unschedulable patches "
              f"{stats.get('unschedulable_patches')}")
        figures.append((wall, ms, open(os.path.join(srv.out, "jobs.csv")).read()))
        note(f"run {run}: wall {wall:.2f} s (target < 10 s), makespan {ms} s simulated")
        if rc != 0 or len(done) != 200:
            note("second run skipped: the first did not complete")
            figures.append(figures[-1])
            break
    (w1, m1, j1), (w2, m2, j2) = figures[:2]
    check("c: same makespan on both runs", m1 is not None and m1 == m2,
          f"{m1} vs {m2} (wall {w1:.2f} s and {w2:.2f} s); jobs.csv "
          f"{'byte-identical' if j1 == j2 else 'differs'}")
    # Speed is the benchmark's business (bench/api_bench); here only the figure is shown.
    note(f"c: cosim wall time with the Python scheduler: {w1:.2f} s, {w2:.2f} s")


# ---- d: errors ---------------------------------------------------------------------------
def pod_body(name, cpu="1", scheduler="kubesim-test-nobody", ns="default", **extra):
    b = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
         "spec": {"schedulerName": scheduler, "restartPolicy": "Never",
                  "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep"],
                                  "args": ["3600"],
                                  "resources": {"requests": {"cpu": cpu, "memory": "64Mi"},
                                                "limits": {"cpu": cpu, "memory": "64Mi"}}}]}}
    b.update(extra)
    return b


def part_d(srv, small_history):
    conn = srv.conn()

    def expect_status(name, status, obj, code, reasons, extra=""):
        reasons = (reasons,) if isinstance(reasons, str) else reasons
        ok = (status == code and isinstance(obj, dict) and obj.get("kind") == "Status"
              and obj.get("apiVersion") == "v1" and obj.get("status") == "Failure"
              and obj.get("code") == code and obj.get("reason") in reasons)
        got = ({k: obj.get(k) for k in ("kind", "code", "reason", "message")}
               if isinstance(obj, dict) else short(str(obj)))
        check(f"d: {name}", ok, f"HTTP {status} {got}; expected {code} {'/'.join(reasons)} "
                               f"kind Status{extra}")
        return ok

    def still_serving(after):
        nonlocal conn
        try:
            st, obj, _ = srv.request("GET", "/api/v1/namespaces/default", conn=conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = srv.conn()
            try:
                st, obj, _ = srv.request("GET", "/api/v1/namespaces/default", conn=conn)
            except (OSError, http.client.HTTPException) as e:
                st, obj = f"error {e!r}", None
        check(f"d: serving after {after}", st == 200 and (obj or {}).get("kind") == "Namespace",
              f"GET /api/v1/namespaces/default -> {st}")

    def req(method, path, body=None, ctype="application/json"):
        nonlocal conn
        try:
            return srv.request(method, path, body, ctype=ctype, conn=conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = srv.conn()
            return srv.request(method, path, body, ctype=ctype, conn=conn)

    # 400 malformed JSON
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods", b'{"apiVersion": "v1", "kind": "Pod", "metadata": {')
    expect_status("malformed JSON body -> 400", st, obj, 400, "BadRequest")
    still_serving("400")

    # 404 unknown resource, unknown group, unknown object
    st, obj, _ = req("GET", "/api/v1/namespaces/default/widgets")
    expect_status("unknown resource /api/v1/namespaces/default/widgets -> 404", st, obj, 404, "NotFound")
    st, obj, _ = req("GET", "/apis/example.com/v1/widgets")
    expect_status("unknown group /apis/example.com/v1/widgets -> 404", st, obj, 404, "NotFound")
    st, obj, _ = req("GET", "/api/v1/namespaces/default/pods/no-such-pod")
    ok = expect_status("missing pod -> 404", st, obj, 404, "NotFound")
    if ok:
        d = obj.get("details") or {}
        check("d: 404 details", d.get("name") == "no-such-pod" and d.get("kind") == "pods"
              and obj.get("message") == 'pods "no-such-pod" not found',
              f"details {d}, message {obj.get('message')!r}")
    still_serving("404")

    # 405 method not allowed on a collection
    st, obj, _ = req("PUT", "/api/v1/namespaces/default/pods", pod_body("x"))
    expect_status("PUT on the pods collection -> 405", st, obj, 405, "MethodNotAllowed")
    still_serving("405")

    # 413: a valid pod with a 3 MiB + 1 KiB annotation
    big = pod_body("too-big")
    big["metadata"]["annotations"] = {"kubesim.io/padding": "x" * (3 * 1024 * 1024 + 1024)}
    data = json.dumps(big).encode()
    c = srv.conn()
    try:
        c.request("POST", "/api/v1/namespaces/default/pods", body=data,
                  headers={"Content-Type": "application/json", "Accept": "application/json"})
        r = c.getresponse()
        st, raw = r.status, r.read()
        obj = json.loads(raw) if raw else None
    except (OSError, http.client.HTTPException, ValueError) as e:
        st, obj = f"error {e!r}", None
    c.close()
    expect_status(f"body of {len(data)} bytes -> 413", st, obj, 413, "RequestEntityTooLarge",
                  " (limit 3 MiB)")
    st2, _, _ = req("GET", "/api/v1/namespaces/default/pods/too-big")
    check("d: oversized pod not stored", st2 == 404, f"GET pods/too-big -> {st2}")
    still_serving("413")

    # 415 unsupported patch type
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods", pod_body("conflict"))
    check("d: create pod for the update tests", st == 201, f"HTTP {st}")
    st, obj, _ = req("PATCH", "/api/v1/namespaces/default/pods/conflict", b"metadata: {}",
                     ctype="text/plain")
    expect_status("PATCH with Content-Type text/plain -> 415", st, obj, 415, "UnsupportedMediaType")
    still_serving("415")

    # 409 PUT with a stale resourceVersion
    st, pod, _ = req("GET", "/api/v1/namespaces/default/pods/conflict")
    rv1 = (pod or {}).get("metadata", {}).get("resourceVersion")
    pod["metadata"].setdefault("labels", {})["step"] = "one"
    st, obj, _ = req("PUT", "/api/v1/namespaces/default/pods/conflict", pod)
    rv2 = (obj or {}).get("metadata", {}).get("resourceVersion") if st == 200 else None
    check("d: PUT with the current resourceVersion -> 200", st == 200 and rv2 and rv2 != rv1
          and obj["metadata"].get("labels", {}).get("step") == "one",
          f"HTTP {st}, resourceVersion {rv1} -> {rv2}")
    pod["metadata"]["labels"]["step"] = "two"  # still carries rv1
    st, obj, _ = req("PUT", "/api/v1/namespaces/default/pods/conflict", pod)
    expect_status(f"PUT with stale resourceVersion {rv1} -> 409", st, obj, 409, "Conflict")
    if isinstance(obj, dict):
        check("d: 409 message", "the object has been modified" in (obj.get("message") or ""),
              f"{obj.get('message')!r}")
    st, obj, _ = req("GET", "/api/v1/namespaces/default/pods/conflict")
    check("d: stale PUT not applied", st == 200 and obj["metadata"]["labels"].get("step") == "one",
          f"label step = {(obj or {}).get('metadata', {}).get('labels', {}).get('step')!r}")
    still_serving("409")

    # 403 quota: a Job is admitted but its pod is not; a bare pod gets the quota's 403
    st, _, _ = req("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": "quota-test"}})
    st_q, _, _ = req("POST", "/api/v1/namespaces/quota-test/resourcequotas",
                     {"apiVersion": "v1", "kind": "ResourceQuota",
                      "metadata": {"name": "small", "namespace": "quota-test"},
                      "spec": {"hard": {"requests.cpu": "1", "limits.cpu": "1", "pods": "10"}}})
    check("d: create namespace and ResourceQuota", st == 201 and st_q == 201,
          f"namespace {st}, resourcequota {st_q}")
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "too-big", "namespace": "quota-test"},
           "spec": {"template": {"spec": pod_body("t", cpu="2")["spec"]}}}
    job["spec"]["template"]["spec"]["schedulerName"] = "default-scheduler"
    st, obj, _ = req("POST", "/apis/batch/v1/namespaces/quota-test/jobs", job)
    check("d: Job over the quota is created (201)", st == 201, f"HTTP {st}")
    time.sleep(0.5)
    st, obj, _ = req("GET", "/api/v1/namespaces/quota-test/pods")
    n = len((obj or {}).get("items", [])) if st == 200 else None
    check("d: the quota refuses the Job's pod", n == 0, f"{n} pods in quota-test (expected 0)")
    st, obj, _ = req("POST", "/api/v1/namespaces/quota-test/pods", pod_body("bare", cpu="2", ns="quota-test"))
    msg = (obj or {}).get("message", "") if isinstance(obj, dict) else ""
    expect_status("bare pod over the quota -> 403", st, obj, 403, "Forbidden")
    check("d: 403 quota message", msg.startswith('pods "bare" is forbidden: exceeded quota: small')
          and "requested: limits.cpu=2,requests.cpu=2" in msg and "limited: limits.cpu=1,requests.cpu=1" in msg,
          f"{msg!r}")
    still_serving("403")

    # 422 invalid objects
    bad = pod_body("no-containers")
    bad["spec"]["containers"] = []
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods", bad)
    expect_status("pod without containers -> 422", st, obj, 422, "Invalid")
    if isinstance(obj, dict) and obj.get("code") == 422:
        causes = (obj.get("details") or {}).get("causes") or []
        note(f"422 causes: {causes} (kubesim names the field in the message only)")
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods", pod_body("Bad_Name"))
    expect_status("pod named Bad_Name -> 422", st, obj, 422, "Invalid")
    still_serving("422")

    # POST /api/v1/namespaces/NS/bindings (CoreV1Api.create_namespaced_binding), the
    # collection form of the binding that kube-apiserver also serves
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods", pod_body("bind-me"))
    try:
        from kubernetes import client as kclient, config as kconfig
        api = kclient.CoreV1Api(kconfig.new_client_from_config(srv.kubeconfig))
        body = kclient.V1Binding(metadata=kclient.V1ObjectMeta(name="bind-me", namespace="default"),
                                 target=kclient.V1ObjectReference(kind="Node", name="small-0"))
        resp = api.create_namespaced_binding("default", body, _preload_content=False)
        bst, braw = resp.status, resp.data
    except Exception as e:  # ApiException carries the status
        bst, braw = getattr(e, "status", repr(e)), getattr(e, "body", "")
    st, obj, _ = req("GET", "/api/v1/namespaces/default/pods/bind-me")
    node = (obj or {}).get("spec", {}).get("nodeName") if st == 200 else None
    check("d: CoreV1Api.create_namespaced_binding (POST .../namespaces/default/bindings)",
          bst == 201 and node == "small-0", f"HTTP {bst} {short(str(braw), 200)}; nodeName {node!r}")

    # A binding to a node that does not exist: kube-apiserver accepts it (201; the pod
    # garbage collector deletes the pod later); a second binding is a 409
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods", pod_body("bind-nowhere"))
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bind-nowhere"},
               "target": {"kind": "Node", "name": "no-such-node"}}
    bst, bobj, _ = req("POST", "/api/v1/namespaces/default/pods/bind-nowhere/binding", binding)
    st, obj, _ = req("GET", "/api/v1/namespaces/default/pods/bind-nowhere")
    node = (obj or {}).get("spec", {}).get("nodeName") if st == 200 else None
    check("d: binding to a missing node -> 201, spec.nodeName set", bst == 201 and node == "no-such-node",
          f"HTTP {bst} {bobj}; nodeName {node!r}")
    binding["target"]["name"] = "small-0"
    st, obj, _ = req("POST", "/api/v1/namespaces/default/pods/bind-nowhere/binding", binding)
    expect_status("second binding of a pod bound to a missing node -> 409", st, obj, 409, "Conflict")

    # 410: watch from a resourceVersion older than the server keeps
    expired = None
    for attempt in range(3 if small_history else 1):
        st, obj, raw = watch_once(srv, "/api/v1/pods?watch=true&resourceVersion=1&timeoutSeconds=2")
        expired = (st, obj)
        if (st == 410) or (isinstance(obj, dict) and obj.get("type") == "ERROR"):
            break
        if small_history and attempt < 2:
            churn(srv, 300)  # make history so that rv 1 falls out of it
    if not small_history:
        note("serve has no option for a small watch history (--watch-cache-...): the default "
             "keeps 200,000 events, too many to churn through here")
    st, obj = expired
    if isinstance(obj, dict) and obj.get("type") == "ERROR":
        note("410 came as an ERROR watch event in a 200 stream (as kube-apiserver does)")
        obj = obj.get("object")
        st = obj.get("code") if isinstance(obj, dict) else st
    expect_status("watch from resourceVersion=1 -> 410", st, obj, 410, ("Expired", "Gone"))
    still_serving("410")
    conn.close()


def watch_once(srv, path):
    """Opens a watch and returns (HTTP status, first event or Status, raw)."""
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    c.request("GET", path, headers={"Accept": "application/json"})
    r = c.getresponse()
    if r.status != 200:
        raw = r.read()
        c.close()
        try:
            return r.status, json.loads(raw), raw
        except ValueError:
            return r.status, raw.decode(errors="replace"), raw
    # chunked: read until the first complete line
    buf = b""
    deadline = time.monotonic() + 5
    while b"\n" not in buf and time.monotonic() < deadline:
        chunk = r.read1(65536) if hasattr(r, "read1") else r.read(1)
        if not chunk:
            break
        buf += chunk
    c.close()
    first = buf.split(b"\n", 1)[0]
    try:
        return 200, json.loads(first), buf
    except ValueError:
        return 200, first.decode(errors="replace"), buf


def churn(srv, n, conns=4):
    """n updates of ConfigMaps on `conns` connections: history that pushes old
    resourceVersions out of the server's watch history."""
    def worker(k):
        c = srv.conn()
        srv.request("POST", "/api/v1/namespaces/default/configmaps",
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"churn-{k}"},
                     "data": {"i": "0"}}, conn=c)
        for i in range(n // conns):
            srv.request("PATCH", f"/api/v1/namespaces/default/configmaps/churn-{k}",
                        {"data": {"i": str(i)}}, ctype="application/merge-patch+json", conn=c)
        c.close()
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


# ---- main ----------------------------------------------------------------------------------
def spec_mean(spec):
    kind, *args = spec.split(":")
    a = [float(x) for x in args]
    return {"fixed": lambda: a[0], "uniform": lambda: (a[0] + a[1]) / 2, "normal": lambda: a[0],
            "lognormal": lambda: math.exp(a[0] + a[1] ** 2 / 2), "exponential": lambda: a[0]}[kind]()


CALIBRATE_MODEL = {"watchDelay": "normal:1:0.02", "podStartup": "normal:2:0.3",
                   "imagePull": "lognormal:0.3:0.4", "containerCreate": "uniform:1:2",
                   "containerStart": "normal:1.5:0.3"}


def part_e(kubesim, tmp):
    """kubesim calibrate against kubesim serve: 400 pods simulated with known latencies in
    cosim; the served Pods and Events calibrated back; every mean within 5 %. The creation
    and kubelet timestamps have whole seconds (metav1.Time): a mean over 400 pods then carries
    about +-0.015 s of truncation noise, so the known latencies are of a second or more; and
    a watch stream stays in order, so a watch delay whose spread is not small against the gaps
    between pod creations is stretched (calibrate.hpp): its spread is kept small here."""
    d = os.path.join(tmp, "e")
    os.makedirs(d, exist_ok=True)
    cluster, workload, model = (os.path.join(d, n) for n in ("cluster.yaml", "w.json", "model.yaml"))
    with open(cluster, "w") as f:
        f.write("nodeGroups:\n  - name: worker\n    count: 110\n    allocatable: {cpu: \"4\", memory: 16Gi}\n")
    rng = random.Random(11)
    jobs = [{"id": str(i + 1), "subtime": round(rng.uniform(0, 60), 6), "walltime": -1, "res": 1,
             "profile": "delay"} for i in range(400)]
    with open(workload, "w") as f:
        json.dump({"nb_res": 440, "jobs": jobs, "profiles": {"delay": {"type": "delay", "delay": 120}}}, f)
    with open(model, "w") as f:
        f.writelines(f"{k}: {v}\n" for k, v in CALIBRATE_MODEL.items())
    srv = Server(kubesim, tmp, "e-serve", ["--cluster", cluster, "--workload", workload, "--model", model,
                                           "--clock", "cosim", "--keep-serving"])
    try:
        if not check("e: server up", srv.up, short(srv.stderr())):
            return
        deadline = time.monotonic() + 120
        done = 0
        while time.monotonic() < deadline:
            _, pods, _ = srv.request("GET", "/api/v1/namespaces/default/pods")
            done = sum(1 for p in pods["items"] if p["status"].get("phase") == "Succeeded")
            if done == 400:
                break
            time.sleep(0.5)
        if not check("e: the 400 pods ran", done == 400, f"{done} succeeded"):
            return
        _, events, _ = srv.request("GET", "/apis/events.k8s.io/v1/namespaces/default/events")
        reasons = sorted({e["reason"] for e in events["items"]})
        check("e: Scheduled, Pulling, Pulled, Created, Started Events",
              reasons == ["Created", "Pulled", "Pulling", "Scheduled", "Started"] and len(events["items"]) == 2000,
              f"{len(events['items'])} events, reasons {reasons}")
        out = os.path.join(d, "fitted.yaml")
        r = subprocess.run([kubesim, "calibrate", "--kubeconfig", srv.kubeconfig, "-o", out,
                            "--report", os.path.join(d, "fitted.html")], capture_output=True, text=True)
        if not check("e: calibrate --kubeconfig", r.returncode == 0, short(r.stderr)):
            return
        fitted = yaml.safe_load(open(out))
        for key, spec in CALIBRATE_MODEL.items():
            truth, got = spec_mean(spec), spec_mean(str(fitted.get(key, "fixed:0")))
            check(f"e: calibrate recovers {key}'s mean within 5 %", abs(got - truth) <= 0.05 * truth,
                  f"fitted {fitted.get(key)} (mean {got:.3f} s), simulated {spec} (mean {truth:.3f} s)")
    finally:
        srv.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kubesim")
    ap.add_argument("--only", default="a,b,c,d,e", help="comma-separated parts (a,b,c,d,e)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--data", default=os.path.join(REPO, "data"), help="the shipped data folder")
    args = ap.parse_args()
    kubesim = os.path.abspath(args.kubesim)
    parts = set(args.only.split(","))
    tmp = tempfile.mkdtemp(prefix="kubesim-api-")
    t0 = time.monotonic()
    servers = []
    try:
        if parts & {"a", "d"}:
            cluster = os.path.join(tmp, "cluster.yaml")
            with open(cluster, "w") as f:
                f.write(CLUSTER_YAML)
            extra = []
            help_text = subprocess.run([kubesim, "serve", "--help"], capture_output=True,
                                       text=True).stdout
            m = re.search(r"(--watch-(?:cache|log|history)[-a-z]*)", help_text)
            if m:  # a small watch history, so that the 410 check needs little churn
                extra = [m.group(1), "200"]
            srv = Server(kubesim, tmp, "a", ["--cluster", cluster, "--clock", "realtime=10", *extra])
            servers.append(srv)
            ta = time.monotonic()
            if check("a: server up", srv.up, f"{srv.describe()}: kubeconfig after "
                     f"{srv.startup:.2f} s; {short(srv.stderr())}"):
                if "a" in parts:
                    part_a(srv, tmp)
                if "d" in parts:
                    part_d(srv, small_history=bool(extra))
                finish(srv, "a")
                note(f"parts {'+'.join(sorted(parts & {'a', 'd'}))}: {time.monotonic() - ta:.1f} s wall")
                if "a" in parts and os.path.exists(os.path.join(srv.out, "pods.csv")):
                    rows = read_csv(os.path.join(srv.out, "pods.csv"))
                    check("a: pods.csv holds the kubectl Job's pod",
                          any("sleep5-" in " ".join(r.values()) for r in rows),
                          f"{len(rows)} rows")
        if "b" in parts:
            cluster = os.path.join(tmp, "study-cluster.yaml")
            with open(cluster, "w") as f:
                f.write(STUDY_CLUSTER)
            srv = Server(kubesim, tmp, "b", ["--cluster", cluster, "--clock", "realtime=40",
                                              "--model", "ideal"])
            servers.append(srv)
            if check("b: server up", srv.up, f"{srv.describe()}: kubeconfig after "
                     f"{srv.startup:.2f} s; {short(srv.stderr())}"):
                pods = part_b(srv, tmp)
                finish(srv, "b")
                if pods:
                    part_b_compare(srv, pods)
        if "c" in parts:
            tc = time.monotonic()
            part_c(kubesim, tmp, args.data)
            note(f"part c: {time.monotonic() - tc:.1f} s wall")
        if "e" in parts:
            te = time.monotonic()
            part_e(kubesim, tmp)
            note(f"part e: {time.monotonic() - te:.1f} s wall")
    finally:
        for s in servers:
            s.kill()
    print(f"{passes} passed, {len(failures)} failed in {time.monotonic() - t0:.1f} s"
          + (f": {', '.join(failures)}" if failures else ""), flush=True)
    return finish_run(tmp, args.keep)


def finish_run(tmp, keep):
    """The exit status of a test run: its outputs in `tmp` are kept when asked or on failure."""
    if keep or failures:
        print(f"outputs kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
