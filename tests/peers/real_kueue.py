#!/usr/bin/python3
"""The real Kueue v0.9.5 manager on simulated time against the built-in Kueue model (issue 27).

Usage: real_kueue.py KUBESIM KUBESIM_TIMESHIM PEERS_DIR WORK_DIR
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository. Skips (exit 0,
one line) when PEERS_DIR/kueue/kueue-manager-v0.9.5-linux-amd64.xz is absent; unpacks it into
WORK_DIR once.

The case is tests/peers/kueue-case: `kubesim serve --scheduler kueue --builtin-controllers off`
creates the scenario's Jobs suspended and labelled for their tenant's LocalQueue (what Kueue's
Job webhook does), applies Kueue's CRDs and the ClusterQueue/LocalQueue/ResourceFlavor objects
through the API, and runs the unmodified manager under kubesim-timeshim; the built-in
kube-scheduler places the pods the Job controller creates once the manager unsuspends a Job.
The same scenario then runs with the built-in Kueue model (`kubesim run --scheduler kueue`).
Checks: every job finishes with the manager, which created a Workload per Job and admitted
them all; the order in which the Jobs started (their admission order) and every job's start
time agree with the built-in model's (start times within 1 s: the manager's requests land
1 us after the instant it acted at, plus its reconcile chains); two runs of the binary give
byte-identical jobs.csv.
"""
import csv
import os
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASE = os.path.join(HERE, "kueue-case")
sys.path.insert(0, os.path.dirname(HERE))
from checks import check, failures  # noqa: E402

PACKED = "kueue/kueue-manager-v0.9.5-linux-amd64.xz"
SCENARIO = os.path.join(CASE, "kueue-tenants.yaml")
OBJECTS = os.path.join(CASE, "kueue-objects.yaml")


def peers_dir(arg):
    return os.environ.get("KUBESIM_PEERS", os.path.join(REPO, "..", "shared", "peers")) if arg == "-" else arg


def unpack(peers, work):
    packed = os.path.join(peers, PACKED)
    if not os.path.exists(packed):
        print(f"SKIP the real Kueue manager: {packed} not found (the oracle binaries live in ../shared/peers)")
        return None
    os.makedirs(work, exist_ok=True)
    binary = os.path.join(work, "kueue-manager")
    if not os.path.exists(binary):
        with open(binary + ".tmp", "wb") as f:
            subprocess.run(["xz", "-dc", packed], stdout=f, check=True)
        os.chmod(binary + ".tmp", 0o755)
        os.replace(binary + ".tmp", binary)
    return binary


def manager_config(work):
    """The case's manager configuration with a free webhook port and a self-signed certificate
    (the webhook server must start; nothing calls it)."""
    certs = os.path.join(work, "certs")
    if not os.path.exists(os.path.join(certs, "tls.crt")):
        os.makedirs(certs, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj",
                        "/CN=kueue-webhook-service.kueue-system.svc", "-keyout", os.path.join(certs, "tls.key"),
                        "-out", os.path.join(certs, "tls.crt")], check=True, capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    text = open(os.path.join(CASE, "kueue-manager-config.yaml")).read()
    path = os.path.join(work, "kueue-manager-config.yaml")
    with open(path, "w") as f:
        f.write(text.replace("WEBHOOK_PORT", str(port)).replace("CERT_DIR", certs))
    return path


def run_binary(kubesim, timeshim, binary, config, peers, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    t0 = time.monotonic()
    r = subprocess.run([kubesim, "serve", "--scenario", SCENARIO, "--model", "ideal", "--scheduler", "kueue",
                        "--scheduler-config", OBJECTS, "--builtin-controllers", "off", "--clock", "cosim",
                        "--port", "0", "--apply", os.path.join(peers, "kueue", "crds"), "--apply", OBJECTS,
                        "--out", "out", "--kubeconfig", "kubesim.kubeconfig", "--scheduler-log", "manager.log",
                        "--timeshim", timeshim, "--scheduler-command",
                        f"{binary} --config {config} --kubeconfig kubesim.kubeconfig --feature-gates=VisibilityOnDemand=false"],
                       cwd=out, capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - t0


def jobs(path):
    return list(csv.DictReader(open(path)))


def start_order(rows):
    return [r["job_id"] for r in sorted(rows, key=lambda r: (float(r["starting_time"] or "inf"), r["job_id"]))]


def main():
    kubesim, timeshim, peers, work = (os.path.abspath(a) if a != "-" else a for a in sys.argv[1:5])
    peers = peers_dir(peers)
    binary = unpack(peers, work)
    if binary is None:
        return 0
    config = manager_config(work)
    builtin = os.path.join(work, "kueue-builtin")
    shutil.rmtree(builtin, ignore_errors=True)
    subprocess.run([kubesim, "run", "--scenario", SCENARIO, "--model", "ideal", "--scheduler", "kueue",
                    "--scheduler-config", OBJECTS, "--out", builtin, "--quiet"], check=True)
    model = jobs(os.path.join(builtin, "jobs.csv"))
    outputs = []
    for name in ("first", "second"):
        out = os.path.join(work, "kueue-" + name)
        r, wall = run_binary(kubesim, timeshim, binary, config, peers, out)
        jobs_csv = os.path.join(out, "out", "jobs.csv")
        rows = jobs(jobs_csv) if r.returncode == 0 else []
        log = open(os.path.join(out, "manager.log"), errors="replace").read() if os.path.exists(
            os.path.join(out, "manager.log")) else ""
        done = sum(1 for row in rows if row["final_state"] == "COMPLETED_SUCCESSFULLY")
        admitted = log.count('"Workload successfully admitted and assigned flavors"')
        makespan = max((float(row["finish_time"]) for row in rows if row["finish_time"]), default=0.0)
        check(f"Kueue manager on simulated time ({name} run)",
              r.returncode == 0 and done == len(rows) == len(model) and admitted == len(model),
              f"exit {r.returncode}; {done}/{len(rows)} jobs finished, {admitted} admissions logged, makespan "
              f"{makespan:.1f} s in {wall:.1f} s wall; {r.stderr.strip()[-300:]}")
        outputs.append(open(jobs_csv, "rb").read() if r.returncode == 0 else name.encode())
        if name == "first" and rows and done == len(rows) == len(model):
            starts = {row["job_id"]: float(row["starting_time"]) for row in rows}
            worst = max(abs(starts[m["job_id"]] - float(m["starting_time"])) for m in model)
            check("admission order: the manager's and the built-in model's alike", start_order(rows) == start_order(model),
                  f"binary {' '.join(start_order(rows))}; model {' '.join(start_order(model))}")
            check("start times: the manager's and the built-in model's within 1 s", worst <= 1.0,
                  f"largest difference {worst:.6f} s over {len(model)} jobs")
    check("Kueue manager twice: identical jobs.csv", outputs[0] == outputs[1],
          f"{len(outputs[0].splitlines())} and {len(outputs[1].splitlines())} lines")
    print(f"{'FAIL' if failures else 'PASS'}: the real Kueue manager ({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
