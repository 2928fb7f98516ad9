#!/usr/bin/env python3
"""Measures the real kube-scheduler v1.26.7's binding rate on `kubesim serve` and the built-in
model's on the same input, for the cycle-latency and client rate-limiter coefficients of
ModelConfig::realistic() (src/engine/model_config.cpp says how they were fitted).

One case: N nodes of 32 cpus (110 pods each), P one-cpu pods of 100,000 s created at once
(a Batsim workload, subtime 0). The real scheduler runs against
`kubesim serve --clock realtime=1 --builtin-scheduler off` with
clientConnection.qps/burst set as asked (JSON content type, parallelism 16); the script
counts its "Successfully bound" log lines until every pod is bound, then stops both and
reads serve's pods.csv. The rate is (pods - 1) / (last binding - first binding) in
simulated seconds (= wall seconds at realtime=1), so the scheduler's start-up (informer
sync) is not counted. It also records the load average before and after, and the CPU time
(utime + stime from /proc/PID/stat) of the scheduler and of serve during the run.

Usage:
  scripts/measure-scheduler-throughput.py [--kubesim build/kubesim] [--nodes 16,100,500,1000,5000]
      [--pods 10000] [--qps 5000 --burst 5000] [--repeat 1] [--builtin-only] [--pct PERCENT]
      [--timeshim build/kubesim-timeshim] [--fit MODEL.yaml]

--fit MODEL.yaml (the refit on this machine, docs/performance.md): measures the real scheduler
at each --nodes (default then 1000,5000), fits the per-pod wall time t(K) = a + b K (K the nodes
a cycle filters and scores, upstream's numFeasibleNodesToFind), writes a model file (base
realistic; schedulingCycle around a, the per-node-and-plugin costs from b; `kubesim run
--model MODEL.yaml`), then runs the built-in model with that file on the same cases and
corrects the line by the model's own residuals until it predicts each measured rate within 2%
(at most 4 rounds). Prints measured and predicted rates and exits 1 when one is off by more
than 10%.
Prints one CSV line per run: who, the case, bindings with the first and last binding time and
their rate, failed attempts ("Unable to schedule pod" log lines, real runs only) and their
rate (from the log's timestamps), the CPU times, and the load averages.
Skips (exit 0, one line) when the peers folder beside the repository (or $KUBESIM_PEERS) has no
kube-scheduler-v1.26.7.xz, unless --builtin-only.

"""
import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The oracles sit next to the repository (the steering repository's peers folder); KUBESIM_PEERS overrides it.
PEER = os.path.join(os.environ.get("KUBESIM_PEERS", os.path.join(REPO, "..", "shared", "peers")),
                    "kube-scheduler-v1.26.7.xz")
TICKS = os.sysconf("SC_CLK_TCK")


def write_inputs(d, nodes, pods, cpu):
    cluster = os.path.join(d, "cluster.yaml")
    with open(cluster, "w") as f:
        f.write("nodeGroups:\n  - name: node\n    count: %d\n    allocatable:\n"
                "      cpu: \"32\"\n      memory: 128Gi\n      pods: \"110\"\n" % nodes)
    workload = os.path.join(d, "workload.json")
    jobs = [{"id": str(i + 1), "subtime": 0, "walltime": 200000, "res": 1, "profile": "delay"} for i in range(pods)]
    profile = {"type": "delay", "delay": 100000}
    if cpu != "1":
        profile["cpu"] = cpu
    with open(workload, "w") as f:
        json.dump({"nb_res": nodes, "jobs": jobs, "profiles": {"delay": profile}}, f)
    return cluster, workload


def write_scheduler_config(d, qps, burst, pct, no_score=False):
    path = os.path.join(d, "sched.yaml")
    with open(path, "w") as f:
        f.write("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                "leaderElection:\n  leaderElect: false\n"
                "clientConnection:\n  kubeconfig: %s\n  contentType: application/json\n" % os.path.join(d, "kubeconfig"))
        if qps is not None:
            f.write("  qps: %s\n" % qps)
        if burst is not None:
            f.write("  burst: %s\n" % burst)
        if pct is not None:
            f.write("percentageOfNodesToScore: %d\n" % pct)
        if no_score:
            f.write("profiles:\n  - schedulerName: default-scheduler\n    plugins:\n      score:\n"
                    "        disabled:\n          - name: \"*\"\n")
    return path


def cpu_seconds(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)
    except OSError:
        return float("nan")


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def milli(cpu):
    return int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000)


