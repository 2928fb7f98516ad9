#!/usr/bin/python3
"""The built-in Kueue model against the real Kueue v0.9.5 manager on simulated time (issue 27).

Usage: kueue_oracle.py KUBESIM KUBESIM_TIMESHIM PEERS_DIR WORK_DIR [--case NAME] [--runs N]
                       [--require-identical]
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository. Skips (exit 0,
one line) when the Kueue manager or kube-scheduler v1.26.7 is absent from PEERS_DIR; unpacks
them into WORK_DIR once.

A case is a scenario and Kueue's objects (ClusterQueues, LocalQueues, ResourceFlavors):
  builtin: `kubesim run --scheduler kueue --scheduler-config OBJECTS`;
  real:    `kubesim serve --clock cosim --scheduler kueue --builtin-controllers off
            --builtin-scheduler off --apply CRDS --apply OBJECTS` with the unmodified manager
           and the real kube-scheduler under one kubesim-timeshim (`/bin/sh -c "kube-scheduler
           ... & exec manager ..."`: the shim follows forks). The kueue setup creates the
           Jobs suspended and labelled kueue.x-k8s.io/queue-name (what Kueue's Job webhook
           would do: the manager serves its webhooks but serve calls none), the manager creates
           a Workload per Job, admits it and unsuspends the Job; the serve's Job controller
           creates the pods; kube-scheduler binds them.
Checks per case: every job ends successfully under the binaries, which then shut down on
serve's SIGTERM by themselves; the admissions, in order, as
(job, ClusterQueue, flavors), are the same on both sides and each admission's time (the first
pod's creation, the same measure on both sides) within 1 s; the binaries' runs admit in the
same order; their speed over real time is printed. Whether the runs' jobs.csv are byte-identical
is printed with the first differing row, and checked with --require-identical (ctest passes
it; docs/kueue.md, "Byte-identical runs"). serve runs with --cosim-write-gate all (each request of the
binaries acts alone, in a fixed order, while they are blocked; docs/evidence/cosim.md). The binary's admissions come
from its log at --zap-log-level=2 ("Workload successfully admitted and assigned flavors",
pkg/scheduler/scheduler.go), the model's from pods.csv (a Job's pods are created once the
model has admitted and unsuspended it; one flavor per case, so the flavor is the case's).
Prints PASS/FAIL lines; exit 1 on any failure.
"""
import argparse
import csv
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from checks import check, failures  # noqa: E402
sys.path.insert(0, HERE)
from real_scheduler import first_difference, peers_dir, unpack_peer  # noqa: E402

MANAGER = "kueue/kueue-manager-v0.9.5-linux-amd64.xz"
SCHEDULER = "kube-scheduler-v1.26.7.xz"
CASE_DIR = os.path.join(HERE, "kueue-case")
# name: (scenario, Kueue objects). "tenants": two ClusterQueues of 8 cores in a cohort, one
# tenant's burst borrows the other's idle half; "e3-eighth": the multi-tenant study's E3 at
# 1/8 of its jobs and cluster with the shipped examples/kueue/tenants.yaml's queues at 1/8.
CASES = {
    "tenants": (os.path.join(CASE_DIR, "kueue-tenants.yaml"), os.path.join(CASE_DIR, "kueue-objects.yaml")),
    "e3-eighth": (os.path.join(CASE_DIR, "e3-eighth.yaml"), os.path.join(CASE_DIR, "e3-eighth-queues.yaml")),
}


