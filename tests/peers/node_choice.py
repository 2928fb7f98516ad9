#!/usr/bin/python3
"""Differential test: the real kube-scheduler's node choice vs kubesim's built-in model.

Usage: node_choice.py KUBESIM KUBE_SCHEDULER [--cells N] [--pods P] [--seed S] [--keep DIR]

Generates (seeded) a cluster of N independent cells of 2-6 heterogeneous nodes (cpu, memory,
zone and disk labels, NoSchedule / PreferNoSchedule taints) and P pods per cell arriving 10 s
apart and running for good (random requests, tolerations, required and preferred node
affinity, two PriorityClasses); every pod has the nodeSelector of its cell, so cells do not
interact (all scores are per node or normalized over the feasible nodes, which are the
cell's). For each KubeSchedulerConfiguration (LeastAllocated and MostAllocated, both with
percentageOfNodesToScore: 100):
  1. the real binary schedules the pods through `kubesim serve --clock cosim
     --builtin-scheduler off` (profile schedulerName real-scheduler);
  2. `kubesim run --decisions` replays every decision on the same state: for pod i of a cell,
     a mirror cell of the same nodes holds pods 1..i-1 pinned (spec.nodeName) where the real
     binary put them, and the built-in model schedules pod i; the decisions file gives its
     choice and every node tied for the best score.
Checks: where one node has the best score, the real binary chose it; where several tie, the
real choice is among them; where none fits, the real binary bound nothing. Prints one line
per configuration with the counts and exits 1 on any disagreement.
"""
import argparse
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_scheduler  # noqa: E402

CONFIGS = {
    "least-allocated": None,
    "most-allocated": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
}


def scheduler_config(strategy, scheduler_name):
    profile = {"schedulerName": scheduler_name}
    if strategy:
        profile["pluginConfig"] = [{"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}}]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "percentageOfNodesToScore": 100, "profiles": [profile]}


def generate(rng, cells, pods_per_cell):
    """Returns (cells: [[node dict]], pods: [[pod spec dict]])."""
    all_nodes, all_pods = [], []
    for c in range(cells):
        nodes = []
        for i in range(rng.randint(2, 6)):
            node = {"cpu": rng.choice([2, 4, 8, 16]), "memory_gi": rng.choice([4, 8, 16, 32, 64]),
                    "zone": rng.choice(["a", "b"]), "disk": rng.choice(["ssd", "hdd"]), "taints": []}
            r = rng.random()
            if r < 0.2:
                node["taints"].append({"key": "dedicated", "value": "batch", "effect": "NoSchedule"})
            elif r < 0.35:
                node["taints"].append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
            nodes.append(node)
        pods = []
        for i in range(pods_per_cell):
            pod = {"cpu_m": rng.choice([100, 250, 500, 1000, 1500, 2000, 3000]),
                   "memory_mi": rng.choice([128, 512, 1024, 2048, 4096, 8192]),
                   "priority": rng.choice(["low", "high"]), "tolerations": [], "required_zone": None,
                   "preferred": []}
            if rng.random() < 0.4:
                pod["tolerations"].append({"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"})
            if rng.random() < 0.3:
                pod["tolerations"].append({"key": "spot", "operator": "Exists"})
            if rng.random() < 0.3:
                pod["required_zone"] = rng.choice(["a", "b"])
            if rng.random() < 0.5:
                pod["preferred"].append((rng.choice([1, 10, 50]), "disk", rng.choice(["ssd", "hdd"])))
            if rng.random() < 0.3:
                pod["preferred"].append((rng.choice([5, 20]), "zone", rng.choice(["a", "b"])))
            pods.append(pod)
        all_nodes.append(nodes)
        all_pods.append(pods)
    return all_nodes, all_pods


def node_groups(cell_name, nodes):
    groups = []
    for i, n in enumerate(nodes):
        g = {"name": f"{cell_name}-n{i}", "count": 1,
             "allocatable": {"cpu": str(n["cpu"]), "memory": f"{n['memory_gi']}Gi", "pods": "110"},
             "labels": {"cell": cell_name, "zone": n["zone"], "disk": n["disk"]}}
        if n["taints"]:
            g["taints"] = n["taints"]
        groups.append(g)
    return groups


def pod_manifest(name, cell_name, pod, scheduler_name, node_name=None):
    spec = {"schedulerName": scheduler_name, "priorityClassName": pod["priority"], "restartPolicy": "Never",
            "nodeSelector": {"cell": cell_name},
            "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep", "1000000"],
                            "resources": {"requests": {"cpu": f"{pod['cpu_m']}m", "memory": f"{pod['memory_mi']}Mi"}}}]}
    if pod["tolerations"]:
        spec["tolerations"] = pod["tolerations"]
    affinity = {}
    if pod["required_zone"]:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": [pod["required_zone"]]}]}]}
    if pod["preferred"]:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "preference": {"matchExpressions": [{"key": k, "operator": "In", "values": [v]}]}}
            for w, k, v in pod["preferred"]]
    if affinity:
        spec["affinity"] = {"nodeAffinity": affinity}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


PRIORITY_CLASSES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000,
     "preemptionPolicy": "Never"},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10,
     "preemptionPolicy": "Never"},
]


def write_scenario(path, name, groups, jobs, config_path=None):
    sc = {"name": name, "cluster": {"nodeGroups": groups}, "model": "ideal", "manifests": PRIORITY_CLASSES, "jobs": jobs}
    if config_path:
        sc["schedulerConfig"] = config_path
    with open(path, "w") as f:
        yaml.safe_dump(sc, f, sort_keys=False)


