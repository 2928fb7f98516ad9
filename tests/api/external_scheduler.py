#!/usr/bin/python3
"""A small external scheduler written with the Python Kubernetes client (python3-kubernetes 22.6).

It is the kind of scheduler Batkube drove a simulated cluster with, and the one the issue asks
`kubesim serve --clock cosim` to run deterministically:

- one LIST then one WATCH of the pods with `fieldSelector=spec.schedulerName=NAME`
  (one stream: the server's event order is the only order the decisions depend on);
- a view of every node's allocatable and of the requests of the bound, non-terminal pods;
- the pending pods in creation order (FCFS), each bound to the first node (in the nodes'
  list order) where it fits, with `POST /api/v1/namespaces/NS/pods/NAME/binding`;
- a pod that fits nowhere gets `PodScheduled=False, reason Unschedulable` through a strategic
  merge patch of pods/status (as kube-scheduler does) and waits; every pod that finishes or
  is deleted frees its node's resources and the waiting pods are tried again, in order.

It stops when the server goes away (kubesim serve ends by itself once every workload job has
finished) or after --max-seconds, and prints one JSON line with its counts and wall time.

Usage: external_scheduler.py --kubeconfig PATH [--scheduler-name default-scheduler]
"""
import argparse
import json
import sys
import time

import urllib3
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.utils.quantity import parse_quantity

TERMINAL = ("Succeeded", "Failed")


def requests_of(pod):
    """Sum of the containers' requests (cpu in millicores, memory in bytes), like the
    scheduler's NodeResourcesFit without the non-zero defaults; init containers: max."""
    cpu = mem = 0
    for c in pod.spec.containers or []:
        r = (c.resources and c.resources.requests) or {}
        cpu += int(parse_quantity(r.get("cpu", "0")) * 1000)
        mem += int(parse_quantity(r.get("memory", "0")))
    for c in pod.spec.init_containers or []:
        r = (c.resources and c.resources.requests) or {}
        cpu = max(cpu, int(parse_quantity(r.get("cpu", "0")) * 1000))
        mem = max(mem, int(parse_quantity(r.get("memory", "0"))))
    return cpu, mem


class Node:
    def __init__(self, n):
        a = n.status.allocatable or {}
        self.name = n.metadata.name
        self.cpu = int(parse_quantity(a.get("cpu", "0")) * 1000)
        self.mem = int(parse_quantity(a.get("memory", "0")))
        self.pods = int(parse_quantity(a.get("pods", "110")))
        self.used_cpu = self.used_mem = self.used_pods = 0
        self.schedulable = not (n.spec and n.spec.unschedulable) and not any(
            t.effect in ("NoSchedule", "NoExecute") for t in (n.spec.taints or []))

    def fits(self, cpu, mem):
        return (self.schedulable and self.used_pods + 1 <= self.pods and
                self.used_cpu + cpu <= self.cpu and self.used_mem + mem <= self.mem)


