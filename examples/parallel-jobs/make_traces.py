#!/usr/bin/env python3
"""Writes the two Batsim workloads of this folder (run from it; the files are shipped, this
only shows how they were made). deadlock.json: 16 one-machine jobs that free the 16 machines
one every 10 s, then jobs A and B of 12 machines each, no walltime. trace.json: 40 jobs,
exponential inter-arrival times (mean 25 s), 1 to 16 machines, run times 20-180 s, walltimes
0.8 to 3 times the run time (a walltime below the run time: killed at it)."""
import json
import random


def write(path, jobs, profiles):
    with open(path, "w") as f:
        f.write('{"nb_res": 16, "jobs": [\n')
        f.write(",\n".join("  " + json.dumps(j) for j in jobs))
        f.write('\n],\n"profiles": {\n')
        f.write(",\n".join(f'  "{k}": {json.dumps(v)}'
                           for k, v in sorted(profiles.items(), key=lambda kv: kv[1]["delay"])))
        f.write('\n}}\n')


jobs, profiles = [], {}
for i in range(16):
    d = 10 * (i + 1)
    profiles[f"d{d}"] = {"type": "delay", "delay": d}
    jobs.append({"id": f"s{i + 1}", "subtime": 0, "walltime": 200, "res": 1, "profile": f"d{d}"})
profiles["d30"] = {"type": "delay", "delay": 30}
jobs.append({"id": "A", "subtime": 1, "res": 12, "profile": "d30"})
jobs.append({"id": "B", "subtime": 2, "res": 12, "profile": "d30"})
write("deadlock.json", jobs, profiles)

rng = random.Random(13)
jobs, profiles = [], {}
t = 0.0
for i in range(40):
    t += round(rng.expovariate(1 / 25.0), 1)
    res = rng.choice([1, 1, 2, 2, 4, 4, 6, 8, 8, 12, 16])
    delay = rng.choice([20, 30, 40, 60, 90, 120, 180])
    over = rng.choice([1.0, 1.2, 1.5, 2.0, 2.0, 3.0, 0.8])
    profiles[f"d{delay}"] = {"type": "delay", "delay": delay}
    jobs.append({"id": str(i + 1), "subtime": round(t, 1), "walltime": round(delay * over), "res": res,
                 "profile": f"d{delay}"})
write("trace.json", jobs, profiles)
