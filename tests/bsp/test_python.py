#!/usr/bin/env python3
"""The kubesim Python package (build/python on PYTHONPATH): the Gymnasium-API environment of
the BSP study driven by a scripted policy must add up to the study's recorded figures, a
scenario run must come back as DataFrames, and bad input must raise kubesim.InputError.

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


def bad_input():
    try:
        kubesim.run_scenario(os.path.join(ROOT, "tests", "bad", "scenario-bsp-short-trace.yaml"))
        check(False, "no error for a short trace")
    except kubesim.InputError as e:
        check("the trace is shorter than the run" in str(e), f"message: {e}")
    check(issubclass(kubesim.InputError, ValueError), "InputError is a ValueError")


for test in (lambda: scripted_static_window(3), lambda: scripted_static_window(1), observation_matches_definition,
             study_table_reproduces, scenario_frames, bad_input):
    test()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
