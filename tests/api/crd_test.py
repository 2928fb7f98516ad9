#!/usr/bin/python3
"""CustomResourceDefinitions on `kubesim serve` with kubectl (issue 27).

Usage: crd_test.py KUBESIM

Starts `kubesim serve --scheduler scheduler-plugins` on examples/serve/cluster.yaml and checks,
with kubectl: apply of examples/crd/widgets-crd.yaml, api-resources (short names, category),
apply / get (by short name, label and field selectors) / describe of a Widget, the status
subresource (status ignored on the main resource, spec on /status), generation, 409 on a
stale resourceVersion, 415 for a strategic merge patch, 422 for a bad object and a bad CRD,
watch from a resourceVersion, delete of the object and of the CRD (the resource is no longer
served); then examples/crd/podgroup-crd.yaml and a PodGroup created with kubectl, which the
built-in Coscheduling reads (a gang of 3 is held until its third pod exists, then bound);
then examples/crd/elasticquota-crd.yaml: the setup's ElasticQuota (elasticquota-setup.yaml)
is listed, and one applied, raised and deleted with kubectl is what the built-in
CapacityScheduling admits pods by in its next cycle; 422 (min above max), 409, 404. Then
`serve --scheduler volcano` with examples/crd/volcano-queue-crd.yaml: the setup's Queues
(volcano-queue-setup.yaml) are listed, and one applied, raised and deleted with kubectl is what
the built-in Volcano model's next session uses; 422 for a weight below 1; with
examples/crd/volcano-podgroup-crd.yaml the model's PodGroups are listed with their phase
(read-only: 405).
Each check prints PASS or FAIL; the exit status is 1 when one failed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run_api_tests as api  # noqa: E402  (Server, check)

EX = os.path.join(REPO, "examples", "crd")


def kubectl(kc, *args, stdin=None):
    p = subprocess.run(["kubectl", "--kubeconfig", kc, *args], input=stdin, capture_output=True, text=True,
                       timeout=30)
    return p.returncode, p.stdout + p.stderr


def http(srv, method, path, body=None, ctype="application/json"):
    status, obj, _ = srv.request(method, path, body=body, ctype=ctype)
    return status, obj


def widgets(srv):
    kc = srv.kubeconfig
    rc, out = kubectl(kc, "apply", "-f", os.path.join(EX, "widgets-crd.yaml"))
    api.check("crd apply", rc == 0 and "created" in out, out.strip())
    rc, out = kubectl(kc, "api-resources", "--api-group=example.kubesim.io")
    api.check("api-resources", rc == 0 and "widgets" in out and " wd " in out, out.strip().splitlines()[-1])
    rc, out = kubectl(kc, "apply", "-f", os.path.join(EX, "widget.yaml"))
    api.check("object apply", rc == 0 and "widget.example.kubesim.io/w1 created" in out, out.strip())
    rc, out = kubectl(kc, "get", "wd", "-l", "team=a", "--field-selector", "metadata.name=w1", "-o", "name")
    api.check("get by short name and selectors", out.strip() == "widget.example.kubesim.io/w1", out.strip())
    rc, out = kubectl(kc, "get", "all", "-o", "name")
    api.check("category all", "widget.example.kubesim.io/w1" in out, out.strip())
    rc, out = kubectl(kc, "describe", "widget", "w1")
    api.check("describe", rc == 0 and "Size:" in out and "Team=a" not in out and "team=a" in out, "")
    base = "/apis/example.kubesim.io/v1/namespaces/default/widgets"
    st, w = http(srv, "GET", base + "/w1")
    rv = w["metadata"]["resourceVersion"]
    st, after = http(srv, "PATCH", base + "/w1", {"spec": {"size": 4}, "status": {"ready": True}},
                     "application/merge-patch+json")
    api.check("merge patch: spec taken, status ignored, generation 2",
              st == 200 and after["spec"]["size"] == 4 and "status" not in after
              and after["metadata"]["generation"] == 2, json.dumps(after.get("metadata", {}).get("generation")))
    st, after = http(srv, "PATCH", base + "/w1/status", {"spec": {"size": 9}, "status": {"ready": True}},
                     "application/merge-patch+json")
    api.check("status subresource: status taken, spec ignored",
              st == 200 and after["spec"]["size"] == 4 and after["status"] == {"ready": True}
              and after["metadata"]["generation"] == 2, json.dumps(after.get("status")))
    stale = dict(w, spec={"size": 5})
    st, obj = http(srv, "PUT", base + "/w1", stale)
    api.check("409 on a stale resourceVersion", st == 409 and obj["reason"] == "Conflict", obj.get("message", ""))
    st, obj = http(srv, "PATCH", base + "/w1", {"spec": {"size": 5}}, "application/strategic-merge-patch+json")
    api.check("415 for a strategic merge patch", st == 415, obj.get("message", "")[:80])
    bad = {"apiVersion": "example.kubesim.io/v1", "kind": "Widget", "metadata": {"name": "w2"},
           "spec": {"size": "big", "color": "green"}}
    st, obj = http(srv, "POST", base, bad)
    api.check("422 for a bad object", st == 422 and obj["reason"] == "Invalid"
              and "spec.size in body must be of type integer" in obj["message"]
              and 'Unsupported value: "green"' in obj["message"], obj.get("message", ""))
    st, obj = http(srv, "POST", base, dict(bad, apiVersion="example.kubesim.io/v2"))
    api.check("400 for another version", st == 400, obj.get("message", ""))
    rc, out = kubectl(kc, "apply", "-f", "-", stdin="""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example}
