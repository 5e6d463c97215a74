#!/usr/bin/env python3
"""Waiting documents cost nothing where nobody waits: doc_push of one document,
doc_send of one document, and doc_pick of one + doc_complete, into a queue no
document waits on, measured alternately in one run in two states of the same
database: "before", with no waiting document anywhere (fetchq.awaited_queues
empty), and "with waits elsewhere", after 20,000 documents of another queue
wait on documents of a third (so the catalog of waits is full and every
backend's per-queue flag says "not awaited" for the measured queue).
pgbench -M prepared.

The goal: every ratio within noise of 1 (>= 0.95). doc_send next to
doc_push shows the full push costs what the Fetchq 4 one does.

Run by bench/run.sh --depends (writes the depends block of docs/benchmarks.md)
and bench/run.sh --smoke (a few seconds, checked, writes nothing)."""
import argparse
import os
import statistics
import sys
import tempfile

from driver import Failure, log, pgbench, psql, replace_block

DB = "depends"
MARK_BEGIN = "<!-- depends:begin (written by bench/depends.py) -->"
MARK_END = "<!-- depends:end -->"
SCRIPTS = {
    "push": "\\set s random(1, 9000000000000000000)\n"
            "SELECT fetchq.doc_push('pq', :s, '{\"bench\": 1}'::jsonb);\n",
    "send": "\\set s random(1, 9000000000000000000)\n"
            "SELECT fetchq.doc_send(queue => 'pq', subject => 's' || :s, "
            "payload => '{\"bench\": 1}'::jsonb);\n",
    "pick": "SELECT COALESCE((SELECT subject FROM fetchq.doc_pick('pq', 0, 1, '5m')), '-') "
            "AS subject \\gset\n"
            "SELECT fetchq.doc_complete('pq', :subject);\n",
}
LABELS = {"push": "doc_push 1", "send": "doc_send 1", "pick": "pick 1 + complete"}
STATES = ("before", "waits elsewhere")


def setup(backlog):
    psql("postgres", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {DB};")
    psql(DB, """CREATE EXTENSION fetchq;
        SELECT fetchq.queue_create('pq');
        SELECT fetchq.queue_create('dep');
        SELECT fetchq.queue_create('waiting');""")
    refill(backlog)


def set_state(state, waits):
    """No waiting document anywhere, or `waits` documents of queue waiting on
    documents of queue dep."""
    if state == "before":
        psql(DB, """TRUNCATE fetchq_data.waiting__docs, fetchq_data.dep__docs;
            DELETE FROM fetchq.doc_dependencies; DELETE FROM fetchq.doc_waits;
            DELETE FROM fetchq.awaited_queues;
            SELECT 1 FROM fetchq.metric_reset('waiting');
            SELECT 1 FROM fetchq.metric_reset('dep');""")
    else:
        psql(DB, f"""SELECT fetchq.doc_send('dep', 'd' || g) FROM generate_series(1, {waits}) AS g;
            SELECT fetchq.doc_send('waiting', 'w' || g,
                depends_on => ARRAY[('dep', 'd' || g)]::fetchq.doc_ref[])
            FROM generate_series(1, {waits}) AS g;""")
    got = psql(DB, "SELECT count(*) FROM fetchq.awaited_queues;").strip()
    if got != ("0" if state == "before" else "1"):
        raise Failure(f"state {state}: {got} awaited queues")


def refill(backlog):
    """The pick runs' backlog, straight into the table, counters recomputed."""
    psql(DB, f"""TRUNCATE fetchq_data.pq__docs;
        INSERT INTO fetchq_data.pq__docs (subject, version, priority, status, next_iteration,
                                          payload, created_at)
        SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond',
               '{{"bench": 1}}', now() FROM generate_series(1, {backlog}) AS g;
        SELECT 1 FROM fetchq.metric_reset('pq');
        VACUUM ANALYZE fetchq_data.pq__docs;""")


def run(tmp, op, clients, duration):
    path = os.path.join(tmp, f"{op}.sql")
    with open(path, "w") as f:
        f.write(SCRIPTS[op])
    _, tps, _ = pgbench(DB, path, clients, duration)
    return tps


def check_counters():
    for queue in ("pq", "waiting", "dep"):
        got = psql(DB, "SELECT cnt || ' ' || pln || ' ' || pnd || ' ' || act || ' ' || cpl "
                       f"FROM fetchq.metric_get_common('{queue}');").strip()
        want = psql(DB, "SELECT cnt || ' ' || pln || ' ' || pnd || ' ' || act || ' ' || cpl "
                        f"FROM fetchq.metric_compute('{queue}');").strip()
        if got != want:
            raise Failure(f"{queue}: counters {got} differ from metric_compute's {want}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--backlog", type=int, default=400000)
    ap.add_argument("--waits", type=int, default=20000)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --depends")
    a = ap.parse_args()
    if a.smoke:
        a.duration, a.reps, a.backlog, a.waits = 1, 1, 50000, 1000
    tps = {(op, state): [] for op in SCRIPTS for state in STATES}
    try:
        setup(a.backlog)
        with tempfile.TemporaryDirectory() as tmp:
            for rep in range(a.reps):
                # Alternately, the first state changing each repetition.
                order = STATES if rep % 2 == 0 else tuple(reversed(STATES))
                for state in order:
                    set_state(state, a.waits)
                    for op in SCRIPTS:
                        if op == "pick":
                            refill(a.backlog)
                        tps[(op, state)].append(run(tmp, op, a.clients, a.duration))
        check_counters()
    except Failure as e:
        log(f"depends: FAILED: {e}")
        return 1
    rows = []
    for op in SCRIPTS:
        before = statistics.median(tps[(op, STATES[0])])
        after = statistics.median(tps[(op, STATES[1])])
        ratios = [x / b for x, b in zip(tps[(op, STATES[1])], tps[(op, STATES[0])])]
        rows.append(f"| {LABELS[op]} | {before:,.0f} | {after:,.0f} | "
                    f"{statistics.median(ratios):.2f}x ({min(ratios):.2f} to {max(ratios):.2f}) |")
        log(f"depends: {LABELS[op]}: before {before:.0f}/s, with waits elsewhere {after:.0f}/s, "
            f"ratio {statistics.median(ratios):.2f}")
    text = "\n".join([
        f"Waiting documents (`{a.command}`), {a.clients} clients, {a.reps} alternating runs "
        f"of {a.duration} s per cell, transactions per second (medians) on a queue nobody "
        f"waits on, with no waiting document anywhere and with {a.waits:,} waiting in another "
        "queue; ratio per pair of runs (median, range):",
        "",
        "| operation | no waiting document | waits elsewhere | ratio |",
        "|---|---|---|---|",
        *rows,
    ])
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"depends: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
