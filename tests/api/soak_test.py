#!/usr/bin/python3
"""HTTP abuse soak test of `kubesim serve` (issue 16, "Must hold"), bounded to about 30 s.

Usage: soak_test.py KUBESIM [--keep]

Starts `kubesim serve --cluster examples/serve/cluster.yaml --keep-serving` and, while a probe
process opens a fresh connection every 50 ms and GETs /api/v1/namespaces/default, abuses it:
  1. 600 idle connections (connected, never send a byte), held to the end of the abuse;
  2. 520 slowloris connections: a request line, then one header byte per second, never
     finishing the header, held to the end of the abuse;
  3. 64 concurrent clients, each on a fresh connection, creating pods (3 rounds): no connection
     may be refused or reset (the listen backlog);
  4. bursts beyond max-in-flight: 300 creates and 450 node lists sent at once on pre-opened
     connections; every answer is 201/200 or 429 with Retry-After;
  5. bad bodies: 250 creates whose JSON holds invalid UTF-8 and 20 nested 100,000 deep, each
     answered with a 4xx Status; afterwards a create still gets 201 (no in-flight slot leaked).
Checks: every probe GET (during the abuse and after it) answered 200 within 100 ms (times the
load average over the cores on an overloaded machine, see latency_limit); every pod
whose create got 201 is listed at the end; SIGTERM ends the server within a second, exit 0.

Then (issue 32) a second server with `--auth token`:
  6. slow bodies, twice: --slow-bodies connections without the token, then as many with it,
     each sending a complete POST header announcing a 64 KiB body and then trickling it, a
     byte a second; probe GETs carry the token and must answer within 100 ms; the round
     without the token takes no worker thread (the gate refuses it), the one with it at most
     max-in-flight; once both rounds are over the thread count returns to its idle level
     within a minute;
  7. a large object and many watchers: a pod of --large-pod-mib MiB watched by --watchers
     watches: the server's RSS stays under 300 MB; a body over 3 MiB is refused (413).
The defaults are CI's short version; scripts/soak-long.sh runs the issue's full sizes (4,200
slow bodies, 300 watchers of a 2.9 MiB pod).
Prints one PASS/FAIL line per check with the figures; exit status 1 when any check failed.
"""
import argparse
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from run_api_tests import Server, check, failures, finish_run, note, pod_body  # noqa: E402

LATENCY_LIMIT = 0.100  # seconds: the "answering a GET within 100 ms"


def latency_limit():
    """100 ms, stretched by the machine's overload: with a load average L above its C cores, any
    runnable process waits about L / C times as long for a core, whatever the server does (the
    project's shared 2-core machine runs at load 20-30 during the day). CI runs this test alone,
    where the bound is 100 ms; the figures are printed either way."""
    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    if load <= cores:
        return LATENCY_LIMIT
    note(f"load average {load:.1f} on {cores} cores: GETs must answer within "
         f"{LATENCY_LIMIT * load / cores * 1000:.0f} ms (100 ms x {load / cores:.1f})")
    return LATENCY_LIMIT * load / cores
PROBE_PERIOD = 0.05
PROBE_PATH = "/api/v1/namespaces/default"


# ---- the probe: a process of its own, so that the abusers' threads do not delay it ----------
def probe_main(host, port, token=None):
    """GETs PROBE_PATH on a fresh connection every PROBE_PERIOD until stdin closes; prints one
    JSON line per probe: [seconds since start, latency or null, status or error]."""
    headers = {"Accept": "application/json", "Connection": "close"}
    if token:
        headers["Authorization"] = "Bearer " + token
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    t0 = time.monotonic()
    while not stop.is_set():
        start = time.monotonic()
        try:
            c = http.client.HTTPConnection(host, port, timeout=5)
            c.request("GET", PROBE_PATH, headers=headers)
            r = c.getresponse()
            r.read()
            c.close()
            result = [start - t0, time.monotonic() - start, r.status]
        except (OSError, http.client.HTTPException) as e:
            result = [start - t0, None, repr(e)]
        print(json.dumps(result), flush=True)
        time.sleep(max(0.0, PROBE_PERIOD - (time.monotonic() - start)))


class Probe:
    def __init__(self, srv, token=None):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--probe",
                                      srv.host, str(srv.port)] + ([token] if token else []), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.t0 = time.monotonic()
        self.results = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.results.append(json.loads(line))

    def mark(self):
        return len(self.results)

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(10)
        self.reader.join(10)


