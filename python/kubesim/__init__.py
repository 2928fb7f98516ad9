"""kubesim from Python: run a scenario or a comparison and get pandas DataFrames, compute the
BSP gang study's table, and drive the study's RL environment (BspGangEnv, Gymnasium API).

    import kubesim
    run = kubesim.run_scenario("examples/bsp/e3-bsp.yaml", seed=1)
    run["jobs"], run["pods"], run["timeseries"], run["summary"], run["bsp_steps"]
    table, steps = kubesim.study_table("data/gang")
    run = kubesim.run_bsp_policy("examples/bsp/e3-bsp.yaml", lambda obs, info: 2, seed=1)

Errors in the input raise kubesim.InputError (a ValueError) with kubesim's one-line message.
"""
import io

import pandas

from . import _kubesim
from ._kubesim import InputError, __version__

__all__ = ["run_scenario", "run_bsp_policy", "compare", "study_table", "frames", "BspGangEnv", "InputError",
           "__version__"]


def frames(files):
    """{name without .csv: DataFrame} for the CSV files of [(name, content)]; other files
    (charts, report.html) under their full name as text."""
    out = {}
    for name, content in files:
        if name.endswith(".csv"):
            out[name[: -len(".csv")]] = pandas.read_csv(io.StringIO(content), skipinitialspace=True)
        else:
            out[name] = content
    return out


def run_scenario(path, seed=1, model=""):
    """Runs a scenario as `kubesim run --scenario PATH --seed SEED [--model MODEL]`: a dict of
    DataFrames (jobs, schedule, pods, timeseries, queue, summary, and with a bsp: job
    bsp_steps, bsp_summary, bsp_study) plus the charts and report.html as text."""
    return frames(_kubesim.run_scenario_files(str(path), int(seed), str(model)))


def compare(path, schedulers, seeds=5, model="", threads=1):
    """`kubesim compare --scenario PATH --schedulers LIST --seeds N`: summary, queue_times and
    each run's files ("<scheduler>/seed-<k>/jobs", ...) as DataFrames."""
    return frames(_kubesim.compare_scenario_files(str(path), str(schedulers), int(seeds), str(model), int(threads)))


def study_table(data="data/gang", plan="forecasts", execute="actual", steps=0, penalty=-1.0, horizon=0):
    """The BSP study's table in ideal mode (EXPPO, Static Window 1..H-1, Dynamic MPC) and its
    per-step record, as two DataFrames."""
    results, steps_csv = _kubesim.study_table(str(data), plan, execute, int(steps), float(penalty), int(horizon))
    return (pandas.read_csv(io.StringIO(results), skipinitialspace=True), pandas.read_csv(io.StringIO(steps_csv)))


from .gym_env import BspGangEnv  # noqa: E402


def run_bsp_policy(path, policy, seed=1, **env_options):
    """Runs a scenario with a bsp: job whose reconfigurations a Python controller decides:
    `policy(observation, info)` returns the action of each step (0 keeps the shares, a > 0
    re-plans them for a steps; BspGangEnv's observation and info). One episode of
    BspGangEnv(scenario=path, default_time_step=0, **env_options) on the simulated cluster
    with `seed`; returns its outputs as run_scenario does (bsp_steps, bsp_summary, jobs, ...)."""
    env_options.setdefault("default_time_step", 0)
    env = BspGangEnv(scenario=path, **env_options)
    observation, info = env.reset(seed=seed)
    terminated = truncated = False
    while not (terminated or truncated):
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
    return env.finish()
