#!/usr/bin/env python3
"""What bringing your own scheduler costs per scheduling decision, from the command line
(issue 29): the same stream of pods on the same cluster scheduled by

  builtin    kube-scheduler's default profile (kubesim run, no option),
  python     a first-fit Python policy in-process (run --policy, kubesim.Policy),
  extender   the default profile plus the first-fit HTTP extender of examples/extender-python
             (filter + prioritize over HTTP/JSON to Python's standard-library server, full
             NodeList per call: nodeCacheCapable false, as in the example),

each run at two sizes (N/5 and N pods, a pod every 0.05 s on 100 nodes, --model ideal). The
slope between the sizes is the cost of one decision without the fixed costs (start-up, the
interpreter, reading the scenario); the overhead is a route's slope minus builtin's. Every run
is a whole `kubesim run` process, timed by wall clock (the extender works in another process,
so CPU time of kubesim alone would hide it); runs are interleaved and repeated, medians given.

    python3 bench/byo_overhead_bench.py build/kubesim [--pods 20000] [--repeat 3] [--routes builtin,python]

The python route's overhead here is measured against a different scheduler (kube-scheduler's
whole cycle against a first fit), on wall clock: it is not the cost of the Python path itself.
That one, the Python policy against the same first fit in C++ (the same decisions), is
bench/python_policy_bench.py's figure (issue 29's < 20 us per decision).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXTENDER = os.path.join(ROOT, "examples", "extender-python")

POLICY = '''import kubesim


class FirstFit(kubesim.Policy):
    def schedule(self, view):
        for pod in view.pending.tolist():
            nodes = view.fitting_nodes(pod)
            if len(nodes):
                view.bind(pod, int(nodes[0]))
'''


def scenario(folder, pods):
    path = os.path.join(folder, f"stream-{pods}.yaml")
    with open(path, "w") as f:
        f.write("name: byo-bench\ncluster: {nodes: 100, cpu: 32, memory: 128Gi, pods: 110}\nmodel: ideal\n"
                "tenants:\n  - namespace: t1\n    streams: [{start: 0, cpu: 1, memory: 1G, jobs: %d, sleep: 10, "
                "interval: 0.05}]\n" % pods)
    return path


def timed(cmd):
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    return seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("--pods", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--routes", default="builtin,python,extender", help="the routes to run (builtin always runs)")
    a = ap.parse_args()
    kubesim = os.path.abspath(a.kubesim)
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", os.path.join(os.path.dirname(kubesim), "python"))
    ext = subprocess.Popen([sys.executable, os.path.join(EXTENDER, "first_fit_extender.py"), "0"],
                           stdout=subprocess.PIPE, text=True)
    try:
        port = int(ext.stdout.readline())
        with tempfile.TemporaryDirectory(prefix="byo_bench_") as work:
            policy = os.path.join(work, "first_fit.py")
            with open(policy, "w") as f:
                f.write(POLICY)
            with open(os.path.join(EXTENDER, "extender.yaml")) as f:
                config = f.read().replace("127.0.0.1:8888", f"127.0.0.1:{port}")
            ext_config = os.path.join(work, "extender.yaml")
            with open(ext_config, "w") as f:
                f.write(config)
            routes = {"builtin": [], "python": ["--policy", f"ff={policy}:FirstFit"],
                      "extender": ["--scheduler", "default-scheduler", "--scheduler-config", ext_config]}
            routes = {r: v for r, v in routes.items() if r == "builtin" or r in a.routes.split(",")}
            sizes = (a.pods // 5, a.pods)
            times = {(r, n): [] for r in routes for n in sizes}
            for k in range(a.repeat):
                for n in sizes:
                    path = scenario(work, n)
                    for route, extra in routes.items():
                        out = os.path.join(work, f"out-{route}-{n}-{k}")
                        times[(route, n)].append(timed([kubesim, "run", "--scenario", path, *extra, "--quiet",
                                                        "--out", out]))
    finally:
        ext.terminate()
        ext.wait()
    med = {key: statistics.median(v) for key, v in times.items()}
    slope = {r: (med[(r, sizes[1])] - med[(r, sizes[0])]) / (sizes[1] - sizes[0]) for r in routes}
    print(f"kubesim run, {sizes[0]} and {sizes[1]} pods on 100 nodes (--model ideal), median of {a.repeat} "
          "interleaved runs, wall clock")
    print(f"{'route':<10} {'wall ' + str(sizes[0]):>12} {'wall ' + str(sizes[1]):>12} {'us/decision':>12} "
          f"{'overhead us/decision vs builtin':>32}")
    for r in routes:
        print(f"{r:<10} {med[(r, sizes[0])]:>11.3f}s {med[(r, sizes[1])]:>11.3f}s {slope[r] * 1e6:>12.1f} "
              f"{(slope[r] - slope['builtin']) * 1e6:>32.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
