"""The bin-packing policy of bin_packing.py against kube-scheduler's default profile, from
Python: one kubesim.compare over seeds 1..3 (the same runs and files as `kubesim compare
--policy best-fit=examples/python-policy/bin_packing.py:BestFit --schedulers
default-scheduler,best-fit`).

    PYTHONPATH=build/python python3 examples/python-policy/compare_bin_packing.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kubesim  # noqa: E402
from bin_packing import BestFit  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
scenario = os.path.join(here, "..", "compare", "small.yaml")
result = kubesim.compare(scenario, "default-scheduler,best-fit", seeds=3, policies={"best-fit": BestFit})
summary = result["summary"]
cluster = summary[summary["tenant"] == "(cluster)"].set_index("scheduler")
print(cluster[["average_queue_time_s_mean", "makespan_s_mean", "utilisation_mean"]].to_string())
