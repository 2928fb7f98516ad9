"""kubesim from Python: run a scenario or a comparison and get pandas DataFrames, schedule with
your own policy (kubesim.Policy, kubesim.run(..., policies=...)), train an agent on any
scenario (SchedulingEnv, VectorSchedulingEnv: Gymnasium API), compute the BSP gang study's
table, and drive the study's RL environment (BspGangEnv).

    import kubesim
    run = kubesim.run("examples/multitenant/e2.yaml", policies={"my-sched": MyPolicy})
    run = kubesim.run_scenario("examples/bsp/e3-bsp.yaml", seed=1)
    run["jobs"], run["pods"], run["timeseries"], run["summary"], run["bsp_steps"]
    table, steps = kubesim.study_table("data/gang")
    run = kubesim.run_bsp_policy("examples/bsp/e3-bsp.yaml", lambda obs, info: 2, seed=1)

Errors in the input raise kubesim.InputError (a ValueError) with kubesim's one-line message.
"""
import io

from . import _kubesim
from ._kubesim import InputError, NativePolicy, SchedulingView, __version__
from .policy import Policy

__all__ = ["run", "run_files", "run_scenario", "run_bsp_policy", "compare", "study_table", "frames", "Policy",
           "SchedulingView", "NativePolicy", "SchedulingEnv", "VectorSchedulingEnv", "BspGangEnv", "InputError", "__version__"]


def frames(files):
    """{name without .csv: DataFrame} for the CSV files of [(name, content)]; other files
    (charts, report.html) under their full name as text."""
    import pandas  # only here: policies and environments do without it

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


def run_files(scenario=None, *, platform=None, cluster=None, workload=None, swf=None, scheduler_config=None,
              schedulers=None, policies=None, seed=1, model="", until=None):
    """As run(), but the output files as [(name, content)] (text), as `kubesim run` writes them."""
    return _kubesim.run_files(scenario=str(scenario or ""), platform=str(platform or ""), cluster=str(cluster or ""),
                              workload=str(workload or ""), swf=str(swf or ""),
                              scheduler_config=str(scheduler_config or ""), schedulers=str(schedulers or ""),
                              policies=dict(policies or {}), seed=int(seed), model=str(model),
                              until=-1.0 if until is None else float(until))


def run(scenario=None, *, platform=None, cluster=None, workload=None, swf=None, scheduler_config=None,
        schedulers=None, policies=None, seed=1, model="", until=None):
    """`kubesim run` (a scenario, or a cluster: platform/cluster and a workload: workload/swf)
    with Python policies {schedulerName: Policy class or instance} (kubesim.Policy) beside the
    built-in schedulers. `schedulers` ("A+B", as `run --scheduler`) may name the policies;
    when neither it nor the scenario's schedulers: names one, the policies are the run's
    schedulers (one policy: it schedules every pod). Returns the outputs as run_scenario does
    (DataFrames: jobs, schedule, pods, and with a scenario timeseries, queue, summary; charts
    and report.html as text)."""
    return frames(run_files(scenario, platform=platform, cluster=cluster, workload=workload, swf=swf,
                            scheduler_config=scheduler_config, schedulers=schedulers, policies=policies, seed=seed,
                            model=model, until=until))


def compare(path, schedulers, seeds=5, model="", threads=1, policies=None):
    """`kubesim compare --scenario PATH --schedulers LIST --seeds N`: summary, queue_times and
    each run's files ("<scheduler>/seed-<k>/jobs", ...) as DataFrames. `policies`
    {schedulerName: Policy class or instance}: contenders the list may name."""
    return frames(_kubesim.compare_scenario_files(str(path), str(schedulers), int(seeds), str(model), int(threads),
                                                  dict(policies or {})))


def study_table(data="data/gang", plan="forecasts", execute="actual", steps=0, penalty=-1.0, horizon=0):
    """The BSP study's table in ideal mode (EXPPO, Static Window 1..H-1, Dynamic MPC) and its
    per-step record, as two DataFrames."""
    import pandas

    results, steps_csv = _kubesim.study_table(str(data), plan, execute, int(steps), float(penalty), int(horizon))
    return (pandas.read_csv(io.StringIO(results), skipinitialspace=True), pandas.read_csv(io.StringIO(steps_csv)))




def __getattr__(name):
    # The environments need numpy: imported when first used, so that `import kubesim` (runs,
    # policies without arrays) works in an environment without it.
    if name == "BspGangEnv":
        from .gym_env import BspGangEnv
        return BspGangEnv
    if name in ("SchedulingEnv", "VectorSchedulingEnv"):
        from . import scheduling_env
        return getattr(scheduling_env, name)
    raise AttributeError("module 'kubesim' has no attribute %r" % name)


def run_bsp_policy(path, policy, seed=1, **env_options):
    """Runs a scenario with a bsp: job whose reconfigurations a Python controller decides:
    `policy(observation, info)` returns the action of each step (0 keeps the shares, a > 0
    re-plans them for a steps; BspGangEnv's observation and info). One episode of
    BspGangEnv(scenario=path, default_time_step=0, **env_options) on the simulated cluster
    with `seed`; returns its outputs as run_scenario does (bsp_steps, bsp_summary, jobs, ...)."""
    env_options.setdefault("default_time_step", 0)
    from .gym_env import BspGangEnv

    env = BspGangEnv(scenario=path, **env_options)
    observation, info = env.reset(seed=seed)
    terminated = truncated = False
    while not (terminated or truncated):
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
    return env.finish()
