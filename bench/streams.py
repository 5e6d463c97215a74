#!/usr/bin/env python3
"""Streams: appends (1 and 100 per transaction, 1 and 1,000 keys, 1 and 16
clients) and read + commit cycles, fetchq's stream functions next to the
floor doing the same by hand and, for appends, next to PgQ's insert_event,
all in one database on one server, alternately, pgbench -M prepared.

fetchq:  SELECT fetchq.stream_append('bs', <key>, '{"bench": 1}')
floor:   a key head row plus an insert, in one statement:
         WITH h AS (INSERT INTO floor_heads ... ON CONFLICT (key) DO UPDATE
                    SET last = h.last + 1 RETURNING last)
         INSERT INTO floor_messages SELECT <key>, last, '{"bench": 1}' FROM h
pgq:     SELECT pgq.insert_event('bs', 'msg', '{"bench": 1}', <key>, ...)
         (no offsets per key: events are numbered by one sequence)

Read + commit: the messages after the group's committed offset of a random
key (of 1,000, each with a backlog of 1,000), at most 10, then the commit of
the last; a fixed number of cycles (50,000 over all clients), which never
empties a key: a consumer that reads nothing is another case.

Run by bench/run.sh --streams (writes the streams block of
docs/benchmarks.md) and bench/run.sh --smoke (a second per cell, checked,
writes nothing). The goal: fetchq >= 0.9x the floor."""
import argparse
import os
import statistics
import sys
import tempfile

from driver import Failure, log, pgbench, psql, replace_block

DB = "streams"
MARK_BEGIN = "<!-- streams:begin (written by bench/streams.py) -->"
MARK_END = "<!-- streams:end -->"
PAYLOAD = "'{\"bench\": 1}'"

FLOOR_SETUP = """
CREATE TABLE floor_heads (key text PRIMARY KEY, last bigint NOT NULL);
CREATE TABLE floor_messages (key text NOT NULL, "offset" bigint NOT NULL, payload jsonb,
    appended_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (key, "offset"));
CREATE TABLE floor_offsets (grp text NOT NULL, key text NOT NULL, committed bigint NOT NULL,
    PRIMARY KEY (grp, key));
"""


def append_line(system, key_expr):
    if system == "fetchq":
        return f"SELECT fetchq.stream_append('bs', {key_expr}, {PAYLOAD});\n"
    if system == "floor":
        return ("WITH h AS (INSERT INTO floor_heads AS h (key, last) VALUES "
                f"({key_expr}, 1) ON CONFLICT (key) DO UPDATE SET last = h.last + 1 RETURNING last) "
                f"INSERT INTO floor_messages (key, \"offset\", payload) SELECT {key_expr}, last, "
                f"{PAYLOAD} FROM h;\n")
    return f"SELECT pgq.insert_event('bs', 'msg', {PAYLOAD}, {key_expr}, NULL, NULL, NULL);\n"


def append_script(system, keys, per_xact):
    key = "'k' || :k" if keys > 1 else "'k1'"
    head = f"\\set k random(1, {keys})\n" if keys > 1 else ""
    if per_xact == 1:
        return head + append_line(system, key)
    return head + "BEGIN;\n" + append_line(system, key) * per_xact + "COMMIT;\n"


def read_commit_script(system):
    if system == "fetchq":
        return ("\\set k random(1, 1000)\n"
                "SELECT COALESCE(max(\"offset\"), 0) AS top, count(payload) AS n, "
                "max(appended_at) AS at FROM fetchq.stream_read('bs', 'g', 'k' || :k, 10) \\gset\n"
                "SELECT fetchq.stream_commit('bs', 'g', 'k' || :k, :top);\n")
    return ("\\set k random(1, 1000)\n"
            "SELECT COALESCE(max(\"offset\"), 0) AS top, count(payload) AS n, "
            "max(appended_at) AS at FROM (SELECT \"offset\", payload, appended_at FROM floor_messages "
            "WHERE key = 'k' || :k AND \"offset\" > COALESCE((SELECT committed FROM floor_offsets "
            "WHERE grp = 'g' AND key = 'k' || :k), 0) ORDER BY \"offset\" LIMIT 10) AS m \\gset\n"
            "INSERT INTO floor_offsets AS o (grp, key, committed) VALUES ('g', 'k' || :k, :top) "
            "ON CONFLICT (grp, key) DO UPDATE SET committed = EXCLUDED.committed "
            "WHERE o.committed < EXCLUDED.committed;\n")


