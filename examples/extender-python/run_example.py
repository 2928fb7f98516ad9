#!/usr/bin/env python3
"""The example of examples/extender-python/README.md, as the test suite runs it: starts the
first-fit extender (first_fit_extender.py, Python's standard library) on a free port, points
extender.yaml at it, and compares kube-scheduler's default profile with the same profile plus
the extender in one `kubesim compare` on examples/compare/small.yaml. Checks that the extender
was called and changed the placements as it should: the burst's first pods fill node-0 before
any goes to node-1, where the default profile spreads them.

  run_example.py KUBESIM [--https]

--https: the same over mutual TLS (docs/own-scheduler.md, "Extenders over HTTPS"): the server's
self-signed certificate (made by `openssl req`) is kubesim's tlsConfig.caFile, and the server
(Python's ssl, CERT_REQUIRED) trusts only a root CA, while kubesim's client certificate is signed
by an intermediate CA: certFile holds the leaf and the intermediate, and the handshake succeeds
only if kubesim sends the whole chain.
"""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCENARIO = os.path.join(ROOT, "examples", "compare", "small.yaml")


def first_nodes(pods_csv, k):
    """The nodes of the first k pods bound (by bind time, then row order)."""
    with open(pods_csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("node")]
    key = next(c for c in ("bound", "scheduled", "start") if c in rows[0])
    rows.sort(key=lambda r: float(r[key]))
    return [r["node"] for r in rows[:k]]


def main():
    kubesim = os.path.abspath(sys.argv[1])
    https = "--https" in sys.argv[2:]
    with tempfile.TemporaryDirectory(prefix="extender_example_") as work:
        run(kubesim, work, https)
    return 0


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True)


def make_certificates(work):
    """The server's self-signed certificate, and a client chain root -> intermediate -> leaf;
    client.pem holds the leaf then the intermediate. Returns the server's arguments."""
    p = lambda name: os.path.join(work, name)  # noqa: E731
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"]
    openssl("req", "-x509", *ec, "-keyout", p("key.pem"), "-out", p("cert.pem"), "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1")
    openssl("req", "-x509", *ec, "-keyout", p("root-key.pem"), "-out", p("root-cert.pem"), "-subj", "/CN=example root CA")
    with open(p("ca.ext"), "w") as f:
        f.write("basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n")
    with open(p("leaf.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    for name, issuer, ext in (("intermediate", "root", "ca.ext"), ("client", "intermediate", "leaf.ext")):
        openssl("req", "-new", *[a for a in ec if a not in ("-days", "1")], "-keyout", p(f"{name}-key.pem"),
                "-out", p(f"{name}.csr"), "-subj", f"/CN=example {name}")
        openssl("x509", "-req", "-in", p(f"{name}.csr"), "-CA", p(f"{issuer}-cert.pem"), "-CAkey", p(f"{issuer}-key.pem"),
                "-CAcreateserial", "-days", "1", "-extfile", p(ext), "-out", p(f"{name}-cert.pem"))
    with open(p("client.pem"), "w") as f:
        for name in ("client-cert.pem", "intermediate-cert.pem"):
            with open(p(name)) as part:
                f.write(part.read())
    return [p("cert.pem"), p("key.pem"), p("root-cert.pem")]


def run(kubesim, work, https):
    tls = make_certificates(work) if https else []
    ext = subprocess.Popen([sys.executable, os.path.join(HERE, "first_fit_extender.py"), "0"] + tls,
                           stdout=subprocess.PIPE, text=True)
    try:
        port = int(ext.stdout.readline())
        with open(os.path.join(HERE, "extender.yaml")) as f:
            config = f.read().replace("127.0.0.1:8888", f"127.0.0.1:{port}")
        if https:
            config = config.replace("http://", "https://") + ("  tlsConfig:\n    caFile: cert.pem\n"
                                                               "    certFile: client.pem\n    keyFile: client-key.pem\n")
        conf = os.path.join(work, "extender.yaml")
        with open(conf, "w") as f:
            f.write(config)
        out = os.path.join(work, "out")
        r = subprocess.run([kubesim, "compare", "--scenario", SCENARIO, "--schedulers",
                            f"default-scheduler,default-scheduler={conf}", "--seeds", "2", "--out", out],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            sys.exit(f"kubesim compare failed: {r.stderr.strip()}")
        default = first_nodes(os.path.join(out, "default-scheduler", "seed-1", "pods.csv"), 5)
        packed = first_nodes(os.path.join(out, "default-scheduler+extender", "seed-1", "pods.csv"), 5)
        print(f"first 5 pods: default profile on {default}; with the first-fit extender on {packed}")
        if len(set(packed)) != 1 or len(set(default)) == 1:
            sys.exit("the extender did not pack the first pods onto one node (or the default did not spread)")
        print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")
    finally:
        ext.kill()
        ext.wait()


if __name__ == "__main__":
    sys.exit(main())