spec:
  group: example
  scope: Global
  names: {plural: things, kind: Thing}
  versions: [{name: v1, served: true, storage: false}]
""")
    api.check("422 for a bad CRD", rc != 0 and 'The CustomResourceDefinition "things.example" is invalid' in out
              and "should be a domain with at least one dot" in out and 'Unsupported value: "Global"' in out
              and "must have exactly one version marked as storage version" in out
              and "schemas are required" in out, out.strip().replace("\n", " | "))
    with urllib.request.urlopen(f"http://{srv.host}:{srv.port}{base}?watch=1&resourceVersion={rv}&timeoutSeconds=1") as r:
        events = [json.loads(line) for line in r.read().decode().splitlines() if line.strip()]
    api.check("watch from a resourceVersion", [e["type"] for e in events] == ["MODIFIED", "MODIFIED"],
              str([e["type"] for e in events]))
    rc, out = kubectl(kc, "delete", "-f", os.path.join(EX, "widget.yaml"))
    api.check("object delete", rc == 0 and "deleted" in out, out.strip())
    rc, out = kubectl(kc, "delete", "-f", os.path.join(EX, "widgets-crd.yaml"))
    rc2, out2 = kubectl(kc, "get", "widgets")
    api.check("crd delete: no longer served", rc == 0 and rc2 != 0, out2.strip()[:100])


def unschedulable_message(kc, pod, ns="default"):
    """The pod's PodScheduled=False message once the scheduler wrote it ("" after 5 s)."""
    for _ in range(50):
        rc, out = kubectl(kc, "get", "pod", pod, "-n", ns, "-o",
                          'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}')
        if out.strip():
            return out.strip()
        time.sleep(0.1)
    return ""


def gang_pod(name, group):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {{scheduling.x-k8s.io/pod-group: {group}}}}}
spec:
  schedulerName: scheduler-plugins-scheduler
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def pod_groups(srv):
    kc = srv.kubeconfig
    rc, out = kubectl(kc, "apply", "-f", os.path.join(EX, "podgroup-crd.yaml"))
    api.check("PodGroup crd apply", rc == 0, out.strip())
    rc, out = kubectl(kc, "apply", "-f", "-", stdin="""apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g1}
spec: {minMember: 3, scheduleTimeoutSeconds: 600}
""")
    api.check("PodGroup apply", rc == 0 and "created" in out, out.strip())
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=gang_pod("g1-a", "g1") + "---\n" + gang_pod("g1-b", "g1"))
    held = [unschedulable_message(kc, p) for p in ("g1-a", "g1-b")]
    rc, out = kubectl(kc, "get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}")
    api.check("gang of 3 held with 2 pods (the built-in Coscheduling read the PodGroup)",
              out.strip() == "" and all("cannot find enough sibling pods" in m for m in held), str(held))
    kubectl(kc, "apply", "-f", "-", stdin=gang_pod("g1-c", "g1"))
    nodes = ""
    for _ in range(50):
        rc, nodes = kubectl(kc, "get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}")
        if len(nodes.split()) == 3:
            break
        time.sleep(0.2)
    api.check("gang bound once complete", len(nodes.split()) == 3, nodes)
    rc, out = kubectl(kc, "apply", "-f", "-", stdin="""apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g2}
spec: {minMember: -1}
""")
    api.check("422 for a PodGroup the model refuses", rc != 0 and 'The PodGroup "g2" is invalid' in out, out.strip())