def manager_config(work, objects):
    """kueue-manager-config.yaml with a free webhook port, a self-signed certificate (the
    webhook server must start; nothing calls it), and the client rate limits of the objects'
    Configuration document when it has one (the built-in model reads the same)."""
    certs = os.path.join(work, "certs")
    if not os.path.exists(os.path.join(certs, "tls.crt")):
        os.makedirs(certs, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj",
                        "/CN=kueue-webhook-service.kueue-system.svc", "-keyout", os.path.join(certs, "tls.key"),
                        "-out", os.path.join(certs, "tls.crt")], check=True, capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    text = open(os.path.join(CASE_DIR, "kueue-manager-config.yaml")).read()
    text = text.replace("WEBHOOK_PORT", str(port)).replace("CERT_DIR", certs)
    for doc in split_docs(objects):
        if "config.kueue.x-k8s.io" in doc and "clientConnection" in doc:
            line = next(x for x in doc.splitlines() if x.startswith("clientConnection:"))
            text = text.replace("clientConnection:\n  qps: 50\n  burst: 100", line)
    path = os.path.join(work, "kueue-manager-config-%d.yaml" % port)
    with open(path, "w") as f:
        f.write(text)
    return path


def split_docs(path):
    return [d for d in open(path).read().split("\n---\n") if d.strip()]


def api_objects(objects, work):
    """The objects file without its Configuration document (not an API object)."""
    path = os.path.join(work, "api-" + os.path.basename(objects))
    with open(path, "w") as f:
        f.write("\n---\n".join(d for d in split_docs(objects) if "config.kueue.x-k8s.io" not in d) + "\n")
    return path