def klog_seconds(line):
    # klog header: Lmmdd hh:mm:ss.uuuuuu ...
    hms = line.split(b" ", 2)[1].decode()
    h, m, sec = hms.split(":")
    return int(h) * 3600 + int(m) * 60 + float(sec)


def scheduler_log(path):
    """(binding log times, failed attempt log times) in seconds of the day."""
    bound, failed = [], []
    with open(path, "rb") as f:
        for line in f:
            if b"Successfully bound pod to node" in line:
                bound.append(klog_seconds(line))
            elif b"Unable to schedule pod" in line:
                failed.append(klog_seconds(line))
    return bound, failed


def binding_times(pods_csv):
    times = []
    with open(pods_csv) as f:
        for row in csv.DictReader(f):
            if row.get("scheduled") not in (None, "", "-"):
                times.append(float(row["scheduled"]))
    return sorted(times)


def rate_of(times):
    n = len(times)
    return (n - 1) / (times[-1] - times[0]) if n > 1 and times[-1] > times[0] else float("nan")


def summarise(who, args, nodes, times, failed, sched_cpu, serve_cpu, load_before, load_after):
    n = len(times)
    print("%s,%d,%d,%s,%s,%s,%s,%d,%.3f,%.3f,%.1f,%d,%.1f,%.2f,%.2f,%.2f,%.2f" % (
        who, nodes, args.pods, args.cpu, args.qps, args.burst, (str(args.pct) if args.pct is not None else "adaptive") + ("/no-score" if args.no_score else ""), n,
        times[0] if n else float("nan"), times[-1] if n else float("nan"), rate_of(times), len(failed),
        rate_of(failed), sched_cpu, serve_cpu, load_before, load_after), flush=True)


def raise_priority(increment):
    """preexec_fn: the measured process in a session of its own (with the kernel's autogroup
    scheduling, a session's CPU share is set by its autogroup's nice, not by the process's nice)
    at a higher priority than the background work, so other users' compiles distort the wall
    times less; ignored where not permitted."""
    def apply():
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write(str(increment))
        except OSError:
            pass
        try:
            os.nice(increment)
        except OSError:
            pass
    return apply