def quota(name, ns, min_cpu, max_cpu):
    return f"""apiVersion: scheduling.x-k8s.io/v1alpha1
kind: ElasticQuota
metadata: {{name: {name}, namespace: {ns}}}
spec: {{min: {{cpu: "{min_cpu}"}}, max: {{cpu: "{max_cpu}"}}}}
"""


def team_pod(name, cpu):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: team}}
spec:
  schedulerName: scheduler-plugins-scheduler
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def bound(kc, pod, ns="team"):
    for _ in range(50):
        rc, node = kubectl(kc, "get", "pod", pod, "-n", ns, "-o", "jsonpath={.spec.nodeName}")
        if node.strip():
            return True
        time.sleep(0.1)
    return False


def elastic_quotas(srv):
    """ElasticQuota: the setup's quota listed; one applied, changed and deleted with kubectl is
    the one the built-in CapacityScheduling uses in its next cycle."""
    kc = srv.kubeconfig
    rc, out = kubectl(kc, "apply", "-f", os.path.join(EX, "elasticquota-crd.yaml"))
    api.check("ElasticQuota crd apply", rc == 0, out.strip())
    rc, out = kubectl(kc, "get", "eq", "-A", "-o", "json")
    items = json.loads(out)["items"] if rc == 0 else []
    api.check("the setup's ElasticQuota listed with its spec",
              [(i["metadata"]["name"], i["spec"]["max"]["cpu"], i["spec"]["min"]["memory"]) for i in items]
              == [("whole-cluster", "32", "128Gi")], out.strip()[:200])
    rc, out = kubectl(kc, "apply", "-f", "-", stdin="apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    api.check("namespace create", rc == 0, out.strip())
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=quota("q", "team", 1, 1))
    api.check("ElasticQuota apply", rc == 0 and "elasticquota.scheduling.x-k8s.io/q created" in out, out.strip())
    kubectl(kc, "apply", "-f", "-", stdin=team_pod("a", 1))
    a = bound(kc, "a")
    kubectl(kc, "apply", "-f", "-", stdin=team_pod("b", 1))
    out = unschedulable_message(kc, "b", "team")
    api.check("max cpu 1: a bound, b held by CapacityScheduling", a and "ElasticQuota q is more than Max" in out, out)
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=quota("q", "team", 1, 3))
    kubectl(kc, "apply", "-f", "-", stdin=team_pod("c", 1))
    api.check("max raised to 3 with kubectl apply: the next pod is bound", rc == 0 and bound(kc, "c"), out.strip())
    rc, out = kubectl(kc, "delete", "eq", "q", "-n", "team")
    kubectl(kc, "apply", "-f", "-", stdin=team_pod("d", 4))
    api.check("quota deleted: a pod over its max is bound", rc == 0 and bound(kc, "d"), out.strip())
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=quota("bad", "team", 2, 1))
    api.check("422 for min above max", rc != 0 and 'The ElasticQuota "bad" is invalid' in out
              and "spec.min.cpu" in out, out.strip())
    base = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/elasticquotas"
    st, obj = http(srv, "POST", base, {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
                                       "metadata": {"name": "whole-cluster"}, "spec": {}})
    api.check("409 for an existing ElasticQuota", st == 409 and obj["reason"] == "AlreadyExists", obj.get("message", ""))
    st, obj = http(srv, "GET", base + "/none")
    api.check("404 for a missing ElasticQuota", st == 404, obj.get("message", ""))


def volcano_queue(name, weight, cpu):
    return f"""apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {{name: {name}}}
spec: {{weight: {weight}, capability: {{cpu: "{cpu}"}}}}
"""


