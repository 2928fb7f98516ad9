#!/usr/bin/python3
"""The real scheduler-plugins v0.26.7 kube-scheduler on simulated time (issue 27), for ctest
(`real_scheduler_plugins`).

Usage: real_scheduler_plugins.py KUBESIM KUBESIM_TIMESHIM PEERS_DIR WORK_DIR
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository. Skips (exit 0,
one line) when PEERS_DIR/scheduler-plugins/kube-scheduler-scheduler-plugins-v0.26.7-linux-amd64.xz
is absent; unpacks it into WORK_DIR once.

Runs tests/peers/scheduler-plugins-case/sp-tenants.yaml twice at once, as a user would run it:
`kubesim serve --clock cosim --apply` of the CRDs and ElasticQuotas, `--scheduler-command` the
binary with the Helm chart's configuration, and `--cosim-write-gate all` (every request of the
scheduler, and every watch event, reaches it alone while it is blocked). Checks: every job
finishes, the scheduler logged its bindings, each run is at least 20x faster than simulated
time, and the two jobs.csv are byte for byte the same (docs/evidence/cosim.md, "The
scheduler-plugins binary", says what makes them so). Then once with `--cosim-go-map-draws
per-goroutine` (the binary's Go map walks draw a stream per goroutine; not repeatable, so
checked for its rewrite of runtime.mapiterinit and a run whose jobs all finish).
"""
import concurrent.futures
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EX = os.path.join(REPO, "tests", "peers", "scheduler-plugins-case")
sys.path.insert(0, HERE)
from run_peer_tests import check, failures  # noqa: E402
from real_scheduler import unpack_peer  # noqa: E402

PACKED = "scheduler-plugins/kube-scheduler-scheduler-plugins-v0.26.7-linux-amd64.xz"


def serve_command(kubesim, timeshim, binary, scenario, quotas, verbosity=2, gate="all"):
    """`kubesim serve` of SCENARIO with the binary as the Helm chart configures it (CRDs and
    QUOTAS applied at start), on simulated time with the write gate GATE (default: every write);
    callers add their own options. Run it in its output folder: with --config, kube-scheduler
    reads the kubeconfig the file names, the relative kubesim.kubeconfig, in serve's folder."""
    config = os.path.join(EX, "sp-scheduler-config.yaml")
    return [kubesim, "serve", "--scenario", scenario, "--model", "ideal", "--builtin-scheduler", "off",
            "--clock", "cosim", "--cosim-write-gate", gate, "--port", "0",
            "--apply", os.path.join(REPO, "examples", "crd", "podgroup-crd.yaml"),
            "--apply", os.path.join(EX, "sp-crds.yaml"), "--apply", quotas,
            "--out", "out", "--kubeconfig", "kubesim.kubeconfig", "--scheduler-log", "scheduler.log",
            "--timeshim", timeshim,
            "--scheduler-command", f"{binary} --config {config} --secure-port=0 --v={verbosity}"]


def run(kubesim, timeshim, binary, out, map_draws="pinned"):
    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    r = subprocess.run(serve_command(kubesim, timeshim, binary, os.path.join(EX, "sp-tenants.yaml"),
                                     os.path.join(EX, "sp-quotas.yaml"))
                       + ["--cosim-quiet-ms", "1", "--cosim-go-map-draws", map_draws],
                       cwd=out, capture_output=True, text=True, timeout=300)
    return r, time.monotonic() - t0


def figures(path):
    rows = list(csv.DictReader(open(path)))
    done = sum(1 for r in rows if r.get("final_state") == "COMPLETED_SUCCESSFULLY")
    makespan = max((float(r["finish_time"]) for r in rows if r.get("finish_time")), default=0.0)
    return len(rows), done, makespan


def main():
    kubesim, timeshim, peers, work = (os.path.abspath(a) if a != "-" else a for a in sys.argv[1:5])
    binary = unpack_peer(REPO, peers, PACKED, work, "sp-scheduler", "the real scheduler-plugins scheduler")
    if binary is None:
        return 0
    outs = [os.path.join(work, "sp-" + name) for name in ("first", "second")]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(run, kubesim, timeshim, binary, out) for out in outs]
    results = []
    for name, out, done_run in zip(("first", "second"), outs, runs):
        r, wall = done_run.result()
        jobs_csv = os.path.join(out, "out", "jobs.csv")
        jobs, done, makespan = figures(jobs_csv) if r.returncode == 0 else (0, 0, 0.0)
        log = open(os.path.join(out, "scheduler.log"), errors="replace").read() if os.path.exists(
            os.path.join(out, "scheduler.log")) else ""
        bound = log.count("Successfully bound pod to node")
        check(f"scheduler-plugins on simulated time ({name} run)",
              r.returncode == 0 and jobs > 0 and done == jobs and bound >= jobs and makespan >= 20 * wall,
              f"exit {r.returncode}; {done}/{jobs} jobs finished, {bound} bindings logged, makespan {makespan:.1f} s "
              f"in {wall:.1f} s wall ({makespan / wall if wall else 0:.1f}x); {r.stderr.strip()[-300:]}")
        results.append(open(jobs_csv, "rb").read() if r.returncode == 0 else name.encode())
    check("scheduler-plugins twice: identical jobs.csv", results[0] == results[1],
          f"{len(results[0].splitlines())} and {len(results[1].splitlines())} lines")
    shim = subprocess.run([timeshim, "--speed", "1", "--go-map-draws", "per-goroutine", "--verbose", "--", binary,
                           "--version"], capture_output=True, text=True, timeout=60)
    rewritten = "Go map walks draw per goroutine (2 sites)" in shim.stderr
    out = os.path.join(work, "sp-per-goroutine")
    r, wall = run(kubesim, timeshim, binary, out, "per-goroutine")
    jobs, done, makespan = figures(os.path.join(out, "out", "jobs.csv")) if r.returncode == 0 else (0, 0, 0.0)
    check("scheduler-plugins with map walks drawn per goroutine",
          shim.returncode == 0 and rewritten and r.returncode == 0 and jobs > 0 and done == jobs,
          f"mapiterinit's 2 draws {'rewritten' if rewritten else 'NOT rewritten'}; exit {r.returncode}; "
          f"{done}/{jobs} jobs finished in {wall:.1f} s wall; {r.stderr.strip()[-300:]}")
    print(f"{'FAIL' if failures else 'PASS'}: the real scheduler-plugins scheduler "
          f"({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
