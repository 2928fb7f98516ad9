"""Python policies and the scheduling environment (issue 29), end to end and quick:
kubesim.run/compare with policies, the CLI's --policy (run, compare, serve, sweep and the plan's
pythonPolicies, a failing policy), waits
and preemptions, determinism, the environment and its vectorised form.

    PYTHONPATH=build/python python3 tests/python_policy/test_policies.py build/kubesim
"""
import os
import subprocess
import sys
import tempfile

import numpy

import kubesim

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SMALL = os.path.join(ROOT, "examples", "compare", "small.yaml")
BIN_PACKING = os.path.join(ROOT, "examples", "python-policy", "bin_packing.py")


class FirstFit(kubesim.Policy):
    def decide(self, pod, view):
        nodes = view.fitting_nodes(pod)
        return int(nodes[0]) if len(nodes) else None


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def test_run_deterministic_and_complete():
    a = dict(kubesim.run_files(SMALL, policies={"ff": FirstFit}, seed=3))
    b = dict(kubesim.run_files(SMALL, policies={"ff": FirstFit}, seed=3))
    check(a == b, "same seed, same outputs")
    check({"jobs.csv", "pods.csv", "summary.csv", "report.html"} <= set(a), "the run's usual outputs")
    jobs = a["jobs.csv"].splitlines()
    check(len(jobs) == 29 and all("COMPLETED_SUCCESSFULLY" in line for line in jobs[1:]), "every job completes")
    # The view's figures: a policy bound only where the pod fits, so no kubelet refused one.
    check("OutOf" not in a["pods.csv"], "no admission failure")


def test_view_arrays_and_errors():
    seen = {}

    class Probe(kubesim.Policy):
        def schedule(self, view):
            if not seen:
                seen["resources"] = view.resources
                seen["shape"] = view.allocatable.shape
                seen["pending"] = len(view.pending)
                seen["requests"] = view.pending_requests.shape
                check(not view.allocatable.flags.writeable, "read-only arrays")
                seen["view"] = view
            FirstFit.schedule(self, view)

        decide = FirstFit.decide

    kubesim.run_files(SMALL, policies={"probe": Probe})
    check(seen["resources"][:2] == ["cpu", "memory"], "cpu and memory columns first")
    check(seen["shape"][0] == 2 and seen["requests"] == (seen["pending"], len(seen["resources"])), "array shapes")
    try:
        seen["view"].now
        check(False, "a view used after its call raises")
    except RuntimeError:
        pass

    class Raises(kubesim.Policy):
        def decide(self, pod, view):
            raise KeyError("from the policy")

    try:
        kubesim.run_files(SMALL, policies={"r": Raises})
        check(False, "the policy's exception propagates")
    except KeyError as e:
        check("from the policy" in str(e), "its own exception")

    class BindsTwice(kubesim.Policy):
        def schedule(self, view):
            pod = int(view.pending[0])
            view.bind(pod, 0)
            view.bind(pod, 1)

    try:
        kubesim.run_files(SMALL, policies={"b": BindsTwice})
        check(False, "binding a pod twice raises")
    except ValueError as e:
        check("not pending" in str(e), str(e))


def test_wait_and_preempt():
    class Late(kubesim.Policy):
        """Places nothing before t = 50 s (asks to be called then)."""

        def schedule(self, view):
            if view.now < 50:
                view.retry_at(50)
                return
            FirstFit.schedule(self, view)

        decide = FirstFit.decide

    pods = kubesim.run(SMALL, policies={"late": Late}, model="ideal")["pods"]
    check(pods["scheduled"].min() >= 50, "no binding before the retry")

    class Evicts(kubesim.Policy):
        """First fit; at the first opportunity after t = 20 s, preempts one running pod."""

        done = False

        def schedule(self, view):
            if not self.done and view.now >= 20:
                for node in range(view.node_count):
                    on = view.pods_on(node)
                    if len(on):
                        view.preempt(int(on[0]))
                        self.done = True
                        break
            FirstFit.schedule(self, view)

        decide = FirstFit.decide

    run = dict(kubesim.run_files(SMALL, policies={"ev": Evicts}, model="ideal"))
    check("PreemptionByKubeScheduler" in run["pods.csv"] or ",Failed," in run["pods.csv"] or "Killed" in run["pods.csv"]
          or run["pods.csv"].count("\n") > 29, "a preempted pod is in pods.csv")


