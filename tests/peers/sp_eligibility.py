#!/usr/bin/python3
"""The built-in scheduler-plugins model against the real scheduler-plugins v0.26.7 kube-scheduler
on a case where CapacityScheduling's preemption eligibility decides when pods bind (issue 27,
differential test; ctest `sp_eligibility`).

Usage: sp_eligibility.py KUBESIM KUBESIM_TIMESHIM PEERS_DIR WORK_DIR
PEERS_DIR "-" means $KUBESIM_PEERS, else ../shared/peers beside the repository. Skips (exit 0,
one line) without the binary.

tests/peers/scheduler-plugins-case/sp-eligibility.yaml: backfill fills the cluster, tenant1's
pods preempt it one every 2 s, and the victims end one after another from 41 s. The binary
(serve --clock cosim, the Helm chart's configuration) binds six of tenant1's eight pods at
49 s and two at the next flush of its backoff queue, 57.5 s: when the first victim has gone,
the pods whose quota is over its min with the nominated pods counted lose their nomination
(CapacityScheduling's PodEligibleToPreemptOthers and "No victims found"), and serve must clear
status.nominatedNodeName on updatePod's patch for it. The model (`kubesim run`, latency model
ideal with the flush loops at a phase per seed, seeds 1-3) must bind as many pods before 50 s
and each pod, in order of binding, within 1 s of the binary's. Before either fix the binary
bound four at 45 s and the model four at 49 s, four at 57.6 s.
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASE = os.path.join(REPO, "tests", "peers", "scheduler-plugins-case")
sys.path.insert(0, HERE)
from run_peer_tests import check, failures  # noqa: E402
from real_scheduler import unpack_peer  # noqa: E402
from real_scheduler_plugins import serve_command  # noqa: E402

PACKED = "scheduler-plugins/kube-scheduler-scheduler-plugins-v0.26.7-linux-amd64.xz"
SCENARIO = os.path.join(CASE, "sp-eligibility.yaml")
QUOTAS = os.path.join(CASE, "sp-eligibility-quotas.yaml")
MODEL_SEEDS = (1, 2, 3)


def bind_times(pods_csv):
    """tenant1's scheduling times, in order."""
    return sorted(float(r["scheduled"]) for r in csv.DictReader(open(pods_csv))
                  if r["namespace"] == "tenant1" and r["scheduled"])


def run_binary(kubesim, timeshim, binary, out):
    os.makedirs(out, exist_ok=True)
    return subprocess.run(serve_command(kubesim, timeshim, binary, SCENARIO, QUOTAS),
                          cwd=out, capture_output=True, text=True, timeout=300)


def run_model(kubesim, work, seed):
    model_file = os.path.join(work, "sp-eligibility-model.yaml")
    with open(model_file, "w") as f:
        f.write("base: ideal\nqueueFlushPhase: random\n")
    out = os.path.join(work, f"sp-eligibility-model-{seed}")
    r = subprocess.run([kubesim, "run", "--scenario", SCENARIO, "--scheduler", "scheduler-plugins",
                        "--scheduler-config", QUOTAS, "--model", model_file, "--seed", str(seed), "--out", out,
                        "--quiet"], capture_output=True, text=True, timeout=120)
    return r, os.path.join(out, "pods.csv")


def main():
    kubesim, timeshim, peers, work = (os.path.abspath(a) if a != "-" else a for a in sys.argv[1:5])
    binary = unpack_peer(REPO, peers, PACKED, work, "sp-scheduler", "the real scheduler-plugins scheduler")
    if binary is None:
        return 0
    out = os.path.join(work, "sp-eligibility-binary")
    r = run_binary(kubesim, timeshim, binary, out)
    real = bind_times(os.path.join(out, "out", "pods.csv")) if r.returncode == 0 else []
    check("scheduler-plugins binary on sp-eligibility", r.returncode == 0 and len(real) == 8,
          f"exit {r.returncode}; {len(real)} of tenant1's 8 pods bound; {r.stderr.strip()[-300:]}")
    early = sum(1 for t in real if t < 50)
    for seed in MODEL_SEEDS:
        m, pods_csv = run_model(kubesim, work, seed)
        model = bind_times(pods_csv) if m.returncode == 0 else []
        close = len(model) == len(real) and all(abs(a - b) <= 1.0 for a, b in zip(model, real))
        check(f"model seed {seed} binds as the binary", m.returncode == 0 and close
              and sum(1 for t in model if t < 50) == early,
              "binary " + " ".join(f"{t:.2f}" for t in real) + " | model " + " ".join(f"{t:.2f}" for t in model)
              + (f"; {m.stderr.strip()[-300:]}" if m.returncode else ""))
    print(f"{'FAIL' if failures else 'PASS'}: scheduler-plugins model against the binary on sp-eligibility "
          f"({', '.join(failures) or 'all passed'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