def volcano_pod(name, queue):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"scheduling.volcano.sh/queue-name": queue}},
            "spec": {"schedulerName": "volcano", "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}


def nodes_of(srv, *pods):
    """The nodes the pods are bound to (HTTP: kubectl's start-up would dominate the test)."""
    return [http(srv, "GET", "/api/v1/namespaces/default/pods/" + p)[1]["spec"].get("nodeName") for p in pods]


def all_bound(srv, *pods):
    for _ in range(50):
        if all(nodes_of(srv, *pods)):
            return True
        time.sleep(0.05)
    return False


def volcano_queues(srv):
    """Volcano Queue: the setup's queues listed; one applied, raised and deleted with kubectl is
    what the built-in model's next session uses (a session every simulated second, 0.1 s here)."""
    kc = srv.kubeconfig
    rc, out = kubectl(kc, "apply", "-f", os.path.join(EX, "volcano-queue-crd.yaml"))
    api.check("Queue crd apply", rc == 0, out.strip())
    base = "/apis/scheduling.volcano.sh/v1beta1/queues"
    st, obj = http(srv, "GET", base)
    api.check("default and the setup's queue listed with their spec",
              [(i["metadata"]["name"], i["spec"]["weight"], i["spec"].get("capability")) for i in obj.get("items", [])]
              == [("default", 1, None), ("research", 2, {"cpu": "4"})], json.dumps(obj)[:300])
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=volcano_queue("small", 1, 1))
    api.check("Queue apply", rc == 0 and "queue.scheduling.volcano.sh/small created" in out, out.strip())
    for p in ("a", "b"):
        http(srv, "POST", "/api/v1/namespaces/default/pods", volcano_pod(p, "small"))
    time.sleep(0.4)  # four sessions
    nodes = nodes_of(srv, "a", "b")
    api.check("capability 1 cpu: one of two 1-cpu pods bound, the other waits", sum(map(bool, nodes)) == 1, str(nodes))
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=volcano_queue("small", 2, 2))
    api.check("capability raised with kubectl apply: both bound at a next session",
              rc == 0 and all_bound(srv, "a", "b") and http(srv, "GET", base + "/small")[1]["spec"]["weight"] == 2,
              out.strip())
    rc, out = kubectl(kc, "delete", "queue", "small")
    http(srv, "POST", "/api/v1/namespaces/default/pods", volcano_pod("c", "small"))
    time.sleep(0.4)
    api.check("queue deleted: its new pod is not scheduled", rc == 0 and nodes_of(srv, "c") == [None], out.strip())
    rc, out = kubectl(kc, "apply", "-f", os.path.join(EX, "volcano-podgroup-crd.yaml"))
    st, obj = http(srv, "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/podgroup-a")
    spec, status = obj.get("spec", {}), obj.get("status", {})
    api.check("the model's PodGroup of pod a listed: minMember 1, queue small, phase Running",
              rc == 0 and st == 200 and (spec.get("minMember"), spec.get("queue"), spec.get("minResources"),
                                         status.get("phase")) == (1, "small", {"cpu": "1"}, "Running"), json.dumps(obj)[:300])
    rc, out = kubectl(kc, "apply", "-f", "-", stdin="apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                      "metadata: {name: x}\nspec: {minMember: 1}\n")
    api.check("405 for a PodGroup written through the API (read-only)", rc != 0 and "MethodNotAllowed" in out, out.strip())
    rc, out = kubectl(kc, "apply", "-f", "-", stdin=volcano_queue("bad", -1, 1))
    api.check("422 for a weight below 1", rc != 0 and 'The Queue "bad" is invalid' in out
              and "queue weight must be a positive integer" in out, out.strip())

def main():
    kubesim = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="kubesim-crd-") as tmp:
        srv = api.Server(kubesim, tmp, "crd", ["--cluster", os.path.join(REPO, "examples/serve/cluster.yaml"),
                                              "--clock", "realtime=1", "--keep-serving",
                                              "--scheduler", "scheduler-plugins",
                                              "--scheduler-config", os.path.join(HERE, "elasticquota-setup.yaml")])
        try:
            if not api.check("serve starts", srv.up, srv.stderr()[-300:]):
                return 1
            widgets(srv)
            pod_groups(srv)
            elastic_quotas(srv)
        finally:
            srv.stop()
        srv = api.Server(kubesim, tmp, "volcano", ["--cluster", os.path.join(REPO, "examples/serve/cluster.yaml"),
                                                  "--clock", "realtime=10", "--keep-serving", "--scheduler", "volcano",
                                                  "--scheduler-config", os.path.join(HERE, "volcano-queue-setup.yaml")])
        try:
            if api.check("serve --scheduler volcano starts", srv.up, srv.stderr()[-300:]):
                volcano_queues(srv)
        finally:
            srv.stop()
    print(f"{api.passes} passed, {len(api.failures)} failed", flush=True)
    return 1 if api.failures else 0


if __name__ == "__main__":
    sys.exit(main())