def run_real(args, scheduler_bin, nodes, d):
    cluster, workload = write_inputs(d, nodes, args.pods, args.cpu)
    config = write_scheduler_config(d, args.qps, args.burst, args.pct, args.no_score)
    # Pods that fit (cpus, then 110 pods a node) bind; each of the others fails once at least.
    fitting = min(args.pods, nodes * min(32000 // milli(args.cpu), 110))
    kubeconfig = os.path.join(d, "kubeconfig")
    out = os.path.join(d, "out")
    load_before = loadavg()
    serve = subprocess.Popen([args.kubesim, "serve", "--cluster", cluster, "--workload", workload,
                              "--clock", "realtime=1", "--builtin-scheduler", "off", "--port", "0",
                              "--kubeconfig", kubeconfig, "--out", out, "--keep-serving"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True, preexec_fn=raise_priority(args.nice))
    serve.stdout.readline()  # "serving the Kubernetes API on ..." once the kubeconfig exists
    log_path = os.path.join(d, "scheduler.log")
    with open(log_path, "w") as log:
        wrapper = [args.timeshim, "--speed", "1", "--"] if args.timeshim else []
        sched = subprocess.Popen(wrapper + [scheduler_bin, "--config", config, "--secure-port=0", "--v=2"],
                                 stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True, preexec_fn=raise_priority(args.nice))
    deadline = time.time() + args.timeout
    last_change, last_count = time.time(), -1
    while time.time() < deadline and sched.poll() is None and time.time() - last_change < 20:
        time.sleep(0.5)
        with open(log_path, "rb") as f:
            text = f.read()
        bound = text.count(b"Successfully bound pod to node")
        failed = text.count(b"Unable to schedule pod")
        if bound + failed != last_count:
            last_change, last_count = time.time(), bound + failed
        if bound >= fitting and failed >= args.pods - fitting:
            break
    sched_cpu = cpu_seconds(sched.pid)
    if args.timeshim:  # the shim's and the scheduler's (its child) CPU time
        with open("/proc/%d/task/%d/children" % (sched.pid, sched.pid)) as f:
            sched_cpu += sum(cpu_seconds(int(c)) for c in f.read().split())
    serve_cpu = cpu_seconds(serve.pid)
    load_after = loadavg()
    sched.send_signal(signal.SIGTERM)
    sched.wait()
    serve.send_signal(signal.SIGINT)
    serve.communicate(timeout=300)
    _, failed = scheduler_log(log_path)
    if args.keep:
        subprocess.run(["cp", "-r", d, args.keep + "-%d-%d" % (nodes, int(time.time()))])
    times = binding_times(os.path.join(out, "pods.csv"))
    summarise("real+timeshim" if args.timeshim else "real", args, nodes, times, failed, sched_cpu, serve_cpu,
              load_before, load_after)
    return rate_of(times)


def run_builtin(args, nodes, d, model=None):
    """Runs the built-in model (`model`: a model file) on the case; returns its binding rate."""
    cluster, workload = write_inputs(d, nodes, args.pods, args.cpu)
    cmd = [args.kubesim, "run", "--cluster", cluster, "--workload", workload, "--out", os.path.join(d, "model"),
           "--until", "1000", "--quiet"] + (["--model", model] if model else [])
    if args.qps is not None or args.pct is not None or args.no_score:
        cmd += ["--scheduler-config", write_scheduler_config(d, args.qps, args.burst, args.pct, args.no_score)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    times = binding_times(os.path.join(d, "model", "pods.csv"))
    summarise("model" + ("(fitted)" if model else ""), args, nodes, times, [], 0.0, 0.0, loadavg(), loadavg())
    return rate_of(times)


# The shipped model's split of the per-node cost (src/engine/model_config.cpp, realistic()):
# filtering 2.77 of 7.24 us per node, over the default profile's 5 modelled filter and 7 score
# plugins; the parallel part runs on min(parallelism 16, cores) cores.
FILTER_SHARE = 2.77 / 7.24
FILTER_PLUGINS, SCORE_PLUGINS = 5, 7


def nodes_scored(nodes, pct=None):
    """kube-scheduler v1.26's numFeasibleNodesToFind (pkg/scheduler/schedule_one.go): all nodes
    below 100; else the adaptive percentage 50 - nodes/125 (at least 5), at least 100 nodes."""
    if nodes < 100:
        return nodes
    p = pct if pct else max(50 - nodes // 125, 5)
    return max(nodes * p // 100, 100) if p < 100 else nodes


def least_squares(xs, ys):
    """(a, b) of y = a + b x; b = 0 (a the mean) with one distinct x."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    return my - b * mx, b


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def write_model(path, a, b, cores, header):
    """A model file for `kubesim run --model`: the realistic model with the fitted cycle."""
    with open(path, "w") as f:
        f.write(header)
        f.write("base: realistic\n")
        # The fixed part spread as the shipped one (1.05-2.05 ms around 1.55 ms).
        f.write("schedulingCycle: uniform:%.6g:%.6g\n" % (a * 1.05 / 1.55, a * 2.05 / 1.55))
        f.write("cyclePerFilteredNodePlugin: %.6g\n" % (b * FILTER_SHARE * cores / FILTER_PLUGINS))
        f.write("cyclePerScoredNodePlugin: %.6g\n" % (b * (1 - FILTER_SHARE) * cores / SCORE_PLUGINS))
        f.write("schedulerCores: %d\n" % cores)


def fit(args, measured):
    """measured: {nodes: [rates]}. Writes args.fit; returns {nodes: (measured, predicted)}."""
    sizes = sorted(measured)
    ks = [nodes_scored(n, args.pct) for n in sizes]
    target = [len(measured[n]) / sum(1 / r for r in measured[n]) for n in sizes]  # harmonic mean: mean time
    a, b = least_squares(ks, [1 / r for r in target])
    if b < 0:
        a, b = sum(1 / r for r in target) / len(target), 0.0
    cores = min(os.cpu_count() or 1, 16)
    header = ("# kube-scheduler's cycle fitted on this machine (%s, %d cores) by\n"
              "# scripts/measure-scheduler-throughput.py --fit: %s\n" % (cpu_model(), cores, ", ".join(
                  "%d nodes %.1f pods/s" % (n, r) for n, r in zip(sizes, target))))
    predicted = {}
    for _ in range(4):
        a = max(a, 1e-5)
        write_model(args.fit, a, b, cores, header + "# fixed part %.3f ms, %.3f us per node scored\n" % (a * 1e3, b * 1e6))
        predicted = {}
        for n in sizes:
            with tempfile.TemporaryDirectory(prefix="kubesim-throughput-") as d:
                predicted[n] = run_builtin(args, n, d, model=args.fit)
        if all(abs(predicted[n] / r - 1) <= 0.02 for n, r in zip(sizes, target)):
            break
        # The model's rate is not exactly 1 / t(K) (the pods bound so far, the jitter, the
        # client's rate limiter): move the line by the model's residuals.
        da, db = least_squares(ks, [1 / r - 1 / predicted[n] for n, r in zip(sizes, target)])
        a, b = a + da, max(b + db, 0.0)
    return {n: (r, predicted[n]) for n, r in zip(sizes, target)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kubesim", default=os.path.join(REPO, "build", "kubesim"))
    p.add_argument("--nodes", help="node counts (default 16,100,500,1000,5000; with --fit 1000,5000)")
    p.add_argument("--pods", type=int, default=10000)
    p.add_argument("--qps", default="5000", help="clientConnection.qps ('default': leave unset, 50)")
    p.add_argument("--burst", default="5000", help="clientConnection.burst ('default': leave unset, 100)")
    p.add_argument("--cpu", default="1", help="cpu request of each pod (a quantity)")
    p.add_argument("--keep", help="copy each real run's folder (logs, pods.csv) to KEEP-<nodes>-<time>")
    p.add_argument("--pct", type=int, default=None, help="percentageOfNodesToScore (default: unset, adaptive)")
    p.add_argument("--nice", type=int, default=-10, help="nice of serve's and the scheduler's sessions (negative: root only)")
    p.add_argument("--no-score", action="store_true", help="disable every score plugin (the filter's share)")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--timeout", type=float, default=600, help="wall seconds per real run")
    p.add_argument("--builtin-only", action="store_true", help="only the built-in model")
    p.add_argument("--timeshim", help="run the real scheduler under this kubesim-timeshim at --speed 1 "
                                      "(the shim's cost: its binding rate against the scheduler's alone)")
    p.add_argument("--fit", metavar="MODEL.yaml", help="fit the cycle to the real scheduler's rates and write this "
                                                       "model file (see above)")
    args = p.parse_args()
    args.nodes = args.nodes or ("1000,5000" if args.fit else "16,100,500,1000,5000")
    if args.fit and args.builtin_only:
        p.error("--fit needs the real scheduler (not --builtin-only)")
    args.qps = None if args.qps == "default" else args.qps
    args.burst = None if args.burst == "default" else args.burst
    scheduler_bin = None
    if not args.builtin_only:
        if not os.path.exists(PEER):
            print("skipped: the real kube-scheduler (%s) is absent" % os.path.normpath(PEER))
            return 0
        scheduler_bin = os.path.join(os.path.dirname(os.path.abspath(args.kubesim)), "kube-scheduler")
        if not os.path.exists(scheduler_bin):
            with open(scheduler_bin, "wb") as f:
                subprocess.run(["xz", "-dc", PEER], stdout=f, check=True)
            os.chmod(scheduler_bin, 0o755)
    print("who,nodes,pods,cpu,qps,burst,pct,bound,first_s,last_s,bound_per_s,failed,failed_per_s,sched_cpu_s,"
          "serve_cpu_s,load_before,load_after")
    measured = {}
    for nodes in [int(x) for x in args.nodes.split(",")]:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="kubesim-throughput-") as d:
                if scheduler_bin:
                    measured.setdefault(nodes, []).append(run_real(args, scheduler_bin, nodes, d))
            if not args.fit:
                with tempfile.TemporaryDirectory(prefix="kubesim-throughput-") as d:
                    run_builtin(args, nodes, d)
    if not args.fit:
        return 0
    if any(r != r or r <= 0 for rates in measured.values() for r in rates):  # NaN: fewer than two bindings
        print("error: a real run bound fewer than two pods; no fit (see --keep)", file=sys.stderr)
        return 1
    result = fit(args, measured)
    worst = 0.0
    for nodes, (real, model) in sorted(result.items()):
        error = (model / real - 1) * 100
        worst = max(worst, abs(error))
        print("fit: %d nodes: real %.1f pods/s, fitted model %.1f pods/s (%+.1f%%)" % (nodes, real, model, error))
    print("fit: wrote %s (kubesim run --model %s)" % (args.fit, args.fit))
    return 0 if worst <= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
