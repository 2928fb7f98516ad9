#!/usr/bin/env python3
"""The kubesim Python package (build/python on PYTHONPATH): the Gymnasium-API environment of
the BSP study driven by a scripted policy must add up to the study's recorded figures; on the
simulated cluster it must be the study's on an ideal cluster and charge the real cost (the
same seed giving the same trajectory) on E3; a scenario run must come back as DataFrames, and
bad input must raise kubesim.InputError.

Usage (ctest sets PYTHONPATH): PYTHONPATH=build/python python3 tests/bsp/test_python.py"""
import math
import os
import sys

import numpy
import pandas

import kubesim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "data", "gang")
RECORDED = pandas.read_csv(os.path.join(DATA, "forecast_400_results.csv"), skipinitialspace=True).set_index(
    "Configuration Strategy")

passed = failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


def close(a, b):
    return abs(a - b) <= 1e-9 * abs(b)


def scripted_static_window(window):
    """Episode over steps 0..399 with the policy "re-plan for `window` steps every `window`
    steps": the study's Static Window controller. The rewards give back its supersteps."""
    env = kubesim.BspGangEnv(data=DATA, window_size=6, num_actions=window + 1, default_time_step=0)
    obs, info = env.reset(seed=7)
    check(obs.shape == (window + 1, 6) and obs.dtype == numpy.float64, f"observation shape {obs.shape}")
    check(env.observation_space.shape == (window + 1, 6), "observation_space shape")
    check(env.action_space.n == window + 1, "action_space.n")
    check(info["time_step"] == 0 and set(info["shares"].values()) == {1000}, f"reset info {info}")
    supersteps = 0.0
    reconfigurations = 0
    steps = 0
    terminated = False
    while not terminated:
        action = window if steps % window == 0 else 0
        check(env.action_space.contains(action), "action in action_space")
        obs, reward, terminated, truncated, info = env.step(action)
        check(not truncated, "never truncated")
        reconfigurations += action != 0
        # reward = (default_reward - 15 [if reconfigured] - superstep + 150) / 75
        superstep = 150.0 - 75.0 * reward - 15.0 * (action != 0)
        check(abs(superstep - info["superstep"]) < 1e-9, "reward gives back the superstep")
        supersteps += info["superstep"]
        steps += 1
    check(steps == 400, f"an episode is 400 steps, got {steps}")
    row = RECORDED.loc[f"Static Window {window}"]
    check(close(supersteps, row["Duration without Checkpoint Penalty"]),
          f"Static Window {window}: supersteps {supersteps!r} vs recorded {row['Duration without Checkpoint Penalty']!r}")
    # The environment also pays at step 0; the study's simulator does not count that one.
    check(reconfigurations - 1 == row["Number of Checkpoints"], f"Static Window {window} checkpoints")


def observation_matches_definition():
    """Row 0 of the observation uses the current shares: at reset, 1000 each, (d - 75) / 75."""
    env = kubesim.BspGangEnv(data=DATA)
    obs, _ = env.reset()
    check(obs.shape == (4, 6), "default observation shape (A=4, W=6)")
    table, steps = kubesim.study_table(DATA, steps=10)
    check(list(table["Configuration Strategy"])[0] == "EXPPO", "study_table rows")
    check(math.isfinite(float(obs.sum())), "finite observation")
    obs2, _ = env.reset()
    check(numpy.array_equal(obs, obs2), "reset is deterministic")


def study_table_reproduces():
    table, steps = kubesim.study_table(DATA)
    table = table.set_index("Configuration Strategy")
    for name, row in RECORDED.iterrows():
        check(close(table.loc[name, "Total Duration"], row["Total Duration"]), f"study_table {name}")
    check(len(steps) == 11 * 400, "study_table steps rows")


def scenario_frames():
    run = kubesim.run_scenario(os.path.join(ROOT, "examples", "bsp", "e3-bsp.yaml"), seed=1)
    for name in ("jobs", "pods", "timeseries", "summary", "bsp_steps", "bsp_summary", "bsp_study"):
        check(name in run and isinstance(run[name], pandas.DataFrame), f"run_scenario returns {name}")
    check(len(run["bsp_steps"]) == 40, "40 supersteps")
    check(run["bsp_summary"]["extra_cluster_cost_s"].iloc[0] > 0, "the cluster adds cost")
    again = kubesim.run_scenario(os.path.join(ROOT, "examples", "bsp", "e3-bsp.yaml"), seed=1)
    check(run["report.html"] == again["report.html"], "same seed, same report")


