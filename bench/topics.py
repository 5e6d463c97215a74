#!/usr/bin/env python3
"""Pushes into a topic with 1, 10 and 100 subscriptions, half of them matching
(a selector on the payload), side by side with two floors: the same inserts
into the same tables written by hand, in one transaction, by a client that
knows which subscriptions match. All run on one server (fetchq in a database of
its own, both floors in another, each with the extension and its workers),
alternately, pgbench -M prepared.

fetchq:          SELECT fetchq.doc_push('t<N>', <subject>, 0, 0, now(), '{"k": 1}')
floor:           BEGIN; INSERT INTO <subscription 0> ... RETURNING subject;
                 ... one INSERT per matching subscription ...; COMMIT (one
                 INSERT, no BEGIN/COMMIT, when one subscription matches)
floor, one statement: WITH d AS (<subject>), i0 AS (INSERT INTO <subscription 0>
                 ...), ... SELECT 1   -- the strictest: one round trip, one executor

pgmq's topic send (pgmq.send_topic) is in pgmq 1.11 and later; the snapshot
available here (1.5.1) has none, so there is no pgmq column.

Run by bench/run.sh --topics (writes the topics block of docs/benchmarks.md) and
bench/run.sh --smoke (a few hundred transactions, checked, writes nothing)."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from driver import Failure, log, pgbench, psql, replace_block

SUBSCRIPTIONS = (1, 10, 100)
MARK_BEGIN = "<!-- topics:begin (written by bench/topics.py) -->"
MARK_END = "<!-- topics:end -->"
EXT, FLOOR = "topics_ext", "topics_floor"
SYSTEMS = ("fetchq", "floor", "floor_1")  # floor_1: the floor in one statement
DB = {"fetchq": EXT, "floor": FLOOR, "floor_1": FLOOR}


def matching(n):
    return max(1, n // 2)


def sub(n, i):
    return f"t{n}_s{i}"


def create(smoke):
    for db in (EXT, FLOOR):
        psql("postgres", f"DROP DATABASE IF EXISTS {db} WITH (FORCE);")
        psql("postgres", f"CREATE DATABASE {db};")
        psql(db, "CREATE EXTENSION fetchq; CREATE SEQUENCE public.ids;")
    sql_ext, sql_floor = [], []
    for n in SUBSCRIPTIONS:
        sql_ext.append(f"SELECT fetchq.topic_create('t{n}');")
        for i in range(n):
            selector = '$.k == 1' if i < matching(n) else '$.k == 2'
            sql_ext.append(f"SELECT fetchq.subscribe('t{n}', '{sub(n, i)}', '{selector}');")
            if i < matching(n):
                sql_floor.append(f"SELECT fetchq.queue_create('{sub(n, i)}');")
    psql(EXT, "\n".join(sql_ext))
    psql(FLOOR, "\n".join(sql_floor))


def scripts(tmp):
    out = {}
    for n in SUBSCRIPTIONS:
        files = {s: os.path.join(tmp, f"{s}_{n}.sql") for s in SYSTEMS}
        with open(files["fetchq"], "w") as f:
            f.write(f"SELECT fetchq.doc_push('t{n}', nextval('public.ids')::text, 0, 0, now(), "
                    "'{\"k\": 1}');\n")
        insert = ("INSERT INTO fetchq_data.{table}__docs (subject, version, priority, status, "
                  "next_iteration, payload, created_at) SELECT {subject}, 0, 0, 1, now(), "
                  "'{{\"k\": 1}}', now() {source}ON CONFLICT (subject) DO NOTHING")
        with open(files["floor"], "w") as f:
            # the first insert draws the subject, the others reuse it
            m = matching(n)
            f.write("BEGIN;\n" if m > 1 else "")
            f.write(insert.format(table=sub(n, 0), subject="nextval('public.ids')::text",
                                  source="") + " RETURNING subject\n\\gset\n")
            for i in range(1, m):
                f.write(insert.format(table=sub(n, i), subject=":subject", source="") + ";\n")
            f.write("COMMIT;\n" if m > 1 else "")
        ctes = ",\n".join(
            f"i{i} AS (" + insert.format(table=sub(n, i), subject="subject", source="FROM d ") + ")"
            for i in range(matching(n)))
        with open(files["floor_1"], "w") as f:
            f.write(f"WITH d AS (SELECT nextval('public.ids')::text AS subject),\n{ctes}\n"
                    "SELECT 1;\n")
        out[n] = files
    return out


def truncate(db):
    psql(db, "DO $$ DECLARE t regclass; BEGIN FOR t IN SELECT c.oid FROM pg_class c "
             "JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'fetchq_data' "
             "AND c.relkind = 'r' AND c.relname LIKE '%\\_\\_docs' LOOP "
             "EXECUTE format('TRUNCATE %s', t); END LOOP; END $$;")


def count(db, table):
    return int(psql(db, f"SELECT count(*) FROM fetchq_data.{table}__docs;").strip())


def check(n, xacts):
    """Every matching subscription got one document per transaction of fetchq
    and of each floor, the others none."""
    for i in range(n):
        want = xacts if i < matching(n) else 0
        got = count(EXT, sub(n, i))
        if got != want:
            raise Failure(f"t{n}: subscription {sub(n, i)} has {got} documents, wanted {want}")
    if count(EXT, f"t{n}") != 0:
        raise Failure(f"t{n}: the topic kept documents")
    for i in range(matching(n)):
        if count(FLOOR, sub(n, i)) != 2 * xacts:
            raise Failure(f"floors t{n}: {sub(n, i)} does not have {2 * xacts} documents")


def run(clients, duration, reps, smoke):
    create(smoke)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = scripts(tmp)
        for n in SUBSCRIPTIONS:
            tps = {s: [] for s in SYSTEMS}
            for db in (EXT, FLOOR):
                truncate(db)
            for rep in range(reps):
                order = SYSTEMS if rep % 2 == 0 else tuple(reversed(SYSTEMS))
                for system in order:
                    if smoke:
                        _, rate, _ = pgbench(DB[system], files[n][system], 1, None,
                                             transactions=100)
                    else:
                        _, rate, _ = pgbench(DB[system], files[n][system], clients, duration)
                    tps[system].append(rate)
            if smoke:
                check(n, 100)
            results[n] = {s: statistics.median(v) for s, v in tps.items()}
            r = results[n]
            log(f"topics: {n} subscriptions: fetchq {r['fetchq']:.0f} tps, floor "
                f"{r['floor']:.0f} ({r['fetchq'] / r['floor']:.2f}x), floor in one statement "
                f"{r['floor_1']:.0f} ({r['fetchq'] / r['floor_1']:.2f}x)")
    return results


def block(results, clients, duration, reps, command):
    lines = [
        f"Pushes into a topic, {clients} client(s), median of {reps} runs of {duration} s "
        f"each (`{command}`):",
        "",
        "| subscriptions (matching) | fetchq doc_push, tps | floor: an INSERT each, tps "
        "| fetchq / floor | floor in one statement, tps | fetchq / that floor "
        "| copies per second (fetchq) |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, r in results.items():
        lines.append(f"| {n} ({matching(n)}) | {r['fetchq']:.0f} | {r['floor']:.0f} | "
                     f"{r['fetchq'] / r['floor']:.2f}x | {r['floor_1']:.0f} | "
                     f"{r['fetchq'] / r['floor_1']:.2f}x | {r['fetchq'] * matching(n):.0f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=1)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc", help="docs/benchmarks.md: rewrite its topics block")
    ap.add_argument("--command", default="bench/run.sh --topics")
    a = ap.parse_args()
    try:
        reps = 1 if a.smoke else a.reps
        results = run(a.clients, a.duration, reps, a.smoke)
    except Failure as e:
        log(f"topics: FAILED: {e}")
        return 1
    text = block(results, a.clients, a.duration, reps, a.command)
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"topics: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
