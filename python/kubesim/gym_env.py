"""The BSP gang study's RL environment with the Gymnasium API.

Observation, action and reward are those of the study's SimulatorEnv
(simulation/gang_scheduling/reinforcement.py, EvanW1999/Kube_Gang_Scheduling), computed in C++
(src/bsp/rl_env.hpp): action a in 0..A-1 (0 keeps the cpu shares, a > 0 re-plans them for the
next a steps and pays the checkpoint penalty); the observation is A x W: row a holds the
predicted supersteps of the next W steps under the shares action a would give, scaled as
(d - duration_low) / (duration_high - duration_low); the reward is (default_reward - penalty
if reconfigured - executed superstep + duration_high) / (duration_high - duration_low).

On the simulated cluster (scenario=PATH, a scenario with a bsp: section): each step's action
is executed by the scenario's BSP job beside its other tenants (src/study/bsp_cluster_env.hpp):
reset(seed=s) builds the simulation with seed s (None: the previous episode's seed + 1,
starting at 1) and launches the task pods with the starting shares; a reconfiguration
checkpoints, deletes the pods and waits for the new gang, and the reward charges the step's
real duration (penalty + deletion + gang wait + start-up + superstep). The info dict has
these parts; finish() returns the episode's output files as DataFrames (as run_scenario).
The same seed and actions give the same trajectory.

Gymnasium's API: reset(seed=None, options=None) -> (obs, info); step(action) -> (obs,
reward, terminated, truncated, info); observation_space = Box(0, 1, (A, W)) as the study
declares it (values may leave [0, 1], as there); action_space = Discrete(A). Gymnasium's space
classes are used when gymnasium is importable, else small stand-ins with the same fields.
"""
import numpy

from . import _kubesim

try:  # pragma: no cover - gymnasium is optional
    import gymnasium
    from gymnasium.spaces import Box, Discrete

    _Env = gymnasium.Env
except ImportError:
    gymnasium = None
    _Env = object

    class Discrete:
        """gymnasium.spaces.Discrete's fields: n, start, shape, dtype; sample(), contains()."""

        def __init__(self, n, start=0, seed=None):
            self.n, self.start, self.shape, self.dtype = int(n), int(start), (), numpy.int64
            self._rng = numpy.random.default_rng(seed)

        def seed(self, seed=None):
            self._rng = numpy.random.default_rng(seed)

        def sample(self):
            return int(self.start + self._rng.integers(self.n))

        def contains(self, x):
            return isinstance(x, (int, numpy.integer)) and self.start <= int(x) < self.start + self.n

        __contains__ = contains

    class Box:
        """gymnasium.spaces.Box's fields: low, high, shape, dtype; sample(), contains()."""

        def __init__(self, low, high, shape, dtype=numpy.float64, seed=None):
            self.shape, self.dtype = tuple(shape), numpy.dtype(dtype)
            self.low = numpy.full(self.shape, low, dtype=self.dtype)
            self.high = numpy.full(self.shape, high, dtype=self.dtype)
            self._rng = numpy.random.default_rng(seed)

        def seed(self, seed=None):
            self._rng = numpy.random.default_rng(seed)

        def sample(self):
            return self._rng.uniform(self.low, self.high).astype(self.dtype)

        def contains(self, x):
            x = numpy.asarray(x)
            return x.shape == self.shape and bool(numpy.all(x >= self.low) and numpy.all(x <= self.high))

        __contains__ = contains


class BspGangEnv(_Env):
    """SimulatorEnv(window_size=W, num_actions=A, duration_low, duration_high, default_reward,
    default_time_step, checkpoint_penalty) over the study's data (Evan's training defaults:
    W = 6, A = 4, default_reward 0, default_time_step 200; planner on forecasts, supersteps
    on actual). An episode is simulation_length (config.ini: 400) steps."""

    metadata = {"render_modes": []}

    def __init__(self, data="data/gang", window_size=6, num_actions=4, default_reward=0.0, default_time_step=200,
                 duration_low=75.0, duration_high=150.0, checkpoint_penalty=None, plan="forecasts", execute="actual",
                 simulation_length=None, scenario=None, model=""):
        settings = _kubesim.EnvSettings()
        settings.window_size = int(window_size)
        settings.num_actions = int(num_actions)
        settings.default_reward = float(default_reward)
        settings.default_time_step = int(default_time_step)
        settings.duration_low = float(duration_low)
        settings.duration_high = float(duration_high)
        self._cluster = scenario is not None
        self._seed = 0
        if self._cluster:
            # data, plan, execute, the penalty and the length come from the scenario's bsp: section.
            if checkpoint_penalty is not None or simulation_length is not None:
                raise ValueError("on the cluster, set checkpointPenalty and steps in the scenario's bsp: section")
            self._env = _kubesim.ClusterEnv(str(scenario), str(model), settings)
        else:
            self._env = _kubesim.StudyEnv(str(data), settings, plan, execute,
                                          -1.0 if checkpoint_penalty is None else float(checkpoint_penalty),
                                          0 if simulation_length is None else int(simulation_length))
        self._shape = (settings.num_actions, settings.window_size)
        self.action_space = Discrete(settings.num_actions)
        self.observation_space = Box(low=0, high=1, shape=self._shape, dtype=numpy.float64)
        self.render_mode = None

    def _observation(self, values):
        return numpy.asarray(values, dtype=numpy.float64).reshape(self._shape)

    def _info(self, **extra):
        info = {"time_step": self._env.time_step,
                "shares": dict(zip(self._env.task_names, self._env.current_config))}
        info.update(extra)
        return info

    def reset(self, *, seed=None, options=None):
        if gymnasium is not None:
            super().reset(seed=seed)
        elif seed is not None:
            self.action_space.seed(seed)
            self.observation_space.seed(seed)
        if not self._cluster:
            return self._observation(self._env.reset()), self._info()
        self._seed = int(seed) if seed is not None else self._seed + 1
        observation = self._env.reset(self._seed)
        return self._observation(observation), self._info(seed=self._seed, launch=self._env.launch)

    def step(self, action):
        if not self._cluster:
            observation, reward, done, superstep = self._env.step(int(action))
            return self._observation(observation), float(reward), bool(done), False, self._info(superstep=superstep)
        observation, reward, done, truncated, parts = self._env.step(int(action))
        return self._observation(observation), float(reward), bool(done), bool(truncated), self._info(**parts)

    def finish(self):
        """On the cluster, after the episode: its output files (jobs, pods, timeseries,
        bsp_steps, ...) as DataFrames, as kubesim.run_scenario returns them."""
        if not self._cluster:
            raise ValueError("finish() is for the environment on the cluster (scenario=...)")
        from . import frames
        return frames(self._env.finish())

    def render(self):
        return None

    def close(self):
        pass