def summarize(name, results, limit):
    lat = sorted(r[1] for r in results if r[1] is not None)
    bad = [[round(r[0], 2), r[1] and round(r[1], 3), r[2]] for r in results
           if r[1] is None or r[2] != 200 or r[1] > limit]
    ok = bool(results) and not bad
    detail = (f"{len(results)} GETs, median {1000 * lat[len(lat) // 2]:.1f} ms, max {1000 * lat[-1]:.1f} ms, p99 "
              f"{1000 * lat[int(0.99 * (len(lat) - 1))]:.1f} ms, {sum(1 for x in lat if x > LATENCY_LIMIT)} over "
              f"{int(LATENCY_LIMIT * 1000)} ms" if lat else f"{len(results)} GETs")
    if bad:
        detail += f"; {len(bad)} slow or failed, first {bad[:3]}"
    check(f"soak: GET within {int(limit * 1000)} ms {name}", ok, detail)


# ---- abusers ---------------------------------------------------------------------------------
def open_sockets(srv, n):
    socks, errors = [], []
    for _ in range(n):
        try:
            socks.append(socket.create_connection((srv.host, srv.port), timeout=5))
        except OSError as e:
            errors.append(repr(e))
    return socks, errors


class Slowloris:
    """Each socket sends a request line and then one more header byte per second."""

    def __init__(self, socks):
        self.socks = socks
        self.sent_errors = 0
        for s in socks:
            s.sendall(b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: kubesim\r\nX-Slow: ")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drip, daemon=True)
        self.thread.start()

    def _drip(self):
        while not self.stop.wait(1.0):
            for s in self.socks:
                try:
                    s.send(b"x")
                except OSError:
                    self.sent_errors += 1  # the server closed it: allowed (a header deadline)

    def close(self):
        self.stop.set()
        self.thread.join()


def request(srv, method, path, body=None, conn=None):
    c = conn or http.client.HTTPConnection(srv.host, srv.port, timeout=20)
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    raw = r.read()
    if conn is None:
        c.close()
    return r.status, r.getheader("Retry-After"), raw


class Created:
    """Names of pods whose create was answered 201, and every answer seen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.names = []
        self.statuses = {}
        self.errors = []

    def record(self, name, status, retry_after=None):
        with self.lock:
            key = status if status != 429 or retry_after else "429 without Retry-After"
            self.statuses[key] = self.statuses.get(key, 0) + 1
            if status == 201:
                self.names.append(name)

    def error(self, e):
        with self.lock:
            self.errors.append(repr(e))


def create(srv, created, name, conn=None):
    try:
        status, retry, _ = request(srv, "POST", "/api/v1/namespaces/default/pods",
                                   json.dumps(pod_body(name, scheduler="kubesim-soak-nobody")), conn)
        created.record(name, status, retry)
    except (OSError, http.client.HTTPException) as e:
        created.error(e)


def concurrent_clients(srv, created, clients=64, rounds=3):
    barrier = threading.Barrier(clients)

    def client(k):
        barrier.wait()
        for r in range(rounds):
            create(srv, created, f"concurrent-{k}-{r}")
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def burst(srv, created, lists):
    """300 creates and 450 lists of the nodes released at once on connections opened beforehand
    (small lists: the burst is about requests in flight, not about moving megabytes through
    the test's own Python on a 2-core machine)."""
    conns = [http.client.HTTPConnection(srv.host, srv.port, timeout=30) for _ in range(750)]
    for c in conns:
        c.connect()
    barrier = threading.Barrier(len(conns))

    def creator(k):
        barrier.wait()
        create(srv, created, f"burst-{k}", conns[k])

    def lister(k):
        barrier.wait()
        try:
            status, retry, _ = request(srv, "GET", "/api/v1/nodes", conn=conns[k])
            lists.record(None, status, retry)
        except (OSError, http.client.HTTPException) as e:
            lists.error(e)
    threads = ([threading.Thread(target=creator, args=(k,)) for k in range(300)] +
               [threading.Thread(target=lister, args=(k,)) for k in range(300, 750)])
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in conns:
        c.close()


def bad_bodies(srv):
    """(answers that were not a 4xx Status, transport errors)."""
    bad, errors = [], []
    name = b"bad-\xff\xfe\xc3\x28"
    utf8 = (b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"' + name +
            b'","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x"}]}}')
    deep = b"[" * 100000 + b"]" * 100000
    deep_obj = b'{"a":' * 100000 + b"1" + b"}" * 100000
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=20)
    bodies = [utf8] * 250 + [deep, deep_obj] * 10
    for body in bodies:
        try:
            status, _, raw = request(srv, "POST", "/api/v1/namespaces/default/pods", body, conn)
            obj = json.loads(raw)
            if not (400 <= status < 500 and obj.get("kind") == "Status" and obj.get("code") == status):
                bad.append((status, raw[:120]))
        except (OSError, http.client.HTTPException, ValueError) as e:
            errors.append(repr(e))
            conn.close()
            conn = http.client.HTTPConnection(srv.host, srv.port, timeout=20)
    conn.close()
    return len(bodies), bad, errors


# ---- the test --------------------------------------------------------------------------------
def soak(kubesim, tmp):
    t_start = time.monotonic()
    srv = Server(kubesim, tmp, "soak", ["--cluster", os.path.join(REPO, "examples/serve/cluster.yaml"),
                                        "--keep-serving", "--quiet"])
    if not check("soak: server up", srv.up, f"{srv.describe()}; {srv.stderr().strip()[:200]}"):
        srv.kill()
        return
    probe = Probe(srv)
    created = Created()

    def phase(name):
        note(f"{name} from {time.monotonic() - probe.t0:.2f} s")
    try:
        time.sleep(0.5)
        before = probe.mark()
        idle, idle_errors = open_sockets(srv, 600)
        slow_socks, slow_errors = open_sockets(srv, 520)
        slow = Slowloris(slow_socks)
        check("soak: 600 idle and 520 slowloris connections accepted",
              not idle_errors and not slow_errors,
              f"{len(idle)} idle, {len(slow_socks)} slow; errors {(idle_errors + slow_errors)[:3]}")
        # Past the server's per-read and keep-alive timeouts with every connection held.
        time.sleep(6.5)
        phase("concurrent clients")
        concurrent_clients(srv, created)
        check("soak: 64 concurrent clients x 3 creates, none refused or reset", not created.errors
              and created.statuses.get(201, 0) == 192,
              f"answers {created.statuses}; errors {created.errors[:3]}")
        lists = Created()
        phase("burst")
        burst(srv, created, lists)
        ok_codes = {201, 429}
        check("soak: burst of 300 creates and 450 lists: 2xx or 429 with Retry-After",
              not created.errors and not lists.errors and set(created.statuses) <= ok_codes
              and set(lists.statuses) <= {200, 429},
              f"creates {created.statuses}, lists {lists.statuses}; errors "
              f"{(created.errors + lists.errors)[:3]}")
        phase("bad bodies")
        n, bad, errors = bad_bodies(srv)
        check("soak: invalid UTF-8 and 100,000-deep JSON bodies answered 4xx Status",
              not bad and not errors, f"{n} bodies; not 4xx Status: {bad[:2]}; errors {errors[:2]}")
        after_bad = Created()
        create(srv, after_bad, "after-bad-bodies")
        check("soak: a create after the bad bodies gets 201 (no in-flight slot leaked)",
              after_bad.names == ["after-bad-bodies"], f"answers {after_bad.statuses} {after_bad.errors}")
        created.names += after_bad.names
        time.sleep(1.0)
        during = probe.results[before:probe.mark()]
        slow.close()
        for s in idle + slow_socks:
            s.close()
        after_mark = probe.mark()
        time.sleep(2.0)
    finally:
        probe.stop()
    limit = latency_limit()
    summarize("during the abuse", during, limit)
    summarize("after the abuse", probe.results[after_mark:], limit)
    status, _, raw = request(srv, "GET", "/api/v1/namespaces/default/pods")
    listed = {p["metadata"]["name"] for p in json.loads(raw).get("items", [])} if status == 200 else set()
    lost = [n for n in created.names if n not in listed]
    check("soak: every pod whose create got 201 is listed afterwards", status == 200 and not lost,
          f"{len(created.names)} created, {len(listed)} listed, lost {lost[:5]}")
    t_term = time.monotonic()
    rc = srv.stop(timeout=10)
    took = time.monotonic() - t_term
    if rc is None:
        srv.kill()
    check("soak: SIGTERM ends the server within a second, exit 0", rc == 0 and took < 1.0,
          f"exit {rc} after {took:.2f} s; {srv.stderr().strip()[:200]}")
    print(f"     soak: {time.monotonic() - t_start:.1f} s wall", flush=True)


# ---- slow bodies, large objects and watchers behind a token (issue 32) --------------------------
def server_threads(srv):
    try:
        return len(os.listdir(f"/proc/{srv.proc.pid}/task"))
    except OSError:
        return None


def server_rss_mb(srv):
    try:
        for line in open(f"/proc/{srv.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


class SlowBodies:
    """POSTs whose header is complete (Content-Length 64 KiB) and whose body comes a byte a second."""

    def __init__(self, socks, token):
        self.socks = socks
        auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""
        head = (b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: kubesim\r\n" + auth +
                b"Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n{")
        self.closed_by_server = 0
        for s in socks:
            s.sendall(head)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drip, daemon=True)
        self.thread.start()

    def _drip(self):
        while not self.stop.wait(1.0):
            for s in self.socks:
                try:
                    s.send(b" ")
                except OSError:
                    pass  # refused (401, 429) and closed by the server: allowed

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def authorized(srv, token, method, path, body=None, timeout=30):
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    headers = {"Accept": "application/json", "Authorization": "Bearer " + token}
    if body is not None:
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    raw = r.read()
    c.close()
    return r.status, raw


def slow_bodies(srv, token, count, tokened):
    """`count` slow-body connections, all without the token (refused before the body is read)
    or all with it (admitted up to max-in-flight, the rest refused with 429): GETs with the
    token answer within the latency limit. Returns the server's thread count during the attack."""
    who = "with the token" if tokened else "without the token"
    probe = Probe(srv, token)
    try:
        time.sleep(0.5)
        before = probe.mark()
        socks, errors = open_sockets(srv, count)
        slow = SlowBodies(socks, token if tokened else None)
        check(f"soak: {count} slow-body connections {who} accepted", not errors, f"errors {errors[:3]}")
        time.sleep(4.0)
        busiest = server_threads(srv)
        during = probe.results[before:probe.mark()]
        slow.close()
    finally:
        probe.stop()
    summarize(f"with the token during {count} slow bodies {who}", during, latency_limit())
    return busiest


def slow_body_rounds(srv, token, count):
    """Both rounds back to back, then the thread count must return to its idle level within a
    minute (one wait for both: the pool shrinks on its idle timeout, ~10 s)."""
    idle = server_threads(srv)
    busiest = [slow_bodies(srv, token, count, tokened=False), slow_bodies(srv, token, count, tokened=True)]
    # The gate answers a request without the token itself (no worker thread), and refuses a
    # create beyond max-in-flight (200) before it takes one; the probe's GETs use idle workers.
    check("soak: slow bodies without the token take no worker thread; with it, at most max-in-flight",
          None not in (idle, *busiest) and busiest[0] <= idle + 2 and busiest[1] <= idle + 200 + 2,
          f"idle {idle}, {busiest[0]} without the token, {busiest[1]} with it (max-in-flight 200)")
    t0 = time.monotonic()
    threads = server_threads(srv)
    while threads is not None and idle is not None and threads > idle and time.monotonic() - t0 < 60:
        time.sleep(0.5)
        threads = server_threads(srv)
    check("soak: the thread count returns to its idle level within a minute after the slow bodies",
          threads is not None and idle is not None and threads <= idle,
          f"idle {idle}, {busiest[0]} during the round without the token, {busiest[1]} during the round with it, "
          f"{threads} after {time.monotonic() - t0:.1f} s")


class Watchers:
    """`count` watches of the pods, each reading its stream to the end."""

    def __init__(self, srv, token, count):
        self.received = [0] * count
        self.socks = []
        request_bytes = (f"GET /api/v1/namespaces/default/pods?watch=true HTTP/1.1\r\nHost: kubesim\r\n"
                         f"Authorization: Bearer {token}\r\n\r\n").encode()
        for _ in range(count):
            s = socket.create_connection((srv.host, srv.port), timeout=60)
            s.sendall(request_bytes)
            self.socks.append(s)
        self.threads = [threading.Thread(target=self._read, args=(k,), daemon=True) for k in range(count)]
        for t in self.threads:
            t.start()

    def _read(self, k):
        try:
            while True:
                got = self.socks[k].recv(1 << 20)
                if not got:
                    return
                self.received[k] += len(got)
        except OSError:
            return

    def close(self):
        for s in self.socks:
            s.close()


def large_objects(srv, token, watchers, pod_mib):
    pad = "x" * int(pod_mib * 1024 * 1024 - 2048)
    body = pod_body("large-0", scheduler="kubesim-soak-nobody")
    body["metadata"]["annotations"] = {"pad": pad}
    status, _ = authorized(srv, token, "POST", "/api/v1/namespaces/default/pods",
                           json.dumps({**body, "metadata": {**body["metadata"], "annotations": {"pad": pad + pad}}}))
    check("soak: a body over 3 MiB is refused with 413", status == 413, f"status {status}")
    rss0 = server_rss_mb(srv)
    w = Watchers(srv, token, watchers)
    time.sleep(1.0)
    status, _ = authorized(srv, token, "POST", "/api/v1/namespaces/default/pods", json.dumps(body))
    deadline = time.monotonic() + 60
    size = len(json.dumps(body))
    while time.monotonic() < deadline and min(w.received) < size:
        time.sleep(0.2)
    peak = server_rss_mb(srv)
    delivered = sum(1 for r in w.received if r >= size)
    w.close()
    authorized(srv, token, "DELETE", "/api/v1/namespaces/default/pods/large-0")
    check(f"soak: {watchers} watchers of a {pod_mib} MiB pod: every watcher gets it, server RSS under 300 MB",
          status == 201 and delivered == watchers and peak is not None and peak < 300,
          f"create {status}; {delivered}/{watchers} watchers got it; RSS {rss0:.0f} MB before, {peak:.0f} MB after")
    # Twenty large pods created and deleted: the memory comes back (the watch log's byte budget
    # evicts their states; large blocks are unmapped when freed).
    base = server_rss_mb(srv)
    for k in range(1, 21):
        body["metadata"]["name"] = f"large-{k}"
        authorized(srv, token, "POST", "/api/v1/namespaces/default/pods", json.dumps(body))
    full = server_rss_mb(srv)
    for k in range(1, 21):
        authorized(srv, token, "DELETE", f"/api/v1/namespaces/default/pods/large-{k}")
    for k in range(40):  # small changes push the deleted pods' states out of the log's budget
        authorized(srv, token, "POST", "/api/v1/namespaces/default/pods",
                   json.dumps(pod_body(f"small-{k}", scheduler="kubesim-soak-nobody")))
    time.sleep(0.5)
    after = server_rss_mb(srv)
    # Not all of it: the model keeps a deleted pod's spec (its template, annotations included).
    check("soak: deleting twenty large pods returns at least 40% of the memory they took",
          full - after >= 0.4 * (full - base),
          f"RSS {base:.0f} MB before, {full:.0f} MB with them, {after:.0f} MB after deleting them")


def soak_auth(kubesim, tmp, args):
    t_start = time.monotonic()
    srv = Server(kubesim, tmp, "soak-auth", ["--cluster", os.path.join(REPO, "examples/serve/cluster.yaml"),
                                             "--keep-serving", "--quiet", "--auth", "token"])
    if not check("soak: server with --auth token up", srv.up, f"{srv.stderr().strip()[:200]}"):
        srv.kill()
        return
    token = srv.kc["users"][0]["user"]["token"]
    try:
        slow_body_rounds(srv, token, args.slow_bodies)
        large_objects(srv, token, args.watchers, args.large_pod_mib)
    finally:
        if srv.stop(timeout=10) is None:
            srv.kill()
    print(f"     soak with a token: {time.monotonic() - t_start:.1f} s wall", flush=True)


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--probe":
        return probe_main(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) == 5 else None)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kubesim")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--slow-bodies", type=int, default=600, help="slow-body connections (the issue: 4200)")
    ap.add_argument("--watchers", type=int, default=60, help="watchers of the large pod (the issue: 300)")
    ap.add_argument("--large-pod-mib", type=float, default=2.9, help="the large pod's size in MiB")
    ap.add_argument("--only-auth", action="store_true", help="only the part behind a token (issue 32)")
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    tmp = tempfile.mkdtemp(prefix="kubesim-soak-")
    try:
        if not args.only_auth:
            soak(os.path.abspath(args.kubesim), tmp)
        soak_auth(os.path.abspath(args.kubesim), tmp, args)
    finally:
        status = finish_run(tmp, args.keep)
    return status


if __name__ == "__main__":
    sys.exit(main())
