"""What the Python test scripts share (kill9_test.py, peers/, timeshim/): one PASS/FAIL line per
check, the failures of the run collected in one list, and the real kube-scheduler unpacked once.

A script in a sub-folder imports it after `sys.path.insert(0, <tests/>)`.
"""
import os
import subprocess

# Names of the checks that failed in this process; a script exits 1 when it is not empty.
failures = []


def check(name, ok, detail):
    """Prints `PASS name: detail` or `FAIL name: detail` and records a failure."""
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)


def real_kube_scheduler(kubesim_repo, peers, work, what):
    """The real kube-scheduler v1.26.7 unpacked into WORK (once) from PEERS (`-`: $KUBESIM_PEERS or
    ../shared/peers beside the repository), or None after a SKIP line naming `what` when the packed
    binary is absent (a clone without the oracle binaries)."""
    if peers == "-":
        peers = os.environ.get("KUBESIM_PEERS", os.path.join(kubesim_repo, "..", "shared", "peers"))
    packed = os.path.join(peers, "kube-scheduler-v1.26.7.xz")
    if not os.path.exists(packed):
        print(f"SKIP {what}: {packed} not found (the oracle binaries live in ../shared/peers)")
        return None
    os.makedirs(work, exist_ok=True)
    scheduler = os.path.join(work, "kube-scheduler")
    if not os.path.exists(scheduler):
        with open(scheduler + ".tmp", "wb") as f:
            subprocess.run(["xz", "-dc", packed], stdout=f, check=True)
        os.chmod(scheduler + ".tmp", 0o755)
        os.replace(scheduler + ".tmp", scheduler)
    return scheduler
