#!/usr/bin/env python3
"""Pushes into a queue with a remote route (issue 34), at 1 and 4 clients,
next to the same pushes into a queue with no route and into a queue with a
local route. The remote route goes to a second database of the same cluster
over logical replication (a publication and a subscription within one
server: the slot is created first, remote_subscribe(..., create_slot =>
false)); the server has wal_level = logical for every case.

push cost:   SELECT fetchq.doc_push('<q>', nextval('public.ids')::text, 0, 0, now(), '{"k": 1}')
             into plain (no route), local (a route to a queue of the same
             database) and remote (a remote route to the other database),
             pgbench -M prepared, tps on A. During the remote run B's
             subscription is disabled, so that neither the walsender nor the
             apply worker takes the machine's CPU from A's pushes: the tps
             are A's own cost.
delivery:    then, the subscription enabled again, the documents of that run
             delivered per second on B (the backlog, from the first arrival
             to the last, fetchq.doc_origins).
latency:     first, the subscription enabled and caught up, pgbench at a
             fixed rate (-R, below what B applies per second), then the
             delivery latency, median
             and p99: doc_origins.arrived_at (B's push, in the apply
             worker's transaction, which commits right after) minus sent_at
             (the outbox write in A's pushing transaction, right before its
             commit), one clock.

Run by bench/run.sh --remote (writes the remote routes block of
docs/benchmarks.md) and --smoke (a few hundred transactions, checked)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from driver import Failure, log, pgbench, psql, replace_block

MARK_BEGIN = "<!-- remote:begin (written by bench/remote.py) -->"
MARK_END = "<!-- remote:end -->"
A, B = "remote_a", "remote_b"
CASES = ("plain", "local", "remote")
QUEUE = {"plain": "plain", "local": "routed", "remote": "sent"}


def create():
    psql(B, "SELECT fetchq.remote_unsubscribe('rb');", check=False)
    for db in (A, B):
        psql("postgres", f"DROP DATABASE IF EXISTS {db} WITH (FORCE);")
        psql("postgres", f"CREATE DATABASE {db};")
        psql(db, "CREATE EXTENSION fetchq; CREATE SEQUENCE public.ids;")
    psql("postgres", "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                     "WHERE slot_name = 'fetchq_remote_rb';")
    psql(A, "SELECT fetchq.queue_create('plain'); SELECT fetchq.queue_create('routed');"
            "SELECT fetchq.queue_create('copies'); SELECT fetchq.queue_create('sent');"
            "SELECT fetchq.route_create('routed', 'copies');"
            "SELECT fetchq.remote_route_create('sent', 'rb/arrived');"
            "SELECT pg_create_logical_replication_slot('fetchq_remote_rb', 'pgoutput');")
    psql(B, "SELECT fetchq.queue_create('arrived');")
    conninfo = f"host={os.environ['PGHOST']} port={os.environ['PGPORT']} dbname={A} user=postgres"
    psql(B, f"SELECT fetchq.remote_subscribe('rb', '{conninfo}', 'postgres', create_slot => false);")


def count(db, queue):
    return int(psql(db, f"SELECT count(*) FROM fetchq_data.{queue}__docs;").strip())


def reset():
    for q in ("plain", "routed", "copies", "sent"):
        psql(A, f"TRUNCATE fetchq_data.{q}__docs;")
    psql(B, "TRUNCATE fetchq_data.arrived__docs; TRUNCATE fetchq.doc_origins;")


def wait_delivered(n, seconds=300):
    deadline = time.time() + seconds
    got = -1
    while time.time() < deadline:
        got = count(B, "arrived")
        if got >= n:
            return got
        time.sleep(0.2)
    raise Failure(f"only {got} of {n} documents arrived on B within {seconds} s")


def delivery():
    row = psql(B, "SELECT count(*), count(*) / GREATEST(extract(epoch FROM max(arrived_at) - "
                  "min(arrived_at)), 0.001), "
                  "1000 * extract(epoch FROM percentile_cont(0.5) WITHIN GROUP "
                  "(ORDER BY arrived_at - sent_at)), "
                  "1000 * extract(epoch FROM percentile_cont(0.99) WITHIN GROUP "
                  "(ORDER BY arrived_at - sent_at)) FROM fetchq.doc_origins;").strip()
    n, rate, p50, p99 = row.split("|")
    return int(n), float(rate), float(p50), float(p99)


def subscription(enabled):
    psql(B, f"ALTER SUBSCRIPTION fetchq_remote_rb {'ENABLE' if enabled else 'DISABLE'};")


def paced(script, clients, duration, rate):
    """pgbench at `rate` transactions per second in all."""
    cmd = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(clients, 2)),
           "-T", str(duration), "-R", str(rate), "-f", script, A]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"pgbench -R failed:\n{p.stdout}{p.stderr}")


def run(clients_list, duration, smoke, rate):
    create()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for case in CASES:
            files[case] = os.path.join(tmp, f"{case}.sql")
            with open(files[case], "w") as f:
                f.write(f"SELECT fetchq.doc_push('{QUEUE[case]}', nextval('public.ids')::text, "
                        "0, 0, now(), '{\"k\": 1}');\n")
        for clients in clients_list:
            r = {}
            for case in CASES:
                if case == "remote":
                    # The latency first, at a fixed rate, the subscription
                    # enabled and caught up; then the backlog.
                    reset()
                    time.sleep(1)
                    if smoke:
                        pgbench(A, files[case], 1, None, transactions=100)
                    else:
                        paced(files[case], clients, duration, rate)
                    wait_delivered(count(A, "sent"))
                    _, _, p50, p99 = delivery()
                    r.update(p50=p50, p99=p99)
                    subscription(False)
                reset()
                if smoke:
                    _, tps, _ = pgbench(A, files[case], 1, None, transactions=200)
                else:
                    _, tps, _ = pgbench(A, files[case], clients, duration)
                r[case] = tps
                if case == "local" and count(A, "copies") != count(A, "routed"):
                    raise Failure("the local route did not copy every document")
                if case == "remote":
                    pushed = count(A, "sent")
                    subscription(True)
                    got = wait_delivered(pushed)
                    if got != pushed or count(A, "sent") != pushed:
                        raise Failure(f"{pushed} pushed, {got} arrived")
                    n, per_s, _, _ = delivery()
                    if n != pushed:
                        raise Failure(f"{pushed} pushed, {n} origins recorded")
                    r.update(delivered=per_s, n=n)
            results[clients] = r
            log(f"remote: {clients} client(s): push {r['plain']:.0f} tps, with a local route "
                f"{r['local']:.0f}, with a remote route {r['remote']:.0f}; delivered on B "
                f"{r['delivered']:.0f}/s; at {rate}/s latency median {r['p50']:.1f} ms, "
                f"p99 {r['p99']:.1f} ms")
    psql(B, "SELECT fetchq.remote_unsubscribe('rb');")
    return results


def block(results, duration, rate, command):
    lines = [
        f"Pushes into a remote route, one run of {duration} s per case (`{command}`; "
        "a second database of the same cluster, wal_level = logical for all cases; "
        f"latency at {rate} pushes per second in all):",
        "",
        "| clients | push, no route, tps | push, local route, tps | push, remote route, tps "
        "| remote / local | delivered on B, per s | latency median, ms | latency p99, ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c, r in results.items():
        lines.append(f"| {c} | {r['plain']:.0f} | {r['local']:.0f} | {r['remote']:.0f} | "
                     f"{r['remote'] / r['local']:.2f}x | {r['delivered']:.0f} | "
                     f"{r['p50']:.1f} | {r['p99']:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="1,4")
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--rate", type=int, default=500, help="pushes per second for the latency")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc", help="docs/benchmarks.md: rewrite its remote routes block")
    ap.add_argument("--command", default="bench/run.sh --remote")
    a = ap.parse_args()
    clients = [int(c) for c in a.clients.split(",")]
    try:
        results = run(clients if not a.smoke else [1], a.duration, a.smoke, a.rate)
    except Failure as e:
        log(f"remote: FAILED: {e}")
        return 1
    text = block(results, a.duration, a.rate, a.command)
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"remote: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
