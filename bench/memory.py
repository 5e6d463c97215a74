#!/usr/bin/env python3
"""Memory per queue: the private memory of a client backend that used every
queue once (a push, a pick and a complete in each) and of the database's
scheduler after some rounds over them, for 10, 200 and 1,000 queues, each
size in a database of its own, one after the other.

Private memory is RssAnon of /proc/<pid>/status (read by the client's own
backend with pg_read_file, and by this script for the scheduler): the process's resident
anonymous memory (palloc'd contexts, malloc), without the shared buffers or
the binary. For the client, also the total of its memory contexts
(pg_backend_memory_contexts) and how many of them are kept plans. The goal
of the issue: under 64 MB for both, at 1,000 queues.

Run by bench/run.sh --memory (writes the memory block of docs/benchmarks.md)
and bench/run.sh --smoke (10 queues, checked, writes nothing)."""
import argparse
import sys
import time

from driver import Failure, log, psql, replace_block

MARK_BEGIN = "<!-- memory:begin (written by bench/memory.py) -->"
MARK_END = "<!-- memory:end -->"
GOAL_MB = 64


def rss_anon_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise Failure(f"no RssAnon for process {pid}")


def create_queues(db, n):
    psql("postgres", f"DROP DATABASE IF EXISTS {db} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {db};")
    psql(db, "CREATE EXTENSION fetchq;")
    # In batches: each queue takes locks on its new tables and indexes.
    for first in range(1, n + 1, 50):
        last = min(n, first + 49)
        psql(db, f"SELECT count(fetchq.queue_create('q' || g)) "
                 f"FROM generate_series({first}, {last}) AS g;")


CLIENT_REPORT = """
{work}
SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'),
                     'RssAnon:\\s+(\\d+)'))[1],
       sum(total_bytes),
       count(*) FILTER (WHERE name IN ('CachedPlan', 'CachedPlanSource', 'CachedPlanQuery')),
       count(*)
FROM pg_backend_memory_contexts;
"""


def client(db, n):
    """One session that pushes, picks and completes in every queue; returns
    (RssAnon kB, context bytes, plan contexts, contexts)."""
    work = "\n".join(
        f"SELECT fetchq.doc_push('q{i}', 's', '{{}}'::jsonb);\n"
        f"SELECT count(*) FROM fetchq.doc_pick('q{i}', 0, 1, '5m');\n"
        f"SELECT fetchq.doc_complete('q{i}', 's');"
        for i in range(1, n + 1))
    out = psql(db, CLIENT_REPORT.format(work=work)).strip().splitlines()
    rss, ctx_bytes, plans, contexts = (int(x) for x in out[-1].split("|"))
    done = psql(db, "SELECT count(*) FROM fetchq.queues;").strip()
    if int(done) != n:
        raise Failure(f"{db}: {done} queues, {n} wanted")
    return rss, ctx_bytes, plans, contexts


def scheduler_pid(db, deadline_s=30):
    end = time.time() + deadline_s
    while time.time() < end:
        pid = psql("postgres", "SELECT pid FROM pg_stat_activity WHERE backend_type = "
                               f"'fetchq scheduler' AND datname = '{db}';").strip()
        if pid:
            return int(pid.splitlines()[0])
        time.sleep(0.5)
    raise Failure(f"no scheduler for database {db}")


def scheduler(db, rounds_s):
    """The scheduler's RssAnon after rounds_s seconds of rounds over the
    queues, sampled each second: (last, max) in kB."""
    pid = scheduler_pid(db)
    samples = []
    end = time.time() + rounds_s
    while time.time() < end:
        samples.append(rss_anon_kb(pid))
        time.sleep(1)
    return samples[-1], max(samples)


def mb(kb):
    return kb / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,200,1000")
    ap.add_argument("--rounds", type=int, default=30, help="seconds of scheduler rounds")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --memory")
    a = ap.parse_args()
    sizes = [10] if a.smoke else [int(s) for s in a.sizes.split(",")]
    rounds = 3 if a.smoke else a.rounds
    rows = []
    try:
        for n in sizes:
            db = f"memory_{n}"
            started = time.time()
            create_queues(db, n)
            rss, ctx_bytes, plans, contexts = client(db, n)
            last, peak = scheduler(db, rounds)
            psql("postgres", f"DROP DATABASE {db} WITH (FORCE);")
            log(f"memory: {n} queues: client {mb(rss):.1f} MB ({plans} plan contexts), "
                f"scheduler {mb(last):.1f} MB (max {mb(peak):.1f}) "
                f"[{time.time() - started:.0f} s]")
            rows.append(f"| {n:,} | {mb(rss):.1f} MB | {ctx_bytes / 1048576:.1f} MB "
                        f"| {plans:,} of {contexts:,} | {mb(last):.1f} MB | {mb(peak):.1f} MB |")
    except Failure as e:
        log(f"memory: FAILED: {e}")
        return 1
    goal = [f"Goal: under {GOAL_MB} MB for the client and the scheduler at 1,000 queues."]
    text = "\n".join([
        f"Memory (`{a.command}`): private memory (RssAnon) of a client backend after a push, "
        "a pick and a complete in every queue, and of the database's scheduler over "
        f"{rounds} s of rounds after that (its last and largest sample, one a second):",
        "",
        "| queues | client backend | its memory contexts | plan contexts of all | scheduler "
        "| scheduler, max |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        *goal,
    ])
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"memory: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