def test_platform_workload_run():
    run = dict(kubesim.run_files(platform=os.path.join(ROOT, "data", "batkube", "1node_6core.xml"),
                                 workload=os.path.join(ROOT, "data", "batkube", "200_delay170.json"),
                                 policies={"ff": FirstFit}, model="ideal"))
    check(run["jobs.csv"].count("COMPLETED_SUCCESSFULLY") == 200, "all 200 jobs of the Batsim workload")


def test_compare_python():
    summary = kubesim.compare(SMALL, "default-scheduler,ff", seeds=2, policies={"ff": FirstFit})["summary"]
    check(set(summary["scheduler"]) == {"default-scheduler", "ff"}, "both contenders")


def test_cli(binary):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        r = subprocess.run([binary, "run", "--scenario", SMALL, "--policy", "bf=" + BIN_PACKING + ":BestFit",
                            "--out", out, "--quiet"], capture_output=True, text=True)
        check(r.returncode == 0, r.stderr)
        same = dict(kubesim.run_files(SMALL, policies={"bf": _load_best_fit()}))
        with open(os.path.join(out, "jobs.csv")) as f:
            check(f.read() == same["jobs.csv"], "the CLI and the module give the same jobs.csv")
        bad = os.path.join(tmp, "bad.py")
        with open(bad, "w") as f:
            f.write("import kubesim\nclass Bad(kubesim.Policy):\n    def decide(self, pod, view):\n        return 1 // 0\n")
        out2 = os.path.join(tmp, "bad-run")
        r = subprocess.run([binary, "run", "--scenario", SMALL, "--policy", "x=" + bad + ":Bad", "--out", out2],
                           capture_output=True, text=True)
        check(r.returncode == 1, "exit 1 on a policy's exception")
        check("Traceback" in r.stderr and "ZeroDivisionError" in r.stderr and "bad.py\", line 4" in r.stderr, r.stderr)
        check(not os.path.exists(out2), "nothing written")
        r = subprocess.run([binary, "run", "--scenario", SMALL, "--policy", "x=" + bad + ":Missing", "--out", out2],
                           capture_output=True, text=True)
        check(r.returncode == 2 and "no class Missing" in r.stderr, r.stderr)
        out3 = os.path.join(tmp, "cmp")
        r = subprocess.run([binary, "compare", "--scenario", SMALL, "--seeds", "2", "--policy",
                            "best-fit=" + BIN_PACKING + ":BestFit", "--schedulers", "default-scheduler,best-fit",
                            "--out", out3, "--quiet"], capture_output=True, text=True)
        check(r.returncode == 0 and os.path.exists(os.path.join(out3, "best-fit", "seed-2", "jobs.csv")), r.stderr)


def _read(path):
    with open(path) as f:
        return f.read()


