#!/usr/bin/env python3
"""The BSP performance model against SciPy: for every task of data/gang/workload_profiling.csv,
scipy.interpolate.RectBivariateSpline(sizes, shares, durations) with its defaults (kx = ky = 3,
s = 0), as the study builds it, evaluated at one point as the study does (model(size, shares,
grid="False")[0][0]) on the grid, between grid points, at random points inside the box and
outside it (FITPACK clamps); kubesim's values (tests/bsp/spline_eval.cpp) must agree to 1e-9
relative. Needs python3-scipy and python3-pandas (scripts/install-deps.sh).

Usage: compare_spline_with_scipy.py BSP_SPLINE_EVAL_BINARY"""
import os
import random
import subprocess
import sys

import numpy
import pandas
from scipy.interpolate import RectBivariateSpline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFILING = os.path.join(ROOT, "data", "gang", "workload_profiling.csv")
TOLERANCE = 1e-9


def main():
    frame = pandas.read_csv(PROFILING, dtype={0: str, 1: "float64", 2: "float64", 3: "float64"})
    name, size_col, shares_col, duration_col = frame.columns
    tasks = list(dict.fromkeys(frame[name]))
    sizes = numpy.sort(frame[size_col].unique())
    shares = numpy.sort(frame[shares_col].unique())
    rng = random.Random(15)
    points = []
    for task in tasks:
        rows = frame[frame[name] == task].sort_values(by=[size_col, shares_col]).values
        model = RectBivariateSpline(sizes, shares, numpy.reshape(rows[:, 3].astype(float), (len(sizes), len(shares))))
        candidates = [(x, y) for x in sizes for y in shares]  # on the grid
        mid_x = (sizes[:-1] + sizes[1:]) / 2
        mid_y = (shares[:-1] + shares[1:]) / 2
        candidates += [(x, y) for x in mid_x for y in mid_y]  # between grid points
        candidates += [(rng.uniform(sizes[0], sizes[-1]), rng.uniform(shares[0], shares[-1])) for _ in range(300)]
        candidates += [(rng.uniform(0, 70), rng.uniform(0, 20000)) for _ in range(150)]  # mostly outside
        candidates += [(50.0, 9000.0), (5.0, 500.0), (49.5, 3000.0), (30.0, 17100.0), (9.0, 8500.0)]
        for x, y in candidates:
            points.append((task, float(x), float(y), float(model(x, y, grid="False")[0][0])))
    text = "".join(f"{t} {x!r} {y!r}\n" for t, x, y, _ in points)
    result = subprocess.run([sys.argv[1], PROFILING], input=text, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL: {sys.argv[1]} exited with {result.returncode}: {result.stderr.strip()}")
        return 1
    values = [float(v) for v in result.stdout.split()]
    if len(values) != len(points):
        print(f"FAIL: expected {len(points)} values, got {len(values)}")
        return 1
    worst = 0.0
    failures = 0
    for (task, x, y, expected), got in zip(points, values):
        error = abs(got - expected) / max(abs(expected), 1.0)
        worst = max(worst, error)
        if error > TOLERANCE:
            failures += 1
            if failures <= 5:
                print(f"FAIL: {task} at ({x}, {y}): kubesim {got!r}, scipy {expected!r}")
    print(f"{len(points)} points, {len(tasks)} tasks: largest relative difference {worst:.3g} (tolerance {TOLERANCE})")
    print(f"{len(points) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
