"""What the Python test scripts share (kill9_test.py, peers/, timeshim/): one PASS/FAIL line per
check, the failures of the run collected in one list, and the real kube-scheduler unpacked once.

A script in a sub-folder imports it after `sys.path.insert(0, <tests/>)`.
"""
import os
import shutil
import subprocess

# Names of the checks that failed in this process; a script exits 1 when it is not empty.
failures = []


def check(name, ok, detail):
    """Prints `PASS name: detail` or `FAIL name: detail` and records a failure."""
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)


def keep_or_remove(tmp, keep):
    """Keeps the outputs in `tmp` (saying where) when asked or when a check failed, else removes
    them; returns the script's exit status."""
    if keep or failures:
        print(f"outputs kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


def summary(what, passed, failed):
    """Prints a FAILED line per entry of `failed` and `what: P passed, F failed`; returns the exit
    status (for the scripts that name their failures in one list rather than PASS/FAIL lines)."""
    for f in failed:
        print("FAILED:", f)
    print(f"{what}: {passed} passed, {len(failed)} failed")
    return 1 if failed else 0


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