class Scheduler:
    def __init__(self, api, name, log, binding_api="pod"):
        self.api = api
        self.binding_api = binding_api
        self.name = name
        self.log = log
        self.nodes = {}          # name -> Node, in list order
        self.bound = {}          # uid -> (node, cpu, mem) for bound non-terminal pods
        self.pending = {}        # uid -> (seq, pod) unbound pods of this scheduler
        self.unschedulable = set()  # uids already marked PodScheduled=False
        self.seq = 0
        self.stats = {"bindings": 0, "binding_errors": 0, "unschedulable_patches": 0,
                      "finished": 0, "events": 0, "relists": 0}

    # ---- view -------------------------------------------------------------------------
    def load_nodes(self):
        self.nodes = {n.metadata.name: Node(n) for n in self.api.list_node().items}

    def account(self, uid, node, cpu, mem, sign):
        n = self.nodes.get(node)
        if n is None:
            return
        n.used_cpu += sign * cpu
        n.used_mem += sign * mem
        n.used_pods += sign

    def forget(self, uid):
        """The pod finished or is gone: free its resources, drop it from the queue."""
        freed = False
        if uid in self.bound:
            node, cpu, mem = self.bound.pop(uid)
            self.account(uid, node, cpu, mem, -1)
            freed = True
        self.pending.pop(uid, None)
        self.unschedulable.discard(uid)
        return freed

    def observe(self, pod):
        """Updates the view from one pod state; returns True when resources were freed."""
        uid = pod.metadata.uid
        phase = pod.status.phase if pod.status else None
        if phase in TERMINAL:
            if uid in self.bound or uid in self.pending:
                self.stats["finished"] += 1
            return self.forget(uid)
        if pod.spec.node_name:
            self.pending.pop(uid, None)
            self.unschedulable.discard(uid)
            if uid not in self.bound:
                cpu, mem = requests_of(pod)
                self.bound[uid] = (pod.spec.node_name, cpu, mem)
                self.account(uid, pod.spec.node_name, cpu, mem, +1)
            return False
        if uid not in self.pending:
            self.seq += 1
            self.pending[uid] = (self.seq, pod)
        else:
            self.pending[uid] = (self.pending[uid][0], pod)
        return False

    # ---- decisions ----------------------------------------------------------------------
    def schedule(self, only_new):
        """FCFS: pods in creation order, each on the first node that fits. With only_new,
        pods already found unschedulable are not retried (nothing was freed since)."""
        for uid, (seq, pod) in sorted(self.pending.items(), key=lambda kv: kv[1][0]):
            if only_new and uid in self.unschedulable:
                continue
            cpu, mem = requests_of(pod)
            node = next((n for n in self.nodes.values() if n.fits(cpu, mem)), None)
            if node is None:
                if uid not in self.unschedulable:
                    self.mark_unschedulable(pod, cpu, mem)
                continue
            self.bind(pod, node, cpu, mem)

    def bind(self, pod, node, cpu, mem):
        body = client.V1Binding(
            metadata=client.V1ObjectMeta(name=pod.metadata.name, namespace=pod.metadata.namespace,
                                         uid=pod.metadata.uid),
            target=client.V1ObjectReference(kind="Node", name=node.name, api_version="v1"))
        uid = pod.metadata.uid
        try:
            # _preload_content=False: the 22.6 client cannot deserialize the Status that the
            # binding POST returns into V1Binding (kubernetes-client/python#825).
            if self.binding_api == "namespaced":  # POST .../namespaces/NS/bindings
                resp = self.api.create_namespaced_binding(
                    pod.metadata.namespace, body, _preload_content=False)
            else:  # POST .../namespaces/NS/pods/NAME/binding, as kube-scheduler does
                resp = self.api.create_namespaced_pod_binding(
                    pod.metadata.name, pod.metadata.namespace, body, _preload_content=False)
            resp.read()
        except ApiException as e:
            self.stats["binding_errors"] += 1
            self.log(f"binding {pod.metadata.namespace}/{pod.metadata.name} -> {node.name}: "
                     f"{e.status} {e.body}")
            if e.status == 404:
                self.forget(uid)
            return
        self.stats["bindings"] += 1
        self.pending.pop(uid, None)
        self.unschedulable.discard(uid)
        self.bound[uid] = (node.name, cpu, mem)
        self.account(uid, node.name, cpu, mem, +1)

    def mark_unschedulable(self, pod, cpu, mem):
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        msg = (f"0/{len(self.nodes)} nodes are available: {len(self.nodes)} Insufficient "
               f"resources (requested cpu {cpu}m, memory {mem}).")
        body = {"status": {"conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": msg, "lastProbeTime": None, "lastTransitionTime": now}]}}
        try:
            resp = self.api.patch_namespaced_pod_status(
                pod.metadata.name, pod.metadata.namespace, body, _preload_content=False)
            resp.read()
            self.stats["unschedulable_patches"] += 1
        except ApiException as e:
            self.log(f"status patch {pod.metadata.namespace}/{pod.metadata.name}: {e.status} {e.body}")
            if e.status == 404:
                self.forget(pod.metadata.uid)
                return
        self.unschedulable.add(pod.metadata.uid)

    # ---- loop ---------------------------------------------------------------------------
    def list_pods(self):
        self.stats["relists"] += 1
        self.bound.clear()
        self.pending.clear()
        self.unschedulable.clear()
        self.load_nodes()
        lst = self.api.list_pod_for_all_namespaces(field_selector=f"spec.schedulerName={self.name}")
        # A list is ordered by namespace/name; FCFS wants creation order.
        for pod in sorted(lst.items, key=lambda p: (p.metadata.creation_timestamp, p.metadata.name)):
            self.observe(pod)
        return lst.metadata.resource_version

    def run(self, deadline):
        rv = self.list_pods()
        self.schedule(only_new=False)
        while time.monotonic() < deadline:
            w = watch.Watch()
            try:
                for ev in w.stream(self.api.list_pod_for_all_namespaces,
                                   field_selector=f"spec.schedulerName={self.name}",
                                   resource_version=rv, allow_watch_bookmarks=True,
                                   timeout_seconds=max(1, int(deadline - time.monotonic()))):
                    self.stats["events"] += 1
                    typ = ev["type"]
                    raw = ev["raw_object"]
                    rv = raw.get("metadata", {}).get("resourceVersion", rv)
                    if typ == "BOOKMARK":
                        continue
                    pod = ev["object"]
                    if typ == "DELETED":
                        freed = self.forget(pod.metadata.uid)
                    else:
                        freed = self.observe(pod)
                    if freed:
                        self.schedule(only_new=False)
                    elif typ == "ADDED" and pod.metadata.uid in self.pending:
                        self.schedule(only_new=True)
                    if time.monotonic() >= deadline:
                        break
            except ApiException as e:
                if e.status == 410:         # too old: list again and go on
                    rv = self.list_pods()
                    self.schedule(only_new=False)
                    continue
                raise
            w.stop()
            if time.monotonic() >= deadline:
                break


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--scheduler-name", default="default-scheduler")
    ap.add_argument("--max-seconds", type=float, default=120)
    ap.add_argument("--binding-api", choices=["pod", "namespaced"], default="pod",
                    help="pod: create_namespaced_pod_binding (pods/NAME/binding, default); "
                         "namespaced: create_namespaced_binding (namespaces/NS/bindings)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--lowercase-query-booleans", action="store_true",
                    help="diagnosis only: send watch=true instead of the client's watch=True "
                         "(kube-apiserver accepts both)")
    args = ap.parse_args()

    def log(msg):
        print(f"external_scheduler: {msg}", file=sys.stderr, flush=True)

    if args.lowercase_query_booleans:
        from kubernetes.client import api_client
        to_tuples = api_client.ApiClient.parameters_to_tuples

        def lowercase(self, params, collection_formats):
            items = params.items() if isinstance(params, dict) else params
            return to_tuples(self, [(k, {True: "true", False: "false"}.get(v, v) if isinstance(v, bool) else v)
                                    for k, v in items], collection_formats)
        api_client.ApiClient.parameters_to_tuples = lowercase
    config.load_kube_config(args.kubeconfig)
    cfg = client.Configuration.get_default_copy()
    cfg.retries = 1  # do not spend seconds reconnecting to a server that has ended
    api = client.CoreV1Api(client.ApiClient(cfg))
    s = Scheduler(api, args.scheduler_name, log, args.binding_api)
    t0 = time.monotonic()
    ended = "deadline"
    try:
        s.run(t0 + args.max_seconds)
    except (urllib3.exceptions.HTTPError, ConnectionError, OSError) as e:
        ended = "server gone"
        if args.verbose:
            log(f"stream ended: {e!r}")
    except ApiException as e:
        if e.status == 503:  # "kubesim is shutting down": the workload has finished
            ended = "server gone"
        else:
            ended = f"api error {e.status}"
            log(f"{e.status} {e.reason} {e.body}")
    wall = time.monotonic() - t0
    print(json.dumps({"ended": ended, "wall_seconds": round(wall, 3), **s.stats}), flush=True)
    return 0 if ended == "server gone" or ended == "deadline" else 1


if __name__ == "__main__":
    sys.exit(main())