def scripted(step):
    """The scripted policy of the cluster tests: re-plan for 2 steps every 3 steps, else keep."""
    return 2 if step % 3 == 0 else 0


def episode(env, seed):
    """(observations, rewards, infos) of one episode of the scripted policy."""
    obs, info = env.reset(seed=seed)
    observations, rewards, infos = [obs], [], [info]
    terminated = truncated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(scripted(len(rewards)))
        observations.append(obs)
        rewards.append(reward)
        infos.append(info)
    return observations, rewards, infos


def cluster_env_ideal_is_the_study():
    """On the ideal cluster (examples/bsp/ideal.yaml: zero latencies, room for every plan) the
    environment on the cluster is the study's SimulatorEnv: same observations and rewards."""
    ideal = os.path.join(ROOT, "examples", "bsp", "ideal.yaml")
    on_cluster = episode(kubesim.BspGangEnv(scenario=ideal, default_time_step=0), 1)
    study = episode(kubesim.BspGangEnv(data=DATA, default_time_step=0), 1)
    check(len(on_cluster[1]) == 400, f"ideal cluster episode of 400 steps, got {len(on_cluster[1])}")
    check(on_cluster[1] == study[1], "ideal cluster: the study's rewards")
    check(all(numpy.array_equal(a, b) for a, b in zip(on_cluster[0], study[0])), "ideal cluster: the study's observations")
    check(all(i["deletion"] == 0 and i["gang_wait"] == 0 and i["startup"] == 0 for i in on_cluster[2][1:]),
          "ideal cluster: reconfigurations cost only the penalty")


def cluster_env_e3():
    """On E3 beside the three tenants: every reconfiguration costs more than the penalty, the
    reward charges it, and the same seed gives the same trajectory."""
    e3 = os.path.join(ROOT, "examples", "bsp", "e3-bsp.yaml")
    env = kubesim.BspGangEnv(scenario=e3, default_time_step=0)
    first = episode(env, 5)
    again = episode(env, 5)
    rewards, infos = first[1], first[2]
    check(len(rewards) == 40, f"E3 episode of 40 steps (bsp.steps), got {len(rewards)}")
    check(infos[0]["launch"]["startup"] > 0, "the launch waits for the pods' start-up")
    check(first[1] == again[1] and all(numpy.array_equal(a, b) for a, b in zip(first[0], again[0]))
          and first[2] == again[2], "same seed, same trajectory")
    for k, (reward, info) in enumerate(zip(rewards, infos[1:])):
        reconfigured = scripted(k) != 0
        cost = info["penalty"] + info["deletion"] + info["gang_wait"] + info["startup"] + info["superstep"]
        check(abs(reward - (150.0 - cost) / 75.0) < 1e-9, f"step {k}: reward charges the cluster's cost")
        check(info["penalty"] == (15.0 if reconfigured else 0.0), f"step {k}: penalty")
        if reconfigured:
            check(info["startup"] > 0 and info["deletion"] > 0, f"step {k}: the reconfiguration costs more than the penalty")
    files = env.finish()
    check(len(files["bsp_steps"]) == 40 and "report.html" in files, "finish() returns the run's outputs")
    # The same policy as a Python controller of the scenario's job: the same run.
    run = kubesim.run_bsp_policy(e3, lambda obs, info: scripted(info["time_step"]), seed=5)
    check(run["report.html"] == files["report.html"], "run_bsp_policy is the environment's episode")
    check(int(run["bsp_summary"]["checkpoints"].iloc[0]) == sum(scripted(k) != 0 for k in range(40)),
          "run_bsp_policy: one checkpoint per re-plan")


def bad_input():
    try:
        kubesim.run_scenario(os.path.join(ROOT, "tests", "bad", "scenario-bsp-short-trace.yaml"))
        check(False, "no error for a short trace")
    except kubesim.InputError as e:
        check("the trace is shorter than the run" in str(e), f"message: {e}")
    check(issubclass(kubesim.InputError, ValueError), "InputError is a ValueError")
    try:
        kubesim.BspGangEnv(scenario=os.path.join(ROOT, "examples", "multitenant", "e3.yaml"))
        check(False, "no error for an environment on a scenario without a bsp: job")
    except kubesim.InputError as e:
        check("needs a scenario with a bsp: section" in str(e), f"message: {e}")


for test in (lambda: scripted_static_window(3), lambda: scripted_static_window(1), observation_matches_definition,
             study_table_reproduces, scenario_frames, cluster_env_ideal_is_the_study, cluster_env_e3, bad_input):
    test()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
