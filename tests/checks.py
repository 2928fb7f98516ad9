"""What the Python test scripts share (kill9_test.py, standalone_test.py, run_help_examples.py,
peers/, timeshim/): one PASS/FAIL line per check, the failures of the run collected in one list,
and the closing summary and exit status.

A script in a sub-folder imports it after `sys.path.insert(0, <tests/>)`.
"""
import shutil

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
