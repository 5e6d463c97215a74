#!/usr/bin/env python3
"""Per-queue privileges: push and pick + complete by a role that holds only a
queue_grant (push, pick) and USAGE on the schemas, next to the same by the
queue's owner, on one queue with grants, alternately, pgbench -M prepared.

The owner's calls run as itself; the granted role's calls check its
privilege (a per-backend cached lookup) and run as the queue's owner, its
counters written on its behalf. The goal: the granted role within 5 % of the
owner (ratio >= 0.95).

Run by bench/run.sh --privileges (writes the privileges block of
docs/benchmarks.md) and bench/run.sh --smoke (a few seconds, checked, writes
nothing)."""
import argparse
import os
import statistics
import sys
import tempfile

from driver import Failure, log, pgbench, psql, replace_block

DB = "privileges"
OWNER, GRANTED = "bench_owner", "bench_granted"
MARK_BEGIN = "<!-- privileges:begin (written by bench/privileges.py) -->"
MARK_END = "<!-- privileges:end -->"
SCRIPTS = {
    "push": "\\set s random(1, 9000000000000000000)\n"
            "SELECT fetchq.doc_push('pq', :s, '{\"bench\": 1}'::jsonb);\n",
    # An empty queue (the backlog used up) completes nothing rather than fail.
    "pick": "SELECT COALESCE((SELECT subject FROM fetchq.doc_pick('pq', 0, 1, '5m')), '-') "
            "AS subject \\gset\n"
            "SELECT fetchq.doc_complete('pq', :subject);\n",
}
LABELS = {"push": "push 1", "pick": "pick 1 + complete"}


def setup(backlog):
    psql("postgres", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE);")
    for role in (OWNER, GRANTED):
        psql("postgres", f"DROP ROLE IF EXISTS {role};")
        psql("postgres", f"CREATE ROLE {role} LOGIN;")
    psql("postgres", f"CREATE DATABASE {DB};")
    psql(DB, f"""CREATE EXTENSION fetchq;
        GRANT USAGE ON SCHEMA fetchq, fetchq_data TO {OWNER}, {GRANTED};
        GRANT SELECT ON fetchq.queues, fetchq.metrics TO {OWNER};
        GRANT CREATE ON SCHEMA fetchq_data TO {OWNER};
        SET ROLE {OWNER};
        SELECT fetchq.queue_create('pq');
        SELECT fetchq.queue_grant('pq', '{GRANTED}', 'push, pick');
        RESET ROLE;""")
    refill(backlog)


def refill(backlog):
    """The pick runs' backlog, straight into the table, counters recomputed."""
    psql(DB, f"""TRUNCATE fetchq_data.pq__docs;
        INSERT INTO fetchq_data.pq__docs (subject, version, priority, status, next_iteration,
                                          payload, created_at)
        SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond',
               '{{"bench": 1}}', now() FROM generate_series(1, {backlog}) AS g;
        SELECT 1 FROM fetchq.metric_reset('pq');
        VACUUM ANALYZE fetchq_data.pq__docs;""")


def run(tmp, op, role, clients, duration):
    path = os.path.join(tmp, f"{op}.sql")
    with open(path, "w") as f:
        f.write(SCRIPTS[op])
    saved = os.environ.get("PGUSER")
    os.environ["PGUSER"] = role
    try:
        _, tps, _ = pgbench(DB, path, clients, duration)
    finally:
        os.environ["PGUSER"] = saved
    return tps


def check_counters():
    """The counters the granted role wrote on its behalf are exact."""
    got = psql(DB, "SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl "
                   "FROM fetchq.metric_get_common('pq');").strip()
    want = psql(DB, "SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl "
                    "FROM fetchq.metric_compute('pq');").strip()
    if got != want:
        raise Failure(f"counters {got} differ from metric_compute's {want}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--backlog", type=int, default=400000)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --privileges")
    a = ap.parse_args()
    if a.smoke:
        a.duration, a.reps, a.backlog = 1, 1, 100000
    tps = {(op, role): [] for op in SCRIPTS for role in (OWNER, GRANTED)}
    try:
        setup(a.backlog)
        with tempfile.TemporaryDirectory() as tmp:
            for rep in range(a.reps):
                # Alternately, the first role changing each repetition.
                order = (OWNER, GRANTED) if rep % 2 == 0 else (GRANTED, OWNER)
                for op in SCRIPTS:
                    for role in order:
                        if op == "pick":
                            refill(a.backlog)
                        tps[(op, role)].append(run(tmp, op, role, a.clients, a.duration))
        check_counters()
    except Failure as e:
        log(f"privileges: FAILED: {e}")
        return 1
    rows = []
    for op in SCRIPTS:
        owner = statistics.median(tps[(op, OWNER)])
        granted = statistics.median(tps[(op, GRANTED)])
        ratios = [g / o for g, o in zip(tps[(op, GRANTED)], tps[(op, OWNER)])]
        rows.append(f"| {LABELS[op]} | {owner:,.0f} | {granted:,.0f} | "
                    f"{statistics.median(ratios):.2f}x ({min(ratios):.2f} to {max(ratios):.2f}) |")
        log(f"privileges: {LABELS[op]}: owner {owner:.0f}/s, granted role {granted:.0f}/s, "
            f"ratio {statistics.median(ratios):.2f}")
    text = "\n".join([
        f"Per-queue privileges (`{a.command}`), {a.clients} clients, {a.reps} alternating runs "
        f"of {a.duration} s per cell, transactions per second (medians), ratio granted / owner "
        "per pair of runs (median, range):",
        "",
        "| operation | queue's owner | role with queue_grant only | ratio |",
        "|---|---|---|---|",
        *rows,
    ])
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"privileges: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
