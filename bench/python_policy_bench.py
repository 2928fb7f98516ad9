"""Figures for Python policies and the scheduling environment (issue 29's conditions):

1. A Python policy's cost per scheduling decision beyond kubesim's own work: a scenario of
   N pods (default 200,000; one tenant stream, a pod every 0.05 s on 100 nodes) scheduled by
   first fit written in Python (view.fitting_nodes, view.bind) and by the same first fit in
   C++ (kubesim.NativePolicy("first-fit")): the same decisions, so the same simulation; the
   difference of the wall times over the decisions is everything the Python path adds (the
   call, the view, the Python loop, the crossings), an upper bound of the overhead beyond the
   policy's own code. Both runs are repeated and their medians compared; the outputs are
   checked to be identical.
2. Gymnasium steps per second on one core with trivial policies (always node 0; the first
   valid action from action_mask()), episodes back to back, resets included, and the
   vectorised form, on a Batsim workload of bare pods and on the scenario e2 (Jobs: the Job
   controller's work per pod makes it slower), both with the ideal latency model.

Times are the process's CPU time (time.process_time: one core's work, not inflated when the
machine is shared; the simulation and the policies run on the calling thread).

    PYTHONPATH=build/python python3 bench/python_policy_bench.py [--pods 200000] [--repeat 3]
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy

import kubesim

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


class PythonFirstFit(kubesim.Policy):
    def schedule(self, view):
        for pod in view.pending.tolist():
            nodes = view.fitting_nodes(pod)
            if len(nodes):
                view.bind(pod, int(nodes[0]))


def scenario_file(folder, pods):
    path = os.path.join(folder, "stream.yaml")
    with open(path, "w") as f:
        f.write("name: policy-bench\ncluster: {nodes: 100, cpu: 32, memory: 128Gi, pods: 110}\nmodel: ideal\n"
                "tenants:\n  - namespace: t1\n    streams: [{start: 0, cpu: 1, memory: 1G, jobs: %d, sleep: 10, "
                "interval: 0.05}]\n" % pods)
    return path


def timed_run(path, policy):
    start = time.process_time()
    files = kubesim.run_files(path, policies={"p": policy})
    return time.process_time() - start, dict(files)


def policy_figures(pods, repeat):
    with tempfile.TemporaryDirectory() as folder:
        path = scenario_file(folder, pods)
        native, python = [], []
        for _ in range(repeat):  # interleaved, so that the machine's load hits both alike
            t, native_files = timed_run(path, kubesim.NativePolicy("first-fit"))
            native.append(t)
            t, python_files = timed_run(path, PythonFirstFit)
            python.append(t)
        same = native_files["jobs.csv"] == python_files["jobs.csv"] and native_files["pods.csv"] == python_files["pods.csv"]
        decisions = python_files["pods.csv"].count("\n") - 1
    n, p = statistics.median(native), statistics.median(python)
    print("policy: %d pods, %d decisions; C++ first fit %.2f s, Python first fit %.2f s CPU (medians of %d); "
          "outputs identical: %s" % (pods, decisions, n, p, repeat, same))
    print("policy: the Python path costs %.2f us per decision beyond kubesim's own work (limit 20 us)"
          % ((p - n) / decisions * 1e6))


def env_run(env, act, steps):
    done, seed, n = True, 0, 0
    start = time.process_time()
    while n < steps:
        if done:
            seed += 1
            _, info = env.reset(seed=seed)
            done = info["ended"]
            continue
        _, _, terminated, truncated, _ = env.step(act(env))
        done = terminated or truncated
        n += 1
    wall = time.process_time() - start
    return n / wall, seed


def env_figures(steps):
    runs = (("Batsim workload (200 bare pods, 16 nodes)",
             dict(platform=os.path.join(ROOT, "data", "batkube", "platform_graphene_16nodes.xml"),
                  workload=os.path.join(ROOT, "data", "batkube", "spaced_200_delay170.json"))),
            ("scenario e2 (377 Jobs of 3 tenants)", dict(scenario=os.path.join(ROOT, "examples", "multitenant", "e2.yaml"))))
    for title, files in runs:
        for name, act in (("always node 0", lambda env: 0),
                          ("first valid action", lambda env: int(numpy.flatnonzero(env.action_mask())[0]))):
            rate, episodes = env_run(kubesim.SchedulingEnv(model="ideal", **files), act, steps)
            print("env: %s, %s: %.0f steps/s (%d episodes, resets included)" % (title, name, rate, episodes))
        vec = kubesim.VectorSchedulingEnv(num_envs=16, model="ideal", **files)
        vec.reset(seed=1)
        actions = numpy.zeros(16, dtype=numpy.int64)
        rounds = max(1, steps // 16)
        start = time.process_time()
        for _ in range(rounds):
            vec.step(actions)
        print("env: %s, vectorised (16 environments), always node 0: %.0f steps/s"
              % (title, rounds * 16 / (time.process_time() - start)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pods", type=int, default=200000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200000)
    args = parser.parse_args()
    policy_figures(args.pods, args.repeat)
    env_figures(args.steps)


if __name__ == "__main__":
    main()
