#!/usr/bin/env python3
"""`pip install .` into a fresh virtual environment (no system site packages), offline:

    python3 -m venv VENV
    VENV/bin/pip install --no-build-isolation --no-index REPOSITORY

with KUBESIM_PREBUILT_MODULE naming the module the CMake build made for this interpreter, so
that the test checks the packaging (pyproject.toml, tools/pip_backend, setup.py) in seconds
instead of repeating the CMake build; a real from-source install is the same command without
the variable. Then, from an empty folder, VENV's python imports kubesim from VENV (not from the
repository or the system), runs examples/multitenant/e2.yaml and reads the declared extras.

Usage: pip_venv_test.py PYTHON BUILD_DIR   (PYTHON: the interpreter the module was built for)
Skips (exit 77) where the interpreter has no venv/ensurepip (Debian: python3-venv).
"""
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHECK = """
import importlib.metadata, os, sys
import kubesim
files = dict(kubesim.run_files(sys.argv[1]))
requires = importlib.metadata.requires("kubesim") or []
print(os.path.dirname(kubesim.__file__), len(files["jobs.csv"].splitlines()), "report.html" in files, ";".join(sorted(requires)))
"""


def main():
    python, build = sys.argv[1], os.path.abspath(sys.argv[2])
    if subprocess.run([python, "-c", "import venv, ensurepip"], capture_output=True).returncode != 0:
        print("pip_venv_test: SKIP: %s has no venv/ensurepip (Debian: python3-venv)" % python)
        return 77
    module = glob.glob(os.path.join(build, "python", "kubesim", "_kubesim*.so"))
    if not module:
        sys.exit("pip_venv_test: no _kubesim module in %s/python/kubesim (build the _kubesim target)" % build)
    with tempfile.TemporaryDirectory() as work:
        venv = os.path.join(work, "venv")
        subprocess.run([python, "-m", "venv", venv], check=True)
        env = dict(os.environ, KUBESIM_PREBUILT_MODULE=module[0], PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONPATH", None)
        p = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "--no-build-isolation", "--no-index", ROOT],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("pip_venv_test: pip install failed: " + (p.stderr or p.stdout)[-3000:])
        cwd = os.path.join(work, "elsewhere")
        os.mkdir(cwd)
        p = subprocess.run([os.path.join(venv, "bin", "python"), "-c", CHECK, os.path.join(ROOT, "examples/multitenant/e2.yaml")],
                           env=env, cwd=cwd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("pip_venv_test: import kubesim in the venv failed: " + p.stderr[-2000:])
        where, rows, report, requires = p.stdout.split(" ", 3)
        ok = where.startswith(venv) and int(rows) > 1 and report == "True" and 'pandas; extra == "frames"' in requires
        print("pip_venv_test: %s: kubesim from %s, e2 run: %s jobs.csv lines, report.html %s; extras: %s"
              % ("ok" if ok else "FAIL", where.replace(work, "TMP"), rows, report, requires.strip()))
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