def test_cli_serve_sweep(binary):
    """serve (cosim) and sweep run a --policy as run does: the same jobs.csv for the same seed."""
    spec = "best-fit=" + BIN_PACKING + ":BestFit"
    with tempfile.TemporaryDirectory() as tmp:
        def kubesim_cli(*args):
            r = subprocess.run([binary, *args, "--quiet"], capture_output=True, text=True, timeout=60)
            check(r.returncode == 0, " ".join(args) + ": " + r.stderr)
        ref = os.path.join(tmp, "run")
        kubesim_cli("run", "--scenario", SMALL, "--policy", spec, "--seed", "1", "--out", ref)
        jobs = _read(os.path.join(ref, "jobs.csv"))
        kubesim_cli("serve", "--scenario", SMALL, "--policy", spec, "--seed", "1", "--clock", "cosim", "--port", "0",
                    "--out", os.path.join(tmp, "serve"))
        check(_read(os.path.join(tmp, "serve", "jobs.csv")) == jobs, "serve --policy gives run's jobs.csv")
        # The shipped plan: its pythonPolicies beside default-scheduler on the schedulers axis.
        plan = os.path.join(ROOT, "examples", "python-policy", "sweep-bin-packing.yaml")
        kubesim_cli("sweep", plan, "--out", os.path.join(tmp, "sweep"), "-j", "2")
        results = _read(os.path.join(tmp, "sweep", "results.csv"))
        cell = [line.split(",")[0] for line in results.splitlines() if ",best-fit,scenario,1," in line]
        check(len(cell) == 2 and ",default-scheduler,scenario,3," in results, results)
        check(_read(os.path.join(tmp, "sweep", "cells", cell[0], "jobs.csv")) == jobs, "the sweep's cell is run's")
        # No schedulers axis: the command line's --policy schedules every pod, as for run.
        bare = os.path.join(tmp, "bare.yaml")
        with open(bare, "w") as f:
            f.write("name: bare\nscenarios: [" + SMALL + "]\nseeds: [1]\ncollect: [jobs]\n")
        kubesim_cli("sweep", bare, "--policy", spec, "--out", os.path.join(tmp, "bare"))
        cells = os.listdir(os.path.join(tmp, "bare", "cells"))
        check(_read(os.path.join(tmp, "bare", "cells", cells[0], "jobs.csv")) == jobs, "sweep --policy is run --policy")
        r = subprocess.run([binary, "sweep", bare, "--policy", spec, "--emit", "k8s-indexed-job", "--out",
                            os.path.join(tmp, "emit")], capture_output=True, text=True)
        check(r.returncode == 2 and "pythonPolicies" in r.stderr and not os.path.exists(os.path.join(tmp, "emit")),
              r.stderr)
        with open(bare, "a") as f:
            f.write("pythonPolicies:\n  x: nowhere.py:X\n")
        r = subprocess.run([binary, "sweep", bare, "--out", os.path.join(tmp, "bad")], capture_output=True, text=True)
        check(r.returncode == 2 and "bare.yaml:6:" in r.stderr and "nowhere.py" in r.stderr, r.stderr)


def _load_best_fit():
    sys.path.insert(0, os.path.dirname(BIN_PACKING))
    from bin_packing import BestFit
    return BestFit


def test_env():
    env = kubesim.SchedulingEnv(SMALL, reward="slowdown")
    check(env.action_space.n == 3 and env.observation_space.shape == (4 * 4 + 2 * 2 + 2,), "spaces")

    def episode(seed):
        obs, info = env.reset(seed=seed)
        trace = [obs.tobytes()]
        done = info["ended"]
        while not done:
            mask = env.action_mask()
            obs, reward, terminated, truncated, info = env.step(int(numpy.flatnonzero(mask)[0]))
            trace.append((obs.tobytes(), reward))
            done = terminated or truncated
        return trace, env.finish_files()

    a, b = episode(5), episode(5)
    check(a == b, "same seed and actions, same trajectory and outputs")
    check(a[1][1] != "" and len(a[0]) > 28, "one step per pod at least")
    vec = kubesim.VectorSchedulingEnv(SMALL, 3, reward="waiting")
    obs, info = vec.reset(seed=1)
    check(obs.shape == (3, 22) and list(info["seeds"]) == [1, 2, 3], "vector reset")
    total = numpy.zeros(3)
    for _ in range(200):
        obs, rewards, terminated, truncated, info = vec.step(numpy.zeros(3, dtype=numpy.int64))
        total += rewards
    check(obs.shape == (3, 22) and numpy.all(total <= 0), "vector steps")
    try:
        kubesim.SchedulingEnv(SMALL, reward="speed")
        check(False, "an unknown reward is refused")
    except ValueError:
        pass


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "kubesim")
    for name, fn in sorted(globals().items()):
        if name.startswith("test_"):
            if name.startswith("test_cli"):
                fn(binary)
            else:
                fn()
            print("ok", name)


if __name__ == "__main__":
    main()
