#!/usr/bin/python3
"""The built-in Volcano model against the real vc-scheduler v1.7.0 (issue 28), for ctest.

Usage: volcano_oracle.py KUBESIM KUBESIM_TIMESHIM PEERS_DIR WORK_DIR [CASE...]
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository. Skips (exit 0,
one line) when PEERS_DIR/volcano/vc-scheduler-volcano-v1.7.0-linux-amd64.xz is absent;
unpacks it into WORK_DIR once.

Each case (CASES below) is a small cluster, Queues, PodGroups (minMember, minResources,
queue, priorityClassName) and pods that join them (annotation scheduling.k8s.io/group-name,
schedulerName volcano), generated into WORK_DIR/CASE/. It runs twice with --model ideal:
  builtin: `kubesim run --scheduler volcano --scheduler-config` (the conf + the objects);
  real:    `kubesim serve --clock cosim --apply` (Volcano's CRDs, then the objects) with
           `--scheduler-command vc-scheduler --scheduler-conf` (the same conf) on simulated time.
No vc-controller-manager: the PodGroups are created directly, as its podgroup controller
would for a Volcano Job (minResources = the first minMember pods' requests).
Checks per case: every pod has the same node, the same session (the whole second of its
binding: a real session starts about 0.1 s later than the model's, see docs/volcano.md) and
the same end (Succeeded, or evicted and deleted) on both sides. The nodes differ in size so
that no two nodes tie on score (vc-scheduler picks at random among equal best nodes).
Prints PASS/FAIL lines; exit 1 on any failure.
"""
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from checks import check, failures  # noqa: E402
sys.path.insert(0, HERE)
from real_scheduler import peers_dir, unpack_peer  # noqa: E402

PACKED = "volcano/vc-scheduler-volcano-v1.7.0-linux-amd64.xz"
CRDS = ["scheduling.volcano.sh_queues.yaml", "scheduling.volcano.sh_podgroups.yaml",
        "nodeinfo.volcano.sh_numatopologies.yaml"]
TIER1 = "- plugins:\n  - name: priority\n  - name: gang\n    enablePreemptable: false\n  - name: conformance\n"


def conf(actions, factor=None):
    """The release's volcano-scheduler.conf with these actions (and overcommit factor)."""
    over = "  - name: overcommit\n" + (f"    arguments: {{overcommit-factor: {factor}}}\n" if factor else "")
    return (f'actions: "{actions}"\ntiers:\n' + TIER1 + "- plugins:\n" + over +
            "  - name: drf\n    enablePreemptable: false\n  - name: predicates\n  - name: proportion\n"
            "  - name: nodeorder\n  - name: binpack\n")


# A case: nodes [(cpu, memory Gi)], queues {name: (weight, reclaimable)}, priority classes
# {name: value}, min_resources (the PodGroups carry minResources; default: none), groups
# [(name, queue, minMember, pods, cpu, submit at, duration, priorityClass)].
CASES = {
    # A gang of 6 that does not fit waits (Inqueue) for one that does; a small job of another
    # queue passes it.
    "gang": dict(conf=conf("enqueue, allocate, backfill"), nodes=[(8, 32), (10, 32)], queues={"research": (1, True)},
                 classes={}, groups=[("warm", "default", 4, 4, 2, 0, 3, ""), ("mpi", "default", 8, 8, 2, 1, 1, ""),
                                     ("small", "research", 1, 2, 2, 1, 1, "")]),
    # Two queues of weights 2 and 1 with more single-pod jobs than room: proportion's
    # deserved shares decide who starts first; overcommit's enqueue admits 1.2x the cluster.
    "proportion": dict(conf=conf("enqueue, allocate, backfill"), nodes=[(4, 32), (6, 32)],
                       queues={"gold": (2, True), "bronze": (1, True)}, classes={},
                       groups=[(f"{q}{i}", q, 1, 1, 1, 0, 2, "") for i in range(9) for q in ("bronze", "gold")]),
    # reclaim: an elastic job of queue batch holds the cluster; queue prod (same weight)
    # submits a gang and takes back its deserved half by evicting workers beyond minAvailable.
    "reclaim": dict(conf=conf("enqueue, allocate, backfill, reclaim", 2.0), nodes=[(16, 32)],
                    queues={"batch": (1, True), "prod": (1, False)}, classes={},
                    groups=[("elastic", "batch", 1, 8, 2, 0, 4, ""), ("service", "prod", 4, 4, 2, 1, 1, "")]),
    # preempt: a high-priority gang in the same queue evicts workers of an elastic job.
    "preempt": dict(conf=conf("enqueue, allocate, preempt, backfill", 2.0), nodes=[(16, 32)], queues={},
                    classes={"urgent": 1000}, groups=[("batch", "default", 1, 8, 2, 0, 4, ""),
                                                      ("urgent", "default", 2, 2, 2, 1, 1, "urgent")]),
    # A PodGroup takes part in enqueue before its pods exist (cache.go Snapshot): "late"
    # (minResources 8 cpu, pods at 2 s; first by priority) is enqueued at 0 and holds
    # overcommit's room (8 + 2 > 1.2 x 8), so "now", whose pod is there at 0, waits until
    # late's pods have run.
    "early": dict(conf=conf("enqueue, allocate, backfill"), nodes=[(8, 32)], queues={}, classes={"urgent": 1000},
                  min_resources=True, groups=[("late", "default", 4, 4, 2, 2, 1, "urgent"),
                                              ("now", "default", 1, 1, 2, 0, 1, "")]),
}


