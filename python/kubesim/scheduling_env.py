"""A Gymnasium environment for any kubesim run: the agent is the cluster's scheduler.

    env = kubesim.SchedulingEnv("examples/multitenant/e2.yaml", reward="waiting")
    obs, info = env.reset(seed=1)
    while True:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    run = env.finish()          # the episode's outputs as kubesim.run returns them

Each step places the pod at the head of the scheduler's queue: action n (0 .. nodes-1) binds it
to node n, action ``nodes`` waits (no placement until the cluster next changes: a pod ends, a
pod arrives, a node changes). A node the pod does not fit counts as a wait, with
``info["invalid"]`` True; ``env.action_mask()`` gives the valid actions (MaskablePPO's
``action_masks`` convention). Between steps the simulation runs until a scheduling
opportunity with pods pending (src/study/scheduling_env/scheduling_env.hpp).

Observation (float32, shape (4 * queue_window + 2 * nodes + 2,)): for each of the first
``queue_window`` pending pods its cpu and memory requests over the largest node's allocatable,
its wait so far over ``time_scale`` seconds, and 1 (zeros for an empty slot); each node's free
cpu and memory over the largest node's allocatable; the number of pending pods and of pods on
nodes. Reward (``reward=``), accumulated over the simulated time since the previous step:
"waiting" (minus the pending pods' summed wait, seconds), "utilisation" (integral of the
requested cpu fraction, seconds), "slowdown" (minus the summed wait / run time of the pending
pods: an episode's total is minus the sum of (slowdown - 1) over the pods), times
``reward_scale``. Terminated when nothing can change any more; truncated at ``until`` seconds
or after ``max_steps`` steps.

Which pods: the agent serves schedulerName ``scheduler_name`` ("agent"); unless
``schedulers`` ("A+B") or the scenario's schedulers: name it, it schedules every pod.

Determinism: reset(seed=s) builds a fresh simulation with seed s (None: the previous
episode's seed + 1, from 1); the same seed and actions give the same trajectory and outputs.

Gymnasium's API (reset(seed=None, options=None) -> (obs, info); step(a) -> (obs, reward,
terminated, truncated, info); observation_space Box(0, inf), action_space Discrete(nodes + 1)).
When gymnasium is installed the classes derive from gymnasium.Env / gymnasium.vector.VectorEnv
and use its spaces; otherwise from a minimal stand-in with the same fields (gym_env.py).

VectorSchedulingEnv(num_envs, ...) steps num_envs environments in one C++ call: reset(seed=s)
seeds them s, s+1, ...; step(actions) returns batched arrays; an environment that ended is
reset at its next step (Gymnasium 1.0's next-step autoreset: that step's action is ignored
and its reward is 0), its seed advanced by num_envs.
"""
import numpy

from . import _kubesim
from .gym_env import Box, Discrete, _Env, gymnasium

try:  # pragma: no cover - gymnasium is optional
    from gymnasium.vector import VectorEnv as _VectorEnv
except ImportError:
    _VectorEnv = object

__all__ = ["SchedulingEnv", "VectorSchedulingEnv"]


def _options(scenario, platform, cluster, workload, swf, scheduler_config, model, schedulers, scheduler_name,
             queue_window, reward, reward_scale, time_scale, until, max_steps):
    if reward not in ("waiting", "utilisation", "utilization", "slowdown"):
        raise ValueError("reward: expected waiting, utilisation or slowdown, got %r" % (reward,))
    return {"scenario": str(scenario or ""), "platform": str(platform or ""), "cluster": str(cluster or ""),
            "workload": str(workload or ""), "swf": str(swf or ""), "scheduler_config": str(scheduler_config or ""),
            "model": str(model), "schedulers": str(schedulers or ""), "scheduler_name": str(scheduler_name),
            "queue_window": int(queue_window), "reward": reward, "reward_scale": float(reward_scale),
            "time_scale": float(time_scale), "until": -1.0 if until is None else float(until),
            "max_steps": int(max_steps or 0)}


