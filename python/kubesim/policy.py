"""Scheduling policies written in Python, run inside kubesim (no API server, no copies).

A policy is attached to a schedulerName and schedules the pods of that name, beside or instead
of the built-in schedulers:

    import kubesim

    class FirstFit(kubesim.Policy):
        def decide(self, pod, view):
            nodes = view.fitting_nodes(pod)
            return int(nodes[0]) if len(nodes) else None   # None: leave it pending

    run = kubesim.run("examples/multitenant/e2.yaml", policies={"first-fit": FirstFit})

At each scheduling opportunity (an instant at which a pod became pending, a pod left a node,
a node changed, or a retry you asked for is due) kubesim calls ``schedule(view)`` once. The
default ``schedule`` offers every pending pod, in order, to ``decide(pod, view)`` and binds
it to the node returned. Override ``schedule`` to see the whole queue at once (numpy).

The view (``kubesim.SchedulingView``): read-only numpy arrays over kubesim's own memory, valid
during the call only (copy what you keep):

- ``view.now``: simulated time (seconds); ``view.resources``: the resource columns (cpu in
  millicores, memory in bytes, then pods, ephemeral-storage, extended resources);
- ``view.pending`` (uint32 pod ids, in the order they became pending) and
  ``view.pending_requests`` (int64, pending x resources);
- ``view.allocatable``, ``view.requested`` (int64, nodes x resources, by node id: node ids
  are 0 .. node_count-1), ``view.pod_counts``, ``view.allowed_pods``; ``view.pods_on(node)``,
  ``view.devices(node)``, ``view.node_name(node)``;
- per pod: ``pod_name``, ``pod_priority``, ``pod_created``, ``pod_requests``, ``pod_deadline``,
  ``pod_run_time`` (the workload's: an oracle a real scheduler lacks), ``node_of``,
  ``is_pending``;
- ``view.fits(pod, node)`` and ``view.fitting_nodes(pod)``: resources, pod count, nodeName,
  node selector and affinity, taints, cordon, devices, on the current figures.

Decisions: ``view.bind(pod, node)`` (the node's figures include the pod at once; the binding
lands after the latency model's bind latency; resource fit is yours to check: a pod bound
where it does not fit is refused by the kubelet, as in a cluster), ``view.bind_many(pods,
nodes)``, ``view.preempt(pod)`` (deletes a running pod with its grace period, as
kube-scheduler's preemption does), ``view.retry_at(t)`` / ``view.retry_after(s)`` (be asked
again then, even if nothing changes; a run whose cluster stays frozen longer than the longest
retry asked ends). A pod left pending is offered again at the next opportunity.

A policy given as a class is instantiated for every run (runs stay independent and
deterministic); an instance is shared by the runs it is given to. An exception raised by the
policy stops the run and propagates with its traceback (kubesim run --policy: printed,
exit status 1, no output written).
"""

__all__ = ["Policy"]


class Policy:
    """Base class of a Python scheduling policy (see the module's documentation)."""

    def schedule(self, view):
        """One scheduling opportunity: offers each pending pod to decide() in queue order."""
        decide = self.decide
        bind = view.bind
        for pod in view.pending.tolist():
            node = decide(pod, view)
            if node is not None:
                bind(pod, node)

    def decide(self, pod, view):
        """The node id for the pending pod ``pod`` (an int), or None to leave it pending."""
        raise NotImplementedError("a kubesim.Policy overrides decide(pod, view) or schedule(view)")
