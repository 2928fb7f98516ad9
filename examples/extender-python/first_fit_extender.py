#!/usr/bin/env python3
"""A kube-scheduler extender in Python's standard library: first-fit packing.

kube-scheduler (and kubesim's model of it) POSTs the pod and the candidate nodes to
<urlPrefix>/<verb> as JSON (k8s.io/kube-scheduler/extender/v1: keys "Pod", "Nodes" or
"NodeNames"); this one answers two verbs:
  filter      drops nodes labelled example.com/maintenance=true (FailedNodes says why);
  prioritize  scores the nodes by their position in name order, 10 for the first, 9 for the
              next, ... (0-10, MaxExtenderPriority), so that with a large weight kube-scheduler
              fills the nodes one after the other instead of spreading (LeastAllocated).

  first_fit_extender.py PORT            (listens on 127.0.0.1:PORT; 0: any free port, printed)
  first_fit_extender.py PORT CERT KEY   (the same over HTTPS, with that PEM certificate and key)
  first_fit_extender.py PORT CERT KEY CLIENT_CA
                                        (mutual TLS: a client certificate is required and must
                                         chain to CLIENT_CA)
"""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def node_names(args):
    """The candidate nodes' names: NodeNames (nodeCacheCapable) or the NodeList's items."""
    if args.get("NodeNames") is not None:
        return list(args["NodeNames"])
    return [n["metadata"]["name"] for n in args["Nodes"]["items"]]


def in_maintenance(args, name):
    for n in (args.get("Nodes") or {}).get("items", []):
        if n["metadata"]["name"] == name:
            return n["metadata"].get("labels", {}).get("example.com/maintenance") == "true"
    return False


def natural(name):  # node-2 before node-10
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def filter_nodes(args):
    names = node_names(args)
    failed = {n: "node in maintenance" for n in names if in_maintenance(args, n)}
    kept = [n for n in names if n not in failed]
    if args.get("NodeNames") is not None:
        return {"NodeNames": kept, "FailedNodes": failed, "Error": ""}
    items = [n for n in args["Nodes"]["items"] if n["metadata"]["name"] in kept]
    return {"Nodes": {"items": items}, "FailedNodes": failed, "Error": ""}


def prioritize(args):
    ranked = sorted(node_names(args), key=natural)
    return [{"Host": n, "Score": max(0, 10 - i)} for i, n in enumerate(ranked)]


class Handler(BaseHTTPRequestHandler):
    # Headers and body are written apart: without TCP_NODELAY the body waits for the client's
    # delayed ACK (about 40 ms per call on Linux).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"  # keep the connection (kube-scheduler's client keeps it alive)

    def do_POST(self):
        args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        verb = self.path.rstrip("/").rsplit("/", 1)[-1]
        answer = {"filter": filter_nodes, "prioritize": prioritize}.get(verb)
        if answer is None:
            self.send_error(404)
            return
        body = json.dumps(answer(args)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):  # quiet: one line per request would flood the terminal
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8888), Handler)
    if len(sys.argv) > 3:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        if len(sys.argv) > 4:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(sys.argv[4])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()