class SchedulingEnv(_Env):
    """The agent schedules a run's pods one at a time (see the module's documentation)."""

    metadata = {"render_modes": []}

    def __init__(self, scenario=None, *, platform=None, cluster=None, workload=None, swf=None, scheduler_config=None,
                 model="", schedulers=None, scheduler_name="agent", queue_window=4, reward="waiting",
                 reward_scale=1.0, time_scale=60.0, until=None, max_steps=None):
        self._env = _kubesim.SchedulingEnv(_options(scenario, platform, cluster, workload, swf, scheduler_config, model,
                                                    schedulers, scheduler_name, queue_window, reward, reward_scale,
                                                    time_scale, until, max_steps))
        self.node_count = self._env.node_count
        self.action_space = Discrete(self.node_count + 1)
        self.observation_space = Box(low=0.0, high=numpy.inf, shape=(self._env.observation_size,), dtype=numpy.float32)
        self.render_mode = None
        self._seed = 0

    @property
    def wait_action(self):
        """The action that places nothing until the cluster changes."""
        return self.node_count


    def reset(self, *, seed=None, options=None):
        if gymnasium is not None:
            super().reset(seed=seed)
        elif seed is not None:
            self.action_space.seed(seed)
        self._seed = int(seed) if seed is not None else self._seed + 1
        obs, (_, terminated, truncated, _) = self._env.reset(self._seed)
        # ended: no decision at all in this episode
        return obs, {"time": self._env.now, "pending": self._env.pending, "invalid": False, "seed": self._seed,
                     "ended": bool(terminated or truncated)}

    def step(self, action):
        obs, reward, terminated, truncated, invalid, now, pending = self._env.step(int(action))
        return obs, reward, terminated, truncated, {"time": now, "pending": pending, "invalid": invalid,
                                                    "seed": self._seed}

    def action_mask(self):
        """uint8 (nodes + 1,): 1 for the nodes the head pod fits, and the wait action."""
        return self._env.action_mask()

    action_masks = action_mask

    def finish(self):
        """After the episode: its outputs (jobs, pods, timeseries, summary, ...) as kubesim.run returns them."""
        from . import frames
        return frames(self._env.finish())

    def finish_files(self):
        """As finish(), the files as [(name, content)] text."""
        return self._env.finish()

    def render(self):
        return None

    def close(self):
        pass


class VectorSchedulingEnv(_VectorEnv):
    """num_envs SchedulingEnvs stepped together in C++ (see the module's documentation)."""

    metadata = {"render_modes": [], "autoreset_mode": "NextStep"}

    def __init__(self, scenario=None, num_envs=8, *, platform=None, cluster=None, workload=None, swf=None,
                 scheduler_config=None, model="", schedulers=None, scheduler_name="agent", queue_window=4,
                 reward="waiting", reward_scale=1.0, time_scale=60.0, until=None, max_steps=None):
        self._env = _kubesim.VectorSchedulingEnv(
            _options(scenario, platform, cluster, workload, swf, scheduler_config, model, schedulers, scheduler_name,
                     queue_window, reward, reward_scale, time_scale, until, max_steps), int(num_envs))
        self.num_envs = self._env.num_envs
        self.node_count = self._env.node_count
        size = self._env.observation_size
        self.single_action_space = Discrete(self.node_count + 1)
        self.single_observation_space = Box(low=0.0, high=numpy.inf, shape=(size,), dtype=numpy.float32)
        self.observation_space = Box(low=0.0, high=numpy.inf, shape=(self.num_envs, size), dtype=numpy.float32)
        if gymnasium is not None:
            from gymnasium.spaces import MultiDiscrete
            self.action_space = MultiDiscrete([self.node_count + 1] * self.num_envs)
        else:
            self.action_space = None  # sample from single_action_space per environment
        self.render_mode = None
        self._seed = 0

    def reset(self, *, seed=None, options=None):
        self._seed = int(seed) if seed is not None else self._seed + self.num_envs
        obs, ended = self._env.reset(self._seed)
        return obs, {"seeds": numpy.asarray(self._env.seeds), "ended": ended}

    def step(self, actions):
        obs, rewards, terminated, truncated, invalid = self._env.step(numpy.asarray(actions, dtype=numpy.int64))
        return obs, rewards, terminated, truncated, {"invalid": invalid}

    def action_masks(self):
        """uint8 (num_envs, nodes + 1): each environment's valid actions."""
        return self._env.action_masks()

    def close(self, **kwargs):
        pass
