#!/usr/bin/python3
"""Runs `kubesim serve` with the real kube-scheduler binary as its external scheduler.

Usage: real_scheduler.py KUBESIM KUBE_SCHEDULER OUTDIR [--scheduler-config FILE]
                         [--schedulers N] -- SERVE_ARGS...

Starts `KUBESIM serve SERVE_ARGS --port 0 --kubeconfig OUTDIR/kubeconfig --out OUTDIR/out`,
waits for the kubeconfig, starts N kube-schedulers with the flags a real scheduler needs
against kubesim (see docs/tutorials/serve.md, "The real kube-scheduler against kubesim serve"), waits for kubesim to
end, stops the schedulers (SIGTERM, by pid) and prints one line: the wall time and the
kubesim exit status. Logs: OUTDIR/kubesim.{stdout,stderr}, OUTDIR/scheduler-<i>.log.
Imported by the tests and the benchmark (run_pair()).
"""
import os
import signal
import subprocess
import sys
import tempfile
import time


def first_difference(texts):
    """The first row where the runs' jobs.csv texts (bytes) differ, as 'row N: A | B'."""
    rows = [t.decode().splitlines() for t in texts]
    for other in rows[1:]:
        for k, (a, b) in enumerate(zip(rows[0], other)):
            if a != b:
                return f"row {k + 1}: {a} | {b}"
        if len(rows[0]) != len(other):
            return f"{len(rows[0])} and {len(other)} rows"
    return ""


def peers_dir(kubesim_repo, peers):
    """PEERS, or for `-` $KUBESIM_PEERS, else ../shared/peers beside the repository."""
    if peers == "-":
        return os.environ.get("KUBESIM_PEERS", os.path.join(kubesim_repo, "..", "shared", "peers"))
    return peers


def unpack_peer(kubesim_repo, peers, packed_name, work, binary_name, what):
    """The peer binary PEERS/PACKED_NAME (xz) unpacked into WORK/BINARY_NAME (once, atomically), or
    None after one SKIP line naming `what` when the packed binary is absent (a clone without the
    oracle binaries). PEERS as peers_dir()."""
    packed = os.path.join(peers_dir(kubesim_repo, peers), packed_name)
    if not os.path.exists(packed):
        print(f"SKIP {what}: {packed} not found (the oracle binaries live in ../shared/peers)")
        return None
    os.makedirs(work, exist_ok=True)
    binary = os.path.join(work, binary_name)
    if not os.path.exists(binary):
        # A temporary name of its own: ctest runs several oracles at once that unpack the same
        # binary, and a shared ".tmp" let one rename a file another was still writing (exec
        # then failed with ETXTBSY). Each replace puts a whole, closed file in place.
        fd, tmp = tempfile.mkstemp(dir=work, prefix=binary_name + ".")
        with os.fdopen(fd, "wb") as f:
            subprocess.run(["xz", "-dc", packed], stdout=f, check=True)
        os.chmod(tmp, 0o755)
        os.replace(tmp, binary)
    return binary


def real_kube_scheduler(kubesim_repo, peers, work, what):
    """The real kube-scheduler v1.26.7 unpacked into WORK (once) from PEERS, or None after a SKIP
    line naming `what` (unpack_peer)."""
    return unpack_peer(kubesim_repo, peers, "kube-scheduler-v1.26.7.xz", work, "kube-scheduler", what)


def scheduler_command(binary, kubeconfig, config=None, verbosity=1):
    cmd = [binary, "--kubeconfig", kubeconfig, "--leader-elect=false",
           "--kube-api-content-type=application/json", "--secure-port=0", f"--v={verbosity}"]
    if config:
        cmd += ["--config", config]
    return cmd


def write_config_with_kubeconfig(config, kubeconfig, out_path):
    """kube-scheduler ignores --kubeconfig and --kube-api-content-type when --config is given
    (cmd/kube-scheduler/app/options/options.go: the deprecated flags apply only without a
    configuration file): its clientConnection must name the kubeconfig and JSON."""
    with open(config) as f:
        text = f.read()
    lines = [l for l in text.splitlines() if not l.strip().startswith("#")]
    lines.insert(next(i for i, l in enumerate(lines) if l.startswith("kind:")) + 1,
                 f"clientConnection:\n  kubeconfig: {kubeconfig}\n  contentType: application/json")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return out_path


def run_pair(kubesim, scheduler, outdir, serve_args, configs=(None,), timeout=None, nice=0, wrapper=(), verbosity=1):
    """Returns (kubesim exit status, wall seconds). configs: one entry per scheduler; wrapper: a
    command the schedulers run under (e.g. kubesim-timeshim --speed 20 --)."""
    os.makedirs(outdir, exist_ok=True)
    kubeconfig = os.path.join(outdir, "kubeconfig")
    if os.path.exists(kubeconfig):
        os.remove(kubeconfig)
    pre = ["nice", "-n", str(nice)] if nice else []
    t0 = time.monotonic()
    server = subprocess.Popen(pre + [kubesim, "serve", *serve_args, "--port", "0", "--kubeconfig", kubeconfig,
                                     "--out", os.path.join(outdir, "out")],
                              stdin=subprocess.DEVNULL, stdout=open(os.path.join(outdir, "kubesim.stdout"), "w"),
                              stderr=open(os.path.join(outdir, "kubesim.stderr"), "w"))
    schedulers = []
    try:
        while not os.path.exists(kubeconfig):
            if server.poll() is not None:
                return server.returncode, time.monotonic() - t0
            time.sleep(0.02)
        for i, config in enumerate(configs):
            cfg = write_config_with_kubeconfig(config, kubeconfig, os.path.join(outdir, f"config-{i}.yaml")) if config else None
            schedulers.append(subprocess.Popen(pre + list(wrapper) + scheduler_command(scheduler, kubeconfig, cfg, verbosity),
                                               stdin=subprocess.DEVNULL,
                                               stdout=subprocess.DEVNULL,
                                               stderr=open(os.path.join(outdir, f"scheduler-{i}.log"), "w")))
        status = server.wait(timeout=timeout)
        return status, time.monotonic() - t0
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait()
        for s in schedulers:
            stop(s)


def stop(proc, timeout=10):
    """SIGTERM to a process still running, then SIGKILL after `timeout` seconds; waits for it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    sep = argv.index("--")
    head, serve_args = argv[1:sep], argv[sep + 1:]
    kubesim, scheduler, outdir = head[:3]
    opts = head[3:]
    config = opts[opts.index("--scheduler-config") + 1] if "--scheduler-config" in opts else None
    count = int(opts[opts.index("--schedulers") + 1]) if "--schedulers" in opts else 1
    status, wall = run_pair(kubesim, scheduler, outdir, serve_args, configs=[config] * count)
    print(f"real_scheduler: kubesim exit {status}, wall {wall:.1f} s")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
