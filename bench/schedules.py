#!/usr/bin/env python3
"""Periodic schedules: how late the scheduler pushes a tick, and what many
schedules cost an idle scheduler.

Latency: a schedule of every second; for each of its documents, the moment
the scheduler's transaction inserted it (created_at) minus its tick (its
next_iteration). Median, p99 and max over the run.

Idle cost: the CPU time (utime + stime from /proc) of the database's
scheduler over the measuring window, with no schedule, then with N
schedules whose ticks are a day away, alternately: the scheduler reads the
due schedules once per round, with one index scan.

Run by bench/run.sh --schedules (writes the schedules block of
docs/benchmarks.md) and bench/run.sh --smoke (a few ticks, checked)."""
import argparse
import os
import statistics
import sys
import time

from driver import Failure, log, psql, replace_block

DB = "schedules_bench"
MARK_BEGIN = "<!-- schedules:begin (written by bench/schedules.py) -->"
MARK_END = "<!-- schedules:end -->"


def setup():
    psql("postgres", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {DB};")
    psql(DB, "CREATE EXTENSION fetchq; SELECT fetchq.queue_create('tick'); "
             "SELECT fetchq.queue_create('idle');")


def latency(ticks):
    """Milliseconds from each tick to the insert of its document."""
    psql(DB, "SELECT fetchq.schedule_create('every_second', 'tick', '1 second', 't');")
    deadline = time.time() + ticks * 2 + 30
    while int(psql(DB, "SELECT count(*) FROM fetchq_data.tick__docs;").strip()) < ticks:
        if time.time() > deadline:
            raise Failure(f"fewer than {ticks} ticks pushed in {ticks * 2 + 30} s")
        time.sleep(0.5)
    psql(DB, "SELECT fetchq.schedule_drop('every_second');")
    rows = psql(DB, "SELECT extract(epoch FROM created_at - next_iteration) * 1000 "
                    f"FROM fetchq_data.tick__docs ORDER BY next_iteration LIMIT {ticks};")
    return sorted(float(v) for v in rows.split())


def scheduler_pid():
    pid = psql(DB, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' "
                   "AND datname = current_database();").strip()
    if not pid:
        raise Failure("the database has no scheduler")
    return int(pid)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(window):
    pid = scheduler_pid()
    before = cpu_seconds(pid)
    time.sleep(window)
    if scheduler_pid() != pid:
        raise Failure("the scheduler restarted while measured")
    return cpu_seconds(pid) - before


def idle_cost(schedules, window, runs):
    """The scheduler's CPU seconds per window: without, then with the schedules, alternately."""
    without, with_ = [], []
    for _ in range(runs):
        psql(DB, "SELECT count(fetchq.schedule_drop(name)) FROM fetchq.schedules;")
        time.sleep(1)
        without.append(idle_cpu(window))
        psql(DB, f"SELECT count(fetchq.schedule_create('s' || i, 'idle', '1 day', 's' || i)) "
                 f"FROM generate_series(1, {schedules}) i;")
        time.sleep(1)
        with_.append(idle_cpu(window))
    psql(DB, "SELECT count(fetchq.schedule_drop(name)) FROM fetchq.schedules;")
    return without, with_


def pct(values, p):
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ticks", type=int, default=100)
    ap.add_argument("--schedules", type=int, default=1000)
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --schedules")
    a = ap.parse_args()
    if a.smoke:
        a.ticks, a.schedules, a.window, a.runs = 3, 50, 1, 1
    try:
        setup()
        ms = latency(a.ticks)
        without, with_ = idle_cost(a.schedules, a.window, a.runs)
    except Failure as e:
        log(f"schedules: FAILED: {e}")
        return 1
    if a.smoke:
        if ms[-1] > 5000:
            log(f"schedules: FAILED: a tick pushed {ms[-1]:.0f} ms late")
            return 1
        log(f"schedules: smoke ok ({a.ticks} ticks, latest {ms[-1]:.0f} ms)")
        return 0
    text = "\n".join([
        f"Periodic schedules (`{a.command}`): {a.ticks} ticks of a schedule of every second; "
        f"the scheduler's CPU over {a.window} s windows without schedules and with "
        f"{a.schedules:,} (ticks a day away), {a.runs} alternating runs (medians):",
        "",
        "| tick to push, median | p99 | max | scheduler CPU, no schedule | "
        f"with {a.schedules:,} |",
        "|---|---|---|---|---|",
        f"| {statistics.median(ms):.0f} ms | {pct(ms, 99):.0f} ms | {ms[-1]:.0f} ms | "
        f"{statistics.median(without):.2f} s in {a.window} s | "
        f"{statistics.median(with_):.2f} s in {a.window} s |",
    ])
    print(text)
    if a.doc:
        replace_block(a.doc, MARK_BEGIN, MARK_END, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