def run_config(kubesim, scheduler, work, label, strategy, cells, pods):
    os.makedirs(work, exist_ok=True)
    cell_names = [f"c{c}" for c in range(len(cells))]
    # 1. The real binary.
    groups = [g for c, nodes in enumerate(cells) for g in node_groups(cell_names[c], nodes)]
    jobs = []
    for i in range(len(pods[0])):
        for c in range(len(cells)):
            jobs.append({"at": 10 * (i + 1), "manifest": pod_manifest(f"{cell_names[c]}-p{i}", cell_names[c], pods[c][i], "real-scheduler")})
    real_scenario = os.path.join(work, "real.yaml")
    write_scenario(real_scenario, f"node-choice-{label}", groups, jobs)
    real_config = os.path.join(work, "real-config.yaml")
    with open(real_config, "w") as f:
        yaml.safe_dump(scheduler_config(strategy, "real-scheduler"), f, sort_keys=False)
    status, _ = real_scheduler.run_pair(kubesim, scheduler, os.path.join(work, "real"),
                                        ["--scenario", real_scenario, "--clock", "cosim", "--builtin-scheduler", "off",
                                         "--cosim-grace", "3"],
                                        configs=[real_config], timeout=600)
    if status != 0:
        raise RuntimeError(f"kubesim serve with the real scheduler failed (exit {status}); see {work}/real")
    # Where the real binary bound each pod on its arrival (its first decision; a pod it bound
    # only later, once room was freed, counts as fitting nowhere at arrival).
    real_nodes = {}
    for r in csv.DictReader(open(os.path.join(work, "real", "out", "pods.csv"))):
        if r["node"] and r["scheduled"] == r["created"]:
            real_nodes[r["pod"]] = r["node"]
    # 2. The built-in model on mirror cells.
    groups, jobs = [], []
    for c in range(len(cells)):
        for i in range(len(pods[c])):
            mirror = f"{cell_names[c]}-m{i}"
            groups += node_groups(mirror, cells[c])
            for j in range(i + 1):
                pinned = None
                if j < i:
                    real = real_nodes.get(f"{cell_names[c]}-p{j}", "")
                    if not real:
                        continue  # the real binary bound nothing: nothing occupies the cell
                    pinned = real.replace(f"{cell_names[c]}-n", f"{mirror}-n", 1)
                jobs.append({"at": j + 1, "manifest": pod_manifest(f"{mirror}-p{j}", mirror, pods[c][j], "default-scheduler", pinned)})
    builtin_config = os.path.join(work, "builtin-config.yaml")
    with open(builtin_config, "w") as f:
        yaml.safe_dump(scheduler_config(strategy, "default-scheduler"), f, sort_keys=False)
    builtin_scenario = os.path.join(work, "builtin.yaml")
    write_scenario(builtin_scenario, f"node-choice-{label}-replay", groups, jobs, builtin_config)
    decisions_path = os.path.join(work, "decisions.csv")
    subprocess.run([kubesim, "run", "--scenario", builtin_scenario, "--out", os.path.join(work, "builtin"),
                    "--decisions", decisions_path, "--quiet"], check=True, stderr=subprocess.DEVNULL)
    decisions = {}
    for r in csv.DictReader(open(decisions_path)):
        decisions.setdefault(r["pod"].split("/", 1)[1], r)  # the first decision: on arrival
    # 3. Compare.
    unique = tied = unfit = 0
    problems = []
    for c in range(len(cells)):
        for i in range(len(pods[c])):
            mirror = f"{cell_names[c]}-m{i}"
            d = decisions.get(f"{mirror}-p{i}")
            real = real_nodes.get(f"{cell_names[c]}-p{i}", "")
            if d is None:
                problems.append(f"{cell_names[c]}-p{i}: no built-in decision")
                continue
            best = [n.replace(f"{mirror}-n", f"{cell_names[c]}-n", 1) for n in d["best_nodes"].split()]
            if not best:
                unfit += 1
                if real:
                    problems.append(f"{cell_names[c]}-p{i}: built-in finds no node, real chose {real}")
            elif len(best) == 1:
                unique += 1
                if real != best[0]:
                    problems.append(f"{cell_names[c]}-p{i}: one best node {best[0]}, real chose {real or 'none'}")
            else:
                tied += 1
                if real not in best:
                    problems.append(f"{cell_names[c]}-p{i}: tied best {best}, real chose {real or 'none'}")
    return unique, tied, unfit, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("scheduler")
    ap.add_argument("--cells", type=int, default=12)
    ap.add_argument("--pods", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="kubesim-node-choice-")
    failed = False
    try:
        for k, (label, strategy) in enumerate(CONFIGS.items()):
            rng = random.Random(a.seed * 1000 + k)
            cells, pods = generate(rng, a.cells, a.pods)
            unique, tied, unfit, problems = run_config(a.kubesim, a.scheduler, os.path.join(work, label), label, strategy, cells, pods)
            ok = not problems
            failed |= not ok
            print(f"{'PASS' if ok else 'FAIL'} node choice, {label}: {unique + tied + unfit} pods in {a.cells} cells: "
                  f"{unique} with one best node (same node), {tied} with tied best nodes (real among them), "
                  f"{unfit} fitting nowhere (real bound none); {len(problems)} disagreements", flush=True)
            for p in problems[:10]:
                print(f"     {p}")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