def dump(docs):
    import json
    return "\n---\n".join(json.dumps(d) for d in docs) + "\n"


def write_case(name, case, work):
    """WORK/NAME/{scenario.yaml, objects.yaml, volcano-scheduler.conf, builtin-config.yaml}."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    objects = [{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": q},
                "spec": {"weight": w, "reclaimable": r}} for q, (w, r) in case["queues"].items()]
    manifests = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": c}, "value": v}
                 for c, v in case["classes"].items()]
    jobs = []
    for g, queue, min_member, pods, cpu, at, duration, pclass in case["groups"]:
        spec = {"minMember": min_member, "queue": queue}
        if pclass:
            spec["priorityClassName"] = pclass
        if case.get("min_resources"):  # as the job controller sets it: the first minMember pods' requests
            spec["minResources"] = {"cpu": str(min_member * cpu), "memory": f"{min_member}Gi"}
        objects.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                        "metadata": {"name": g, "namespace": "default"}, "spec": spec})
        for i in range(pods):
            pod_spec = {"schedulerName": "volcano", "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                        "containers": [{"name": "c", "image": "busybox",
                                        "resources": {"requests": {"cpu": str(cpu), "memory": "1Gi"}}}]}
            if pclass:
                pod_spec["priorityClassName"] = pclass
            jobs.append({"at": at, "manifest": {
                "apiVersion": "v1", "kind": "Pod", "spec": pod_spec,
                "metadata": {"name": f"{g}-{i}", "namespace": "default",
                             "annotations": {"scheduling.k8s.io/group-name": g, "kubesim.io/duration": str(duration)}}}})
    groups = [{"name": f"n{i}", "allocatable": {"cpu": str(c), "memory": f"{m}Gi", "pods": "110"}}
              for i, (c, m) in enumerate(case["nodes"])]
    scenario = {"name": name, "cluster": {"nodeGroups": groups}, "jobs": jobs}
    if manifests:
        scenario["manifests"] = manifests
    # The conf alone in its folder: vc-scheduler reloads it on every change in its folder
    # (pkg/scheduler/scheduler.go, watchSchedulerConf), its own log's writes included.
    os.makedirs(os.path.join(d, "conf"), exist_ok=True)
    files = {"scenario.yaml": dump([scenario]), "objects.yaml": dump(objects),
             "conf/volcano-scheduler.conf": case["conf"], "builtin-config.yaml": case["conf"] + "---\n" + dump(objects)}
    for f, text in files.items():
        with open(os.path.join(d, f), "w") as out:
            out.write(text)
    return d


def outcome(path, queue_of):
    """What both sides must agree on, from pods.csv: for each queue, each node and each group,
    the sorted list of its pods' (session, end): the whole second of the binding (-1: never
    bound) and the phase (with the reason when not Succeeded). Which pod of a group, and which
    of several jobs created in the same second, goes first is upstream's random UID order
    (api/job_info.go, the TaskOrderFn and JobOrderFn fallbacks), so pods are compared as
    multisets, not one by one."""
    out = {}
    for r in csv.DictReader(open(path)):
        session = int(float(r["scheduled"])) if r["scheduled"] else -1
        end = r["phase"] if r["phase"] == "Succeeded" else f"{r['phase']}/{r['reason']}"
        group = r["pod"].rsplit("-", 1)[0]
        for key in (f"queue {queue_of[group]}", f"node {r['node'] or '-'}", f"group {group}"):
            out.setdefault(key, []).append((session, end))
    # A group of one pod is one of its queue's jobs of that second: compared through its queue.
    out = {k: v for k, v in out.items() if not k.startswith("group ") or len(v) > 1}
    return {k: sorted(v) for k, v in out.items()}


def run_case(kubesim, timeshim, scheduler, peers, d, queue_of):
    builtin = os.path.join(d, "builtin")
    subprocess.run([kubesim, "run", "--scenario", os.path.join(d, "scenario.yaml"), "--model", "ideal", "--scheduler",
                    "volcano", "--scheduler-config", os.path.join(d, "builtin-config.yaml"), "--out", builtin,
                    "--quiet"], check=True)
    applies = [a for c in CRDS for a in ("--apply", os.path.join(peers, "volcano", "crds", c))]
    command = (f"{scheduler} --kubeconfig {{kubeconfig}} --scheduler-conf {os.path.join(d, 'conf', 'volcano-scheduler.conf')} "
               "--listen-address=127.0.0.1:0 --v=2 --logtostderr")
    t0 = time.monotonic()
    r = subprocess.run([kubesim, "serve", "--scenario", os.path.join(d, "scenario.yaml"), "--model", "ideal",
                        "--builtin-scheduler", "off", "--clock", "cosim", "--port", "0", *applies,
                        "--apply", os.path.join(d, "objects.yaml"), "--out", os.path.join(d, "real"),
                        "--kubeconfig", os.path.join(d, "kubeconfig"), "--scheduler-log",
                        os.path.join(d, "vc-scheduler.log"), "--timeshim", timeshim, "--scheduler-command", command],
                       capture_output=True, text=True, timeout=300)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        return None, outcome(os.path.join(builtin, "pods.csv"), queue_of), wall, r.stderr.strip()[-300:]
    ended = next((line for line in (r.stdout + r.stderr).splitlines() if "serve ended" in line), "")
    return (outcome(os.path.join(d, "real", "pods.csv"), queue_of), outcome(os.path.join(builtin, "pods.csv"), queue_of),
            wall, ended.split(": ", 1)[-1])


def main():
    kubesim, timeshim, peers, work = (os.path.abspath(a) if a != "-" else a for a in sys.argv[1:5])
    scheduler = unpack_peer(REPO, peers, PACKED, work, "vc-scheduler", "the real vc-scheduler")
    if scheduler is None:
        return 0
    peers = peers_dir(REPO, peers)
    names = sys.argv[5:] or list(CASES)
    for name in names:
        d = write_case(name, CASES[name], os.path.join(work, "volcano-oracle"))
        queue_of = {g[0]: g[1] for g in CASES[name]["groups"]}
        real, builtin, wall, err = run_case(kubesim, timeshim, scheduler, peers, d, queue_of)
        if real is None:
            check(f"volcano {name}", False, f"kubesim serve failed: {err}")
            continue
        differing = [f"{k}: real {real.get(k)} model {v}" for k, v in builtin.items() if real.get(k) != v]
        check(f"volcano {name}: the same sessions and ends per queue, node and group as the real vc-scheduler",
              not differing and len(real) == len(builtin),
              f"{len(builtin)} queues, nodes and groups, {len(differing)} differing{': ' if differing else ''}{'; '.join(differing[:6])}; "
              f"real run {wall:.1f} s wall ({err})")
    print(f"{'FAIL' if failures else 'PASS'}: Volcano against the real vc-scheduler "
          f"({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
