"""A learning loop on kubesim's Gymnasium environment, numpy only: the cross-entropy method
over a linear scoring policy, on examples/compare/small.yaml, against a random policy.

The agent places the pod at the head of the queue. For each node it scores the features
(cpu and memory the node would have left, in units of the largest node; whether the pod fits;
1) with weights w[0:4], and the wait action with w[4]; it takes the best. Each iteration
samples 16 weight vectors around the current mean, runs each on the training seeds, and moves
the mean to the best 4 (reward: minus the pods' waiting time, seconds). The learned weights
are then evaluated on other seeds beside a random policy (uniform over nodes and wait).

    PYTHONPATH=build/python python3 examples/python-gym/learn.py [--iterations 6]
"""
import argparse
import os

import numpy

import kubesim

here = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(here, "..", "compare", "small.yaml")


def choose(w, obs, nodes):
    cpu, mem = obs[0], obs[1]                     # the head pod's requests (the first window slot)
    free = obs[16:16 + 2 * nodes].reshape(nodes, 2)  # queue_window 4: 16 values before the nodes
    left = free - (cpu, mem)
    fits = numpy.all(left >= 0, axis=1)
    scores = left @ w[0:2] + fits * w[2] + w[3]
    best = int(numpy.argmax(scores))
    return best if scores[best] > w[4] else nodes  # nodes: the wait action


def episode(env, seed, act):
    obs, info = env.reset(seed=seed)
    total, done = 0.0, info["ended"]
    while not done:
        obs, reward, terminated, truncated, info = env.step(act(obs))
        total += reward
        done = terminated or truncated
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=6)
    args = parser.parse_args()
    env = kubesim.SchedulingEnv(SCENARIO, reward="waiting")
    nodes = env.node_count
    rng = numpy.random.default_rng(1)
    train, test = [1, 2], [11, 12, 13, 14]
    env.action_space.seed(7)
    random_return = numpy.mean([episode(env, s, lambda obs: env.action_space.sample()) for s in test])

    mean, std = numpy.zeros(5), numpy.ones(5)
    for it in range(args.iterations):
        population = mean + std * rng.standard_normal((16, 5))
        returns = [numpy.mean([episode(env, s, lambda obs: choose(w, obs, nodes)) for s in train]) for w in population]
        elite = population[numpy.argsort(returns)[-4:]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.05
        print("iteration %d: best training return %.1f, mean of the population %.1f" % (it, max(returns), numpy.mean(returns)))

    learned_return = numpy.mean([episode(env, s, lambda obs: choose(mean, obs, nodes)) for s in test])
    print("held-out seeds %s: random policy %.1f, learned policy %.1f (return: minus the waiting seconds)"
          % (test, random_return, learned_return))
    if not learned_return > random_return:
        raise SystemExit("the learned policy did not beat the random one")


if __name__ == "__main__":
    main()
