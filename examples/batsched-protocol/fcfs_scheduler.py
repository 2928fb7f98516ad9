#!/usr/bin/env python3
"""A Batsim scheduler in 40 lines: strict FCFS on the lowest free machines, speaking Batsim's v4
protocol over ZeroMQ (python3-zmq). It binds a REP socket, as batsched and pybatsim do; the
simulator (Batsim, or `kubesim run --batsim-socket`) connects and sends one message per event
batch; each reply carries the decisions, dated the message's `now`.

  fcfs_scheduler.py ENDPOINT        e.g. tcp://*:28000 or ipc:///tmp/fcfs.sock
"""
import json
import sys

import zmq


def main(endpoint):
    sock = zmq.Context().socket(zmq.REP)
    sock.bind(endpoint)
    machines, free, queue, jobs = 0, [], [], {}
    while True:
        msg = json.loads(sock.recv())
        now, decisions = msg["now"], []
        for e in msg["events"]:
            data = e["data"]
            if e["type"] == "SIMULATION_BEGINS":
                machines = data["nb_compute_resources"]
                free = list(range(machines))
            elif e["type"] == "JOB_SUBMITTED":
                job = data["job"]
                if job["res"] > machines:  # can never run: rejected, as batsched does
                    decisions.append({"timestamp": now, "type": "REJECT_JOB", "data": {"job_id": data["job_id"]}})
                else:
                    jobs[data["job_id"]] = job["res"]
                    queue.append(data["job_id"])
            elif e["type"] == "JOB_COMPLETED":
                free += jobs.pop("alloc:" + data["job_id"])
                free.sort()
        while queue and jobs[queue[0]] <= len(free):  # strict FCFS: only the head may start
            job_id = queue.pop(0)
            alloc, free = free[:jobs[job_id]], free[jobs[job_id]:]
            jobs["alloc:" + job_id] = alloc
            decisions.append({"timestamp": now, "type": "EXECUTE_JOB",
                              "data": {"job_id": job_id, "alloc": " ".join(map(str, alloc))}})
        sock.send_string(json.dumps({"now": now, "events": decisions}))
        if any(e["type"] == "SIMULATION_ENDS" for e in msg["events"]):
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tcp://*:28000"))