def setup(with_pgq):
    psql("postgres", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {DB};")
    psql(DB, "CREATE EXTENSION fetchq; SELECT fetchq.stream_create('bs');" + FLOOR_SETUP)
    if with_pgq:
        psql(DB, "CREATE EXTENSION pgq; SELECT pgq.create_queue('bs');")


def reset_offsets():
    """Every group back to offset 0. The offsets tables are truncated and not
    analyzed: analyzed empty, they would get plans that scan them whole (for
    fetchq and the floor alike) until autovacuum analyzes them again."""
    psql(DB, "TRUNCATE floor_offsets, fetchq.stream_offsets;")


def load_backlog(backlog_per_key):
    """The same backlog in both logs, laid out alike: the keys' messages
    interleaved, as appends to many keys write them."""
    reset_offsets()
    psql(DB, f"""TRUNCATE floor_heads, floor_messages, fetchq.stream_messages,
                          fetchq.stream_keys;
        INSERT INTO fetchq.stream_keys (stream_id, key, last_offset)
          SELECT s.id, 'k' || k, {backlog_per_key} FROM fetchq.streams s, generate_series(1, 1000) k
          WHERE s.name = 'bs';
        INSERT INTO fetchq.stream_messages (stream_id, key, "offset", payload)
          SELECT s.id, 'k' || k, o, {PAYLOAD} FROM fetchq.streams s, generate_series(1, 1000) k,
                 generate_series(1, {backlog_per_key}) o WHERE s.name = 'bs' ORDER BY o, k;
        INSERT INTO floor_heads SELECT 'k' || k, {backlog_per_key} FROM generate_series(1, 1000) k;
        INSERT INTO floor_messages (key, "offset", payload)
          SELECT 'k' || k, o, {PAYLOAD} FROM generate_series(1, 1000) k,
                 generate_series(1, {backlog_per_key}) o ORDER BY o, k;
        VACUUM ANALYZE floor_heads, floor_messages, fetchq.stream_messages, fetchq.stream_keys;""")


def check_gapless():
    """Every key's offsets of the fetchq runs are 1..n, no gap, no duplicate."""
    bad = psql(DB, "SELECT count(*) FROM (SELECT key, count(*) AS n, max(\"offset\") AS top "
                   "FROM fetchq.stream_messages GROUP BY key) x WHERE n <> top;").strip()
    if bad != "0":
        raise Failure(f"{bad} keys have gaps in their offsets")


def run(tmp, name, script, clients, duration, transactions=None):
    path = os.path.join(tmp, name + ".sql")
    with open(path, "w") as f:
        f.write(script)
    _, tps, _ = pgbench(DB, path, clients, duration, transactions=transactions)
    return tps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --streams")
    ap.add_argument("--only", help="only the cases whose label contains this text (for example "
                    "'append 100/xact'); prints, writes nothing under docs/")
    a = ap.parse_args()
    if a.smoke:
        a.duration, a.reps = 1, 1
    with_pgq = psql("postgres", "SELECT count(*) FROM pg_available_extensions "
                                "WHERE name = 'pgq';").strip() == "1"
    systems = ("fetchq", "floor", "pgq") if with_pgq else ("fetchq", "floor")
    cases = [(f"append {per}/xact, {keys} key{'s' if keys > 1 else ''}, {c} client{'s' if c > 1 else ''}",
              lambda s, keys=keys, per=per: append_script(s, keys, per), c, systems)
             for per in (1, 100) for keys in (1, 1000) for c in (1, 16)]
    cases += [(f"read 10 + commit, 1000 keys, {c} client{'s' if c > 1 else ''}",
               read_commit_script, c, ("fetchq", "floor")) for c in (1, 16)]
    if a.only:
        cases = [c for c in cases if a.only in c[0]]
    rows = []
    checked = False
    try:
        setup(with_pgq)
        with tempfile.TemporaryDirectory() as tmp:
            for label, script, clients, who in cases:
                tps = {s: [] for s in who}
                if label.startswith("read") and not checked:
                    check_gapless()  # what the append runs wrote, before the reset
                    checked = True
                    load_backlog(1000 if not a.smoke else 20)
                for rep in range(a.reps):
                    order = who if rep % 2 == 0 else tuple(reversed(who))
                    for s in order:
                        cycles = None
                        if label.startswith("read"):
                            reset_offsets()
                            cycles = (50_000 if not a.smoke else 200) // clients
                        tps[s].append(run(tmp, s, script(s), clients, a.duration, cycles))
                med = {s: statistics.median(v) for s, v in tps.items()}
                vs_floor = statistics.median(f / g for f, g in zip(tps["fetchq"], tps["floor"]))
                cells = [label, f"{med['fetchq']:,.0f}", f"{med['floor']:,.0f}",
                         f"{med['pgq']:,.0f}" if "pgq" in med else "", f"{vs_floor:.2f}x",
                         f"{statistics.median(f / g for f, g in zip(tps['fetchq'], tps['pgq'])):.2f}x"
                         if "pgq" in tps else ""]
                rows.append("| " + " | ".join(cells) + " |")
                log(f"streams: {label}: fetchq {med['fetchq']:.0f}/s, floor {med['floor']:.0f}/s, "
                    f"{vs_floor:.2f}x the floor")
    except Failure as e:
        log(f"streams: FAILED: {e}")
        return 1
    text = "\n".join([
        f"Streams (`{a.command}`), {a.reps} alternating runs per cell ({a.duration} s for "
        "appends; 50,000 cycles over all clients for read + commit), transactions per second "
        "(medians); ratios per pair of runs (median):",
        "",
        "| case | fetchq | floor | PgQ insert_event | fetchq / floor | fetchq / PgQ |",
        "|---|---|---|---|---|---|",
        *rows,
    ] + ([] if with_pgq else ["", "PgQ (postgresql-15-pgq3) was not installed: no PgQ column."]))
    print(text)
    if a.doc and not a.smoke and not a.only:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"streams: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
