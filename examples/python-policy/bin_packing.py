"""A bin-packing policy in 30 lines: each pending pod, largest cpu request first, goes to the
node it fits with the least cpu left over (best fit), so that whole nodes stay free for large
pods. Compare it with kube-scheduler's default profile (which spreads: LeastAllocated):

    kubesim compare --scenario examples/compare/small.yaml --seeds 3 \\
        --policy best-fit=examples/python-policy/bin_packing.py:BestFit \\
        --schedulers default-scheduler,best-fit --out results/best-fit
    python3 examples/python-policy/compare_bin_packing.py      # the same from Python
"""
import numpy

import kubesim


class BestFit(kubesim.Policy):
    def schedule(self, view):
        cpu = view.resources.index("cpu")
        order = numpy.argsort(-view.pending_requests[:, cpu], kind="stable")  # largest first
        for pod in view.pending[order].tolist():
            nodes = view.fitting_nodes(pod)
            if len(nodes) == 0:
                continue  # stays pending until the cluster changes
            free = view.allocatable[nodes, cpu] - view.requested[nodes, cpu]
            view.bind(pod, int(nodes[numpy.argmin(free)]))  # least cpu left: the tightest fit
