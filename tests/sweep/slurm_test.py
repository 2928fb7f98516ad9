#!/usr/bin/python3
"""`kubesim sweep --slurm` on a real Slurm (issue 17, "Must hold").

Usage: slurm_test.py KUBESIM

Starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm) on localhost, all state
under a temporary folder with a minimal slurm.conf written here (one node, 2 CPUs, free
ports), runs a sweep of 24 cells of E3 (2 schedulers x 3 stream intervals x 4 seeds) locally
and as one Slurm job array of 8 tasks (`kubesim sweep PLAN --slurm --cells-per-task 3 --wait`:
sbatch, wait, merge), and checks that results.csv and sweep.html are byte-identical. Exits 77
(ctest: skipped) with one line saying why when the daemons are not installed or cannot
start here (e.g. not root, no munge); 1 when a check failed.
"""
import filecmp
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def skip(why):
    print(f"SKIP slurm sweep test: {why}", flush=True)
    return SKIP


def main():
    kubesim = os.path.abspath(sys.argv[1])
    for tool in ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo"):
        if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}"):
            return skip(f"{tool} is not installed (Debian packages slurm-wlm and munge; scripts/install-deps.sh)")
    if os.geteuid() != 0:
        return skip("slurmd runs as root here (SlurmdUser=root); run the test as root")
    tmp = tempfile.mkdtemp(prefix="kubesim-slurm-")
    os.chmod(tmp, 0o755)
    daemons = []
    try:
        munge = os.path.join(tmp, "munge")
        os.makedirs(munge, mode=0o755)
        for d in ("state", "spool"):
            os.makedirs(os.path.join(tmp, d))
        key = os.path.join(munge, "munge.key")
        subprocess.run(["mungekey", "--create", "--keyfile", key], check=True, capture_output=True)
        os.chmod(key, 0o600)
        sock = os.path.join(munge, "socket")
        log = open(os.path.join(tmp, "daemons.log"), "w")
        daemons.append(subprocess.Popen(["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={sock}",
                                         f"--pid-file={munge}/pid", f"--log-file={munge}/log", f"--seed-file={munge}/seed"],
                                        stdout=log, stderr=log))
        host = socket.gethostname().split(".")[0]
        conf = os.path.join(tmp, "slurm.conf")
        with open(conf, "w") as f:
            f.write(f"""ClusterName=kubesim
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=sweep Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        env = dict(os.environ, SLURM_CONF=conf)
        deadline = time.monotonic() + 10
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not os.path.exists(sock):
            return skip("munged did not start: " + open(os.path.join(munge, "log")).read().strip()[-300:])
        daemons.append(subprocess.Popen(["slurmctld", "-D", "-f", conf], stdout=log, stderr=log, env=env))
        daemons.append(subprocess.Popen(["slurmd", "-D", "-f", conf], stdout=log, stderr=log, env=env))
        deadline = time.monotonic() + 30
        idle = False
        while time.monotonic() < deadline and all(d.poll() is None for d in daemons):
            p = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, env=env)
            if p.returncode == 0 and p.stdout.strip() == "idle":
                idle = True
                break
            time.sleep(0.3)
        if not idle:
            log.flush()
            tail = open(os.path.join(tmp, "daemons.log")).read()[-300:]
            return skip("slurmctld/slurmd did not come up (no idle node within 30 s): " + tail.strip())

        plan = os.path.join(tmp, "plan.yaml")
        with open(plan, "w") as f:
            f.write(f"""name: slurm-test
scenarios: [{REPO}/examples/multitenant/e3.yaml]
schedulers: [default-scheduler, fcfs]
overrides:
  tenants.tenant3.streams.0.interval: [5, 10, 20]
seeds: 4
""")
        local = subprocess.run([kubesim, "sweep", plan, "--out", os.path.join(tmp, "local"), "-j", "2", "--quiet"],
                               capture_output=True, text=True, timeout=120)
        if local.returncode != 0:
            print("FAIL local sweep: " + local.stderr.strip())
            return 1
        t0 = time.monotonic()
        slurm = subprocess.run([kubesim, "sweep", plan, "--out", os.path.join(tmp, "slurm"), "--slurm", "--partition",
                                "sweep", "--time", "10", "--cells-per-task", "3", "--wait"],
                               capture_output=True, text=True, timeout=300, env=env)
        wall = time.monotonic() - t0
        print(slurm.stdout.strip())
        script = open(os.path.join(tmp, "slurm", "slurm", "sweep.sbatch")).read() if os.path.exists(
            os.path.join(tmp, "slurm", "slurm", "sweep.sbatch")) else ""
        ok = slurm.returncode == 0 and "#SBATCH --array=0-7" in script
        print(f"{'PASS' if ok else 'FAIL'} sbatch job array of 8 tasks (24 cells), waited and merged in {wall:.1f} s"
              + ("" if ok else ": " + slurm.stderr.strip()))
        if not ok:
            return 1
        cells = len(os.listdir(os.path.join(tmp, "slurm", "cells")))
        same = all(filecmp.cmp(os.path.join(tmp, "local", f), os.path.join(tmp, "slurm", f), shallow=False)
                   for f in ("results.csv", "sweep.html"))
        rows = sum(1 for _ in open(os.path.join(tmp, "slurm", "results.csv"))) - 1
        print(f"{'PASS' if same and cells == 24 else 'FAIL'} Slurm results byte-identical to the local run: "
              f"{cells} cells, {rows} rows in results.csv, sweep.html")
        return 0 if same and cells == 24 else 1
    finally:
        for d in reversed(daemons):
            if d.poll() is None:
                d.send_signal(signal.SIGTERM)
                try:
                    d.wait(15)
                except subprocess.TimeoutExpired:
                    d.kill()
                    d.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