def run_binaries(kubesim, timeshim, bins, peers, scenario, objects, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    config = manager_config(out, objects)
    # serve splits --scheduler-command on blanks: ${IFS} keeps the shell's command one word.
    words = [bins["kube-scheduler"], "--kubeconfig", "kubesim.kubeconfig", "--leader-elect=false",
             "--kube-api-content-type=application/json", "--secure-port=0", "&exec", bins["kueue-manager"],
             "--config", config, "--kubeconfig", "kubesim.kubeconfig", "--feature-gates=VisibilityOnDemand=false",
             "--zap-log-level=2"]
    command = "/bin/sh -c " + "${IFS}".join(words).replace("${IFS}&", "&")
    t0 = time.monotonic()
    r = subprocess.run([kubesim, "serve", "--cosim-write-gate", "all", "--scenario", scenario, "--model", "ideal",
                        "--scheduler", "kueue",
                        "--scheduler-config", objects, "--builtin-controllers", "off", "--builtin-scheduler", "off",
                        "--clock", "cosim", "--port", "0", "--apply", os.path.join(peers, "kueue", "crds"),
                        "--apply", api_objects(objects, out), "--out", "out", "--kubeconfig", "kubesim.kubeconfig",
                        "--scheduler-log", "binaries.log", "--timeshim", timeshim, "--scheduler-command", command],
                       cwd=out, capture_output=True, text=True, timeout=600)
    return r, time.monotonic() - t0


def jobs(path):
    return list(csv.DictReader(open(path)))


def admissions(pods_csv, cq_of_ns, flavor):
    """[(rank key, time)] of every admission in order: a Job's pod is created once Kueue has
    admitted and unsuspended it (one pod per Job here, none fails), so each pod creation is
    one admission, re-admissions after a preemption included; the same measure on both sides.
    The rank key is what Kueue orders by and what the admission takes: the Job's creation
    second (a Workload's creationTimestamp has whole seconds; equal keys are admitted in the
    heap's arrival order, pkg/queue/cluster_queue.go, which the binary does not fix), its
    ClusterQueue, the flavor and the requests."""
    rows = list(csv.DictReader(open(pods_csv)))
    order = sorted(range(len(rows)), key=lambda i: (float(rows[i]["created"]), i))
    out = []
    for i in order:
        r = rows[i]
        out.append(((r["job_id"].split("/")[0], cq_of_ns[r["namespace"]], flavor, r["cpu_request_milli"],
                     r["memory_request_bytes"]), float(r["created"]), r["job_id"]))
    return out


def created_at(scenario, job_ids):
    """job id -> when the scenario creates its Job: a tenant's burst k creates NS-bK-I at its
    start, stream k creates NS-sK-I at start + I x interval (the scenario reader's names)."""
    tenants = {t["namespace"]: t for t in yaml.safe_load(open(scenario))["tenants"]}
    out = {}
    for job in job_ids:
        ns, name = job.split("/")
        kind, k, i = re.fullmatch(r".*-([bs])(\d+)-(\d+)", name).groups()
        if kind == "b":
            out[job] = float(tenants[ns]["bursts"][int(k)][0])
        else:
            stream = tenants[ns]["streams"][int(k)]
            out[job] = float(stream["start"] + int(i) * stream["interval"])
    return out


def ranked(adm, submitted):
    """The admissions as (creation second, ClusterQueue, flavor, cpu, memory) and times."""
    return [((int(submitted[job]),) + key[1:], t) for key, t, job in adm]


def binary_log_admissions(log_path):
    """[(job id, ClusterQueue, flavors)] in the manager's admission order, from its log at
    --zap-log-level=2 ("Workload successfully admitted and assigned flavors", scheduler.go)."""
    out = []
    for line in open(log_path, errors="replace"):
        if '"Workload successfully admitted and assigned flavors"' not in line:
            continue
        e = json.loads(line)
        wl = e["workload"]
        # jobframework GetWorkloadNameForOwnerWithGVK: "job-<name>-<5 hex of a hash>".
        job = wl["namespace"] + "/" + wl["name"][len("job-"):-6]
        flavors = sorted({f for a in e["assignments"] for f in a["flavors"].values()})
        out.append((job, e["clusterQueue"]["name"], ",".join(flavors)))
    return out


def queues_of(objects):
    """namespace -> ClusterQueue (its first LocalQueue's, as the kueue setup labels), and the
    one ResourceFlavor."""
    cq_of_ns, flavors = {}, []
    for doc in yaml.safe_load_all(open(objects)):
        if doc and doc.get("kind") == "ResourceFlavor":
            flavors.append(doc["metadata"]["name"])
        if doc and doc.get("kind") == "LocalQueue":
            cq_of_ns.setdefault(doc["metadata"]["namespace"], doc["spec"]["clusterQueue"])
    if len(flavors) != 1:
        raise SystemExit(f"{objects}: the oracle compares cases of one ResourceFlavor, found {len(flavors)}")
    return cq_of_ns, flavors[0]


def run_case(name, args, bins, peers):
    scenario, objects = CASES[name]
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    builtin = os.path.join(work, "builtin")
    shutil.rmtree(builtin, ignore_errors=True)
    subprocess.run([args.kubesim, "run", "--scenario", scenario, "--model", "ideal", "--scheduler", "kueue",
                    "--scheduler-config", objects, "--out", builtin, "--quiet"], check=True)
    cq_of_ns, flavor = queues_of(objects)
    submitted = created_at(scenario, [r["job_id"] for r in jobs(os.path.join(builtin, "jobs.csv"))])
    model = ranked(admissions(os.path.join(builtin, "pods.csv"), cq_of_ns, flavor), submitted)
    outs = [os.path.join(work, f"real-{i}") for i in range(args.runs)]
    with ThreadPoolExecutor(len(outs)) as pool:
        results = list(pool.map(lambda o: run_binaries(args.kubesim, args.timeshim, bins, peers, scenario, objects, o),
                                outs))
    texts, sequences = [], []
    for i, (out, (r, wall)) in enumerate(zip(outs, results)):
        jobs_csv = os.path.join(out, "out", "jobs.csv")
        rows = jobs(jobs_csv) if r.returncode == 0 and os.path.exists(jobs_csv) else []
        done = sum(1 for row in rows if row["final_state"] == "COMPLETED_SUCCESSFULLY")
        simulated = max((float(row["finish_time"]) for row in rows if row["finish_time"]), default=0.0)
        check(f"{name}: the Kueue manager and kube-scheduler on simulated time (run {i + 1})",
              r.returncode == 0 and rows and done == len(rows) == len(submitted),
              f"exit {r.returncode}; {done}/{len(rows)} jobs finished; {simulated:.1f} s simulated in {wall:.1f} s "
              f"wall ({simulated / wall if wall else 0:.1f}x real time); {r.stderr.strip()[-300:]}")
        if not rows:
            continue
        texts.append(open(jobs_csv, "rb").read())
        real = ranked(admissions(os.path.join(out, "out", "pods.csv"), cq_of_ns, flavor), submitted)
        sequences.append([k for k, _ in real])
        logged = binary_log_admissions(os.path.join(out, "binaries.log"))
        check(f"{name}: run {i + 1}: every admission logged by the manager, to its namespace's ClusterQueue, "
              f"flavor {flavor}", len(logged) == len(real) and all(
                  cq == cq_of_ns[job.split("/")[0]] and f == flavor for job, cq, f in logged),
              f"{len(logged)} logged, {len(real)} pod creations")
        # Both binaries shut down by themselves on serve's SIGTERM, on their own simulated clock
        # (ShimmedScheduler::drive_shutdown), instead of being killed after 5 s: the manager's
        # last step (controller-runtime pkg/manager/internal.go) and kube-scheduler's end
        # without leader election (cmd/kube-scheduler/app/server.go).
        log = open(os.path.join(out, "binaries.log"), errors="replace").read()
        ends = ["Wait completed, proceeding to shutdown the manager", "finished without leader elect"]
        check(f"{name}: run {i + 1}: the manager and kube-scheduler shut down on SIGTERM", all(e in log for e in ends),
              ", ".join(f"{e!r} {'logged' if e in log else 'missing'}" for e in ends))
        diff = next((k for k, (a, b) in enumerate(zip(real, model)) if a[0] != b[0]), None)
        check(f"{name}: run {i + 1}: admission order of the manager and of the built-in model alike",
              len(real) == len(model) and diff is None,
              f"{len(real)} and {len(model)} admissions" + (
                  "" if diff is None else f"; first difference at #{diff + 1}: binary {real[diff]}, model {model[diff]}"))
        worst = max((abs(a[1] - b[1]), k) for k, (a, b) in enumerate(zip(real, model)))
        check(f"{name}: run {i + 1}: admission times within 1 s", worst[0] <= 1.0,
              f"largest difference {worst[0]:.3f} s (admission #{worst[1] + 1}) over {len(model)}")
    if len(sequences) > 1:
        check(f"{name}: {len(sequences)} runs of the binaries admit in the same order", len(
            {tuple(x) for x in sequences}) == 1, f"{len(sequences[0])} admissions")
        identical = len(set(texts)) == 1
        first = "" if identical else first_difference(texts)
        if args.require_identical:
            check(f"{name}: the {len(texts)} runs' jobs.csv byte-identical", identical, first)
        else:
            # By hand without --require-identical (e.g. a different shim): report only.
            print(f"INFO {name}: jobs.csv of the {len(texts)} runs {'identical' if identical else 'differ'}"
                  + (f" ({first})" if first else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("timeshim")
    ap.add_argument("peers")
    ap.add_argument("work")
    ap.add_argument("--case", action="append", choices=sorted(CASES))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--require-identical", action="store_true",
                    help="fail unless every run of the binaries gives a byte-identical jobs.csv")
    args = ap.parse_args()
    args.kubesim, args.timeshim, args.work = (os.path.abspath(p) for p in (args.kubesim, args.timeshim, args.work))
    peers = peers_dir(REPO, args.peers)
    bins = {}
    for packed, name in ((MANAGER, "kueue-manager"), (SCHEDULER, "kube-scheduler")):
        bins[name] = unpack_peer(REPO, peers, packed, args.work, name, "the Kueue oracle")
        if bins[name] is None:
            return 0
    for name in args.case or ["tenants"]:
        run_case(name, args, bins, peers)
    print(f"{'FAIL' if failures else 'PASS'}: the Kueue oracle ({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
