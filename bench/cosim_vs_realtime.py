#!/usr/bin/python3
"""Co-simulation vs real time with the real kube-scheduler (issue 12's benchmark).

Usage: cosim_vs_realtime.py KUBESIM KUBE_SCHEDULER [--workload W] [--platform P]
                            [--realtime-out DIR] [--cosim-hold frozen|paced] [--out DIR]
                            [--timeshim build/kubesim-timeshim]

Runs `kubesim serve --clock cosim --model ideal --builtin-scheduler off` with the real binary
as the scheduler, and the same with `--clock realtime=1` (about 38 min for the default, the
Batkube spaced workload; `--realtime-out DIR` reuses the outputs of an earlier real-time run
of this script, DIR/out/jobs.csv and DIR/wall), and `kubesim run` (the built-in model). Prints
per run: pods finished, makespan, mean wait, p90/p99/max wait, wall time; then cosim vs
realtime: the relative differences and the speed ratio (realtime wall / cosim wall), and the
machine's load average (the machine may be shared: the speed figures depend on it).
"""
import argparse
import csv
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "peers"))
import real_scheduler  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def figures(jobs_csv):
    rows = list(csv.DictReader(open(jobs_csv)))
    done = [r for r in rows if r["final_state"] == "COMPLETED_SUCCESSFULLY"]
    waits = sorted(float(r["waiting_time"]) for r in done)
    n = len(waits)
    pct = lambda q: waits[min(n - 1, int(q * n))] if n else float("nan")
    return {
        "jobs": len(rows), "finished": n,
        "makespan": max(float(r["finish_time"]) for r in done) if n else float("nan"),
        "mean_wait": sum(waits) / n if n else float("nan"),
        "p90": pct(0.90), "p99": pct(0.99), "max_wait": waits[-1] if n else float("nan"),
    }


def show(label, f, wall):
    print(f"{label:10s} finished {f['finished']}/{f['jobs']}  makespan {f['makespan']:.1f} s  mean wait {f['mean_wait']:.2f} s  "
          f"p90 {f['p90']:.1f}  p99 {f['p99']:.1f}  max {f['max_wait']:.1f} s  wall {wall:.1f} s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kubesim")
    ap.add_argument("scheduler")
    ap.add_argument("--workload", default=os.path.join(REPO, "data/batkube/spaced_200_delay170.json"))
    ap.add_argument("--platform", default=os.path.join(REPO, "data/batkube/platform_graphene_16nodes.xml"))
    ap.add_argument("--realtime-out")
    ap.add_argument("--cosim-hold", default="frozen")
    ap.add_argument("--out", default="/tmp/kubesim-cosim-bench")
    ap.add_argument("--timeshim", help="kubesim-timeshim: run the cosim run's scheduler on simulated time "
                                       "(serve --scheduler-command) instead of on its wall clock")
    a = ap.parse_args()
    common = ["--platform", a.platform, "--workload", a.workload, "--model", "ideal", "--builtin-scheduler", "off"]

    builtin_out = os.path.join(a.out, "builtin")
    t0 = time.monotonic()
    subprocess.run([a.kubesim, "run", "--platform", a.platform, "--workload", a.workload, "--model", "ideal",
                    "--out", builtin_out, "--quiet"], check=True)
    show("built-in", figures(os.path.join(builtin_out, "jobs.csv")), time.monotonic() - t0)

    cosim_dir = os.path.join(a.out, "cosim")
    if a.timeshim:
        # The scheduler on simulated time: serve starts it under kubesim-timeshim.
        os.makedirs(cosim_dir, exist_ok=True)
        command = " ".join(real_scheduler.scheduler_command(a.scheduler, "{kubeconfig}"))
        t0 = time.monotonic()
        status = subprocess.run([a.kubesim, "serve", *common, "--clock", "cosim", "--cosim-quiet-ms", "1", "--port", "0",
                                 "--kubeconfig", os.path.join(cosim_dir, "kubeconfig"), "--out",
                                 os.path.join(cosim_dir, "out"), "--scheduler-log", os.path.join(cosim_dir, "scheduler.log"),
                                 "--timeshim", a.timeshim, "--scheduler-command", command],
                                stdout=subprocess.DEVNULL).returncode
        cosim_wall = time.monotonic() - t0
    else:
        status, cosim_wall = real_scheduler.run_pair(a.kubesim, a.scheduler, cosim_dir,
                                                     common + ["--clock", "cosim", "--cosim-hold", a.cosim_hold])
    if status != 0:
        sys.exit(f"cosim run failed (exit {status}), see {cosim_dir}")
    cosim = figures(os.path.join(cosim_dir, "out", "jobs.csv"))
    show("cosim", cosim, cosim_wall)

    if a.realtime_out:
        rt_dir = a.realtime_out
        rt_wall = float(open(os.path.join(rt_dir, "wall")).read())
    else:
        rt_dir = os.path.join(a.out, "realtime")
        status, rt_wall = real_scheduler.run_pair(a.kubesim, a.scheduler, rt_dir, common + ["--clock", "realtime=1"])
        if status != 0:
            sys.exit(f"realtime run failed (exit {status}), see {rt_dir}")
        with open(os.path.join(rt_dir, "wall"), "w") as f:
            f.write(f"{rt_wall:.3f}\n")
    rt = figures(os.path.join(rt_dir, "out", "jobs.csv"))
    show("realtime=1", rt, rt_wall)

    rel = lambda k: (cosim[k] - rt[k]) / rt[k] * 100
    print(f"cosim vs realtime: makespan {rel('makespan'):+.2f}%  mean wait {rel('mean_wait'):+.2f}%  "
          f"p99 wait {rel('p99'):+.1f}%  max wait {rel('max_wait'):+.1f}%  speed-up {rt_wall / cosim_wall:.1f}x")
    print(f"load average (1, 5, 15 min): {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cpus")


if __name__ == "__main__":
    main()
