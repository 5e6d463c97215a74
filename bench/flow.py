#!/usr/bin/env python3
"""Flow limits (issue 35): doc_pick of one + doc_complete on a queue with
key_max_active = 1 over 1,000 keys, next to the same work on a queue without
limits, in one run, at 1, 4 and 16 clients. Both queues get the same backlog
(documents of the 1,000 keys in turn, in pick order), refilled before each
run; pgbench -M prepared. The goal of issue 35: the limited queue at >= 0.8x
the queue without limits. A third column, "no limits, limits elsewhere",
runs the queue without limits while another queue of the database has
limits: a queue without limits must cost what it did (its pick looks the
limits up once, in the per-backend cache, and takes the path it always
took).

Run by bench/run.sh --flow (writes the flow block of docs/benchmarks.md)."""
import argparse
import os
import statistics
import sys
import tempfile

from driver import Failure, log, pgbench, psql, replace_block

DB = "flow"
MARK_BEGIN = "<!-- flow:begin (written by bench/flow.py) -->"
MARK_END = "<!-- flow:end -->"
PICK = ("SELECT COALESCE((SELECT subject FROM fetchq.doc_pick('{q}', 0, 1, '5m')), '-') "
        "AS subject \\gset\n"
        "SELECT fetchq.doc_complete('{q}', :subject);\n")
CASES = (("plain", "no limits"), ("limited", "key_max_active 1, 1,000 keys"),
         ("plain_elsewhere", "no limits, limits elsewhere"))


def setup():
    psql("postgres", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {DB};")
    psql(DB, """CREATE EXTENSION fetchq;
        SELECT fetchq.queue_create('plain');
        SELECT fetchq.queue_create('limited');
        SELECT fetchq.queue_create('other');""")


def limits_elsewhere(on):
    """Limits on queue other (none of the measured documents are there)."""
    psql(DB, "SELECT fetchq.queue_set_limits('other', key_max_active => %s);"
         % ("1" if on else "NULL"))


def refill(queue, backlog, keys):
    """The backlog, straight into the table: document g of key g % keys."""
    psql(DB, f"""TRUNCATE fetchq_data.{queue}__docs;
        INSERT INTO fetchq_data.{queue}__docs (subject, version, priority, status,
                                               next_iteration, payload, created_at, flow_key)
        SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond',
               '{{"bench": 1}}', now(), 'k' || (g % {keys}) FROM generate_series(1, {backlog}) AS g;
        SELECT 1 FROM fetchq.metric_reset('{queue}');
        VACUUM ANALYZE fetchq_data.{queue}__docs;""")


def run(tmp, queue, clients, duration):
    path = os.path.join(tmp, f"{queue}.sql")
    with open(path, "w") as f:
        f.write(PICK.format(q=queue))
    _, tps, _ = pgbench(DB, path, clients, duration)
    return tps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="1,4,16")
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--backlog", type=int, default=200000)
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--note", default="")
    ap.add_argument("--command", default="bench/run.sh --flow")
    a = ap.parse_args()
    clients = [int(c) for c in a.clients.split(",")]
    if a.smoke:
        a.duration, a.reps, a.backlog, clients = 1, 1, 20000, [1, 4]
    tps = {(case, c): [] for case, _ in CASES for c in clients}
    try:
        setup()
        psql(DB, "SELECT fetchq.queue_set_limits('limited', key_max_active => 1);")
        with tempfile.TemporaryDirectory() as tmp:
            for rep in range(a.reps):
                for c in clients:
                    order = list(CASES) if rep % 2 == 0 else list(reversed(CASES))
                    for case, _ in order:
                        queue = "limited" if case == "limited" else "plain"
                        limits_elsewhere(case == "plain_elsewhere")
                        refill(queue, a.backlog, a.keys)
                        tps[(case, c)].append(run(tmp, queue, c, a.duration))
                        log(f"flow: {case} at {c} clients: {tps[(case, c)][-1]:.0f}/s")
        # Never more than one active document of a key (they were all completed
        # by the clients but the last ones).
        over = psql(DB, "SELECT count(*) FROM (SELECT flow_key FROM fetchq_data.limited__docs "
                        "WHERE status = 2 GROUP BY flow_key HAVING count(*) > 1) AS k;").strip()
        if over != "0":
            raise Failure(f"{over} keys with more than one active document")
    except Failure as e:
        log(f"flow: FAILED: {e}")
        return 1
    rows = []
    for c in clients:
        plain = statistics.median(tps[("plain", c)])
        limited = statistics.median(tps[("limited", c)])
        elsewhere = statistics.median(tps[("plain_elsewhere", c)])
        rows.append(f"| {c} | {plain:,.0f} | {limited:,.0f} | {limited / plain:.2f}x | "
                    f"{elsewhere:,.0f} | {elsewhere / plain:.2f}x |")
    text = "\n".join([
        f"Flow limits (`{a.command}`), pick 1 + complete, {a.reps} run(s) of {a.duration} s per "
        f"cell, transactions per second; a backlog of {a.backlog:,} documents over "
        f"{a.keys:,} keys in turn, refilled before each run{a.note}:",
        "",
        "| clients | no limits | key_max_active 1 | ratio | no limits, limits elsewhere | ratio |",
        "|---|---|---|---|---|---|",
        *rows,
    ])
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"flow: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
