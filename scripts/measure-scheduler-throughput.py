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
      [--timeshim build/kubesim-timeshim]
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
    summarise("real+timeshim" if args.timeshim else "real", args, nodes, binding_times(os.path.join(out, "pods.csv")), failed, sched_cpu, serve_cpu,
              load_before, load_after)


def run_builtin(args, nodes, d):
    cluster, workload = write_inputs(d, nodes, args.pods, args.cpu)
    cmd = [args.kubesim, "run", "--cluster", cluster, "--workload", workload, "--out", os.path.join(d, "model"),
           "--until", "1000", "--quiet"]
    if args.qps is not None or args.pct is not None or args.no_score:
        cmd += ["--scheduler-config", write_scheduler_config(d, args.qps, args.burst, args.pct, args.no_score)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    summarise("model", args, nodes, binding_times(os.path.join(d, "model", "pods.csv")), [], 0.0, 0.0, loadavg(),
              loadavg())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kubesim", default=os.path.join(REPO, "build", "kubesim"))
    p.add_argument("--nodes", default="16,100,500,1000,5000")
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
    args = p.parse_args()
    args.qps = None if args.qps == "default" else args.qps
    args.burst = None if args.burst == "default" else args.burst
    scheduler_bin = None
    if not args.builtin_only:
        if not os.path.exists(PEER):
            print("skipped: the real kube-scheduler (%s) is absent" % os.path.normpath(PEER))
            return 0
        scheduler_bin = os.path.join(REPO, "build", "kube-scheduler")
        if not os.path.exists(scheduler_bin):
            with open(scheduler_bin, "wb") as f:
                subprocess.run(["xz", "-dc", PEER], stdout=f, check=True)
            os.chmod(scheduler_bin, 0o755)
    print("who,nodes,pods,cpu,qps,burst,pct,bound,first_s,last_s,bound_per_s,failed,failed_per_s,sched_cpu_s,"
          "serve_cpu_s,load_before,load_after")
    for nodes in [int(x) for x in args.nodes.split(",")]:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="kubesim-throughput-") as d:
                if scheduler_bin:
                    run_real(args, scheduler_bin, nodes, d)
            with tempfile.TemporaryDirectory(prefix="kubesim-throughput-") as d:
                run_builtin(args, nodes, d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
