#!/usr/bin/env python3
"""The waiting pick (CALL fetchq.doc_pick_wait): how long after a push the
waiter has the document, and what waiters cost while nothing comes.

Latency: one waiter calls doc_pick_wait in a loop; a pusher pushes one
document every 50 ms with its clock_timestamp() in the payload, just before
its commit; the waiter records clock_timestamp() minus that moment as soon as
its CALL returned (so the figure includes the pusher's commit, the wake-up,
the pick and the waiter's own commit). Median and p99 over the run.

Idle cost: N waiters wait on a queue where nothing comes; the CPU time their
backends use (utime + stime from /proc) over the measuring window.

Run by bench/run.sh --pick-wait (writes the pick-wait block of
docs/benchmarks.md) and bench/run.sh --smoke (a few wake-ups, checked)."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from driver import Failure, log, psql, replace_block

DB = "pick_wait"
MARK_BEGIN = "<!-- pick-wait:begin (written by bench/pick_wait.py) -->"
MARK_END = "<!-- pick-wait:end -->"


def setup():
    psql("postgres", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {DB};")
    psql(DB, "CREATE EXTENSION fetchq; SELECT fetchq.queue_create('lat'); "
             "SELECT fetchq.queue_create('idle'); CREATE TABLE public.latency (ms double precision);")


def latency(pushes):
    """Milliseconds from each push (just before its commit) to the waiter's return."""
    with tempfile.TemporaryDirectory() as tmp:
        waiter_sql = os.path.join(tmp, "waiter.sql")
        with open(waiter_sql, "w") as f:
            for _ in range(pushes):
                f.write("CALL fetchq.doc_pick_wait('lat', 0, 1, '1 minute', '10 seconds', NULL) \\gset\n"
                        "INSERT INTO public.latency SELECT extract(epoch FROM clock_timestamp() - "
                        "(:'docs'::jsonb -> 0 -> 'payload' ->> 't')::timestamptz) * 1000;\n")
        waiter = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB, "-f", waiter_sql],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        pusher_sql = "".join(
            f"SELECT pg_sleep(0.05); SELECT fetchq.doc_push('lat', 'd{i}', "
            "jsonb_build_object('t', clock_timestamp()));\n" for i in range(pushes))
        psql(DB, pusher_sql)
        try:
            _, err = waiter.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            waiter.kill()
            raise Failure("the waiter did not receive every document within 60 s")
        if waiter.returncode != 0:
            raise Failure(f"the waiter failed: {err.strip()[-2000:]}")
    values = [float(v) for v in psql(DB, "SELECT ms FROM public.latency ORDER BY ms;").split()]
    if len(values) != pushes:
        raise Failure(f"{len(values)} wake-ups measured for {pushes} pushes")
    return values


def cpu_ticks(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


def idle_cost(waiters, window):
    """CPU seconds used by `waiters` waiting backends over `window` seconds."""
    procs = [subprocess.Popen(["psql", "-X", "-q", "-d", DB, "-c",
                               f"CALL fetchq.doc_pick_wait('idle', 0, 1, '1 minute', "
                               f"'{window + 30} seconds', NULL)"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, PGAPPNAME="pick_wait_idle"))
             for _ in range(waiters)]
    try:
        deadline = time.time() + 20
        while True:
            rows = psql(DB, "SELECT pid FROM pg_stat_activity WHERE application_name = "
                            "'pick_wait_idle' AND wait_event_type = 'Extension';").split()
            if len(rows) == waiters:
                break
            if time.time() > deadline:
                raise Failure(f"only {len(rows)} of {waiters} waiters are waiting")
            time.sleep(0.2)
        pids = [int(p) for p in rows]
        before = cpu_ticks(pids)
        time.sleep(window)
        used = (cpu_ticks(pids) - before) / os.sysconf("SC_CLK_TCK")
        xmins = psql(DB, "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                         "'pick_wait_idle' AND backend_xmin IS NOT NULL;").strip()
        if xmins != "0":
            raise Failure(f"{xmins} waiters hold a snapshot")
        return used
    finally:
        psql(DB, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = "
                 "'pick_wait_idle';")
        for p in procs:
            p.wait()


def pct(values, p):
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pushes", type=int, default=400)
    ap.add_argument("--waiters", type=int, default=40)  # the bench cluster allows 60 connections
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --pick-wait")
    a = ap.parse_args()
    if a.smoke:
        a.pushes, a.waiters, a.window = 10, 5, 1
    try:
        setup()
        ms = latency(a.pushes)
        cpu = idle_cost(a.waiters, a.window)
    except Failure as e:
        log(f"pick-wait: FAILED: {e}")
        return 1
    text = "\n".join([
        f"The waiting pick (`{a.command}`), {a.pushes} wake-ups, {a.waiters} idle waiters "
        f"over {a.window} s:",
        "",
        "| wake latency, median | p99 | max | CPU of the idle waiters | their snapshots |",
        "|---|---|---|---|---|",
        f"| {statistics.median(ms):.2f} ms | {pct(ms, 99):.2f} ms | {ms[-1]:.2f} ms | "
        f"{cpu:.2f} s in {a.window} s ({100 * cpu / a.window:.2f} % of one core) | none |",
    ])
    log(f"pick-wait: median {statistics.median(ms):.2f} ms, p99 {pct(ms, 99):.2f} ms, "
        f"{a.waiters} idle waiters used {cpu:.2f} s of CPU in {a.window} s")
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"pick-wait: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
