#!/usr/bin/python3
"""kubesim against the real kube-scheduler v1.26.7 (issue 12), for ctest.

Usage: run_peer_tests.py KUBESIM PEERS_DIR WORK_DIR
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository.

Skips (exit 0, one line) when PEERS_DIR/kube-scheduler-v1.26.7.xz is absent (a user's clone
has no ../shared). Otherwise unpacks it into WORK_DIR once and checks:
  a. node choice (node_choice.py): 2 configurations x 12 generated cells x 6 pods;
  b. queue dynamics: the Batkube burst (first 48 jobs) and spaced (first 60 jobs) workloads
     with --model ideal, the real binary in cosim vs the built-in model (`kubesim run`):
     every pod finishes, makespan and mean wait within 1%;
  c. a KubeSchedulerConfiguration profile through `kubesim serve`: the real binary with
     examples/scheduler-config/most-allocated.yaml and the built-in model with the same file
     on a small heterogeneous cluster, same node for every pod (MostAllocated packs).
Prints PASS/FAIL lines; exit 1 on any failure.
"""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import real_scheduler  # noqa: E402
from checks import check, failures  # noqa: E402,F401 (timeshim_real_scheduler imports them here)


def figures(jobs_csv):
    rows = list(csv.DictReader(open(jobs_csv)))
    done = [r for r in rows if r["final_state"] == "COMPLETED_SUCCESSFULLY"]
    waits = [float(r["waiting_time"]) for r in done]
    return len(rows), len(done), max(float(r["finish_time"]) for r in done), sum(waits) / len(waits)


def shortened(src, count, dst):
    d = json.load(open(src))
    d["jobs"] = d["jobs"][:count]
    json.dump(d, open(dst, "w"))
    return dst


def queue_dynamics(kubesim, scheduler, work, label, workload):
    platform = os.path.join(REPO, "data/batkube/platform_graphene_16nodes.xml")
    builtin = os.path.join(work, label, "builtin")
    subprocess.run([kubesim, "run", "--platform", platform, "--workload", workload, "--model", "ideal", "--out", builtin,
                    "--quiet"], check=True)
    status, wall = real_scheduler.run_pair(kubesim, scheduler, os.path.join(work, label, "real"),
                                           ["--platform", platform, "--workload", workload, "--model", "ideal",
                                            "--clock", "cosim", "--builtin-scheduler", "off"], timeout=600)
    if status != 0:
        check(f"queue dynamics, {label}", False, f"kubesim serve exited {status}")
        return
    jobs, done, makespan, mean = figures(os.path.join(work, label, "real", "out", "jobs.csv"))
    _, bdone, bmakespan, bmean = figures(os.path.join(builtin, "jobs.csv"))
    dm, dw = (makespan - bmakespan) / bmakespan * 100, (mean - bmean) / bmean * 100 if bmean else 0.0
    check(f"queue dynamics, {label}", done == jobs == bdone and abs(dm) <= 1 and abs(dw) <= 1,
          f"real binary in cosim: {done}/{jobs} finished, makespan {makespan:.1f} s, mean wait {mean:.2f} s; built-in: "
          f"makespan {bmakespan:.1f} s, mean wait {bmean:.2f} s ({dm:+.2f}%, {dw:+.2f}%); {wall:.1f} s wall")


def profile_through_serve(kubesim, scheduler, work):
    config = os.path.join(REPO, "examples/scheduler-config/most-allocated.yaml")
    d = os.path.join(work, "profile")
    os.makedirs(d, exist_ok=True)
    cluster = os.path.join(d, "cluster.yaml")
    with open(cluster, "w") as f:
        f.write("nodeGroups:\n"
                "  - {name: small, count: 2, allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}\n"
                "  - {name: large, count: 2, allocatable: {cpu: '16', memory: 64Gi, pods: '110'}}\n")
    workload = os.path.join(d, "workload.json")
    jobs = [{"id": str(i + 1), "subtime": 10 * i, "walltime": 100000, "res": 1, "profile": p}
            for i, p in enumerate(["c1", "c2", "c1", "c3", "c2", "c1", "c3", "c1"])]
    profiles = {f"c{k}": {"type": "delay", "delay": 50000, "cpu": str(k), "memory": f"{k}Gi"} for k in (1, 2, 3)}
    json.dump({"nb_res": 1, "jobs": jobs, "profiles": profiles}, open(workload, "w"))
    builtin = os.path.join(d, "builtin")
    subprocess.run([kubesim, "run", "--cluster", cluster, "--workload", workload, "--model", "ideal",
                    "--scheduler-config", config, "--out", builtin, "--quiet"], check=True)
    status, _ = real_scheduler.run_pair(kubesim, scheduler, os.path.join(d, "real"),
                                        ["--cluster", cluster, "--workload", workload, "--model", "ideal",
                                         "--clock", "cosim", "--builtin-scheduler", "off"], configs=[config], timeout=300)

    def placement(out):
        # Identical nodes are interchangeable (their tie is broken at random): name each node
        # by its group and the order in which the group's nodes were first used.
        seen = {}
        names = []
        for r in csv.DictReader(open(os.path.join(out, "pods.csv"))):
            group = r["node"].rsplit("-", 1)[0]
            if r["node"] not in seen:
                seen[r["node"]] = f"{group}#{sum(1 for n in seen if n.rsplit('-', 1)[0] == group)}"
            names.append(seen[r["node"]] if r["node"] else "")
        return names
    real = placement(os.path.join(d, "real", "out")) if status == 0 else []
    mine = placement(builtin)
    check("--scheduler-config profile through serve", status == 0 and real == mine and all(real),
          f"most-allocated.yaml, {len(mine)} pods (nodes of a group numbered by first use): real binary {real}, built-in {mine}")


def main():
    kubesim, peers, work = sys.argv[1:4]
    scheduler = real_scheduler.real_kube_scheduler(REPO, peers, work, "real kube-scheduler tests")
    if scheduler is None:
        return 0
    if subprocess.run([sys.executable, os.path.join(HERE, "node_choice.py"), kubesim, scheduler]).returncode != 0:
        failures.append("node choice")
    queue_dynamics(kubesim, scheduler, work, "burst (48 jobs)",
                   shortened(os.path.join(REPO, "data/batkube/200_delay170.json"), 48, os.path.join(work, "burst48.json")))
    queue_dynamics(kubesim, scheduler, work, "spaced (60 jobs)",
                   shortened(os.path.join(REPO, "data/batkube/spaced_200_delay170.json"), 60, os.path.join(work, "spaced60.json")))
    profile_through_serve(kubesim, scheduler, work)
    print(f"{'FAIL' if failures else 'PASS'}: real kube-scheduler tests ({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
