#!/usr/bin/env python3
"""Throughput under a held xmin horizon: consumers (pick 1 + complete, 4
clients) and a steady producer run on a queue while another session holds a
REPEATABLE READ transaction open and idle, so that no VACUUM may remove what
the consumers leave behind. Per 10 s slice: documents completed per second,
the dead tuples of the queue table and the index entries read per pick. For
the floor, pgmq (when PGMQ_SQL is given) and fetchq, one after the other,
each with the same scripts as bench/driver.py (bench/<system>.sql).

Each system: a backlog, then consumers alone on a quarter of it to learn their rate; the
producer then pushes 20 % faster than that (pgbench -R), so the queue never
runs dry; a baseline of --baseline seconds, then the transaction is held for
--hold seconds. The ratio printed: the last slice / the baseline's mean. The
issue's goal: fetchq >= 0.8 where the others fall below 0.2.

Run by bench/run.sh --held-horizon (about 6 minutes a system with the
defaults; writes the held-horizon block of docs/benchmarks.md) and
bench/run.sh --smoke (a few seconds a system, checked, writes nothing)."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from driver import Failure, System, create_databases, log, pgbench, psql, replace_block

MARK_BEGIN = "<!-- held_horizon:begin (written by bench/held_horizon.py) -->"
MARK_END = "<!-- held_horizon:end -->"
SLICE_S = 10
# The queue table of each system, whose statistics are sampled.
TABLES = {"floor": "public.floor_docs", "pgmq": "pgmq.q_bq", "extension": "fetchq_data.bq__docs"}
CONSUMERS = 4


def table_stats(db, table):
    """(dead tuples, index entries read so far) of the table."""
    out = psql(db, f"SELECT pg_stat_clear_snapshot(); SELECT n_dead_tup, "
                   f"(SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes i "
                   f" WHERE i.relid = '{table}'::regclass) "
                   f"FROM pg_stat_user_tables WHERE relid = '{table}'::regclass;").split()
    dead, read = out[-1].split("|")
    return int(dead), int(read)


def pgbench_proc(db, script, clients, duration, rate=None):
    cmd = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(clients, 2)),
           "-T", str(duration), "-P", str(SLICE_S), "-f", script, db]
    if rate:
        cmd[1:1] = ["-R", str(rate)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def progress(out):
    """tps of each -P line of pgbench's output."""
    return [float(m.group(1)) for m in re.finditer(r"progress: [0-9.]+ s, ([0-9.]+) tps", out)]


def finish(proc, what):
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise Failure(f"{what} failed:\n{out[-2000:]}")
    return out


def hold(db):
    """A session idle in a REPEATABLE READ transaction that has its snapshot."""
    p = subprocess.Popen(["psql", "-X", "-q", "-d", db], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    p.stdin.write("BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT count(*) FROM pg_class;\n")
    p.stdin.flush()
    return p


def release(p):
    p.stdin.write("ROLLBACK;\n")
    p.stdin.close()
    p.wait(timeout=30)


def held_xmin(db):
    return psql(db, "SELECT count(*) FROM pg_stat_activity WHERE backend_xmin IS NOT NULL "
                    "AND state = 'idle in transaction';").strip()


def run_system(s, baseline_s, hold_s, backlog):
    s.reset(backlog)
    table = TABLES[s.name]
    # The consumers' rate alone (a quarter of the backlog), to pace the producer.
    _, alone, _ = pgbench(s.db, s.scripts["pick_1"], CONSUMERS, None,
                          transactions=max(1, backlog // 4 // CONSUMERS))
    rate = max(1, int(1.2 * alone))
    s.reset(backlog)
    total = baseline_s + hold_s
    # A second more than the slices: pgbench prints a slice only if it ran past its end.
    producer = pgbench_proc(s.db, s.scripts["push_1"], 2, total + 1, rate)
    consumers = pgbench_proc(s.db, s.scripts["pick_1"], CONSUMERS, total + 1)
    start = time.time()
    samples = []  # (seconds since start, dead, index entries read)
    holder = None
    try:
        next_sample = start
        while time.time() - start < total - 1:
            if holder is None and time.time() - start >= baseline_s:
                holder = hold(s.db)
                time.sleep(1)
                if held_xmin(s.db) == "0":
                    raise Failure(f"{s.name}: the held transaction has no xmin")
            if time.time() >= next_sample:
                samples.append((time.time() - start, *table_stats(s.db, table)))
                next_sample += SLICE_S
            time.sleep(0.2)
        samples.append((time.time() - start, *table_stats(s.db, table)))
        # Held until the clients end: the last slice is a held one too.
        tps = progress(finish(consumers, f"{s.name} consumers"))[: total // SLICE_S]
        finish(producer, f"{s.name} producer")
    finally:
        if holder is not None:
            release(holder)
    return rate, tps, samples


def rows_of(name, rate, tps, samples, baseline_s):
    base_n = max(1, baseline_s // SLICE_S)
    base = statistics.mean(tps[:base_n]) if tps else 0
    lines = []
    for i, t in enumerate(tps):
        if i + 1 < len(samples):
            dead = samples[i + 1][1]
            reads = samples[i + 1][2] - samples[i][2]
            per_pick = reads / max(1, t * SLICE_S)
        else:
            dead, per_pick = None, None
        held = "held" if (i + 1) * SLICE_S > baseline_s else ""
        lines.append(f"| {name} | {(i + 1) * SLICE_S} s {held} | {t:,.0f} | "
                     f"{'' if dead is None else f'{dead:,}'} | "
                     f"{'' if per_pick is None else f'{per_pick:,.1f}'} |")
    last = tps[-1] / base if tps and base else 0
    return lines, base, last


COLORS = {"floor": "#888888", "pgmq": "#e7298a", "extension": "#1b9e77"}
TITLES = {"floor": "floor (plain SQL)", "pgmq": "pgmq", "extension": "fetchq extension"}


def plot(series, baseline_s, png):
    """Documents completed per second per slice, a line per system, the held
    part shaded. series: [(system, [tps per slice])]. False when gnuplot is
    missing or fails."""
    if not shutil.which("gnuplot"):
        log("held horizon: gnuplot is missing (apt-get install gnuplot-nox): no plot")
        return False
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        data = f.name
        for name, tps in series:
            for i, t in enumerate(tps):
                f.write(f"{(i + 1) * SLICE_S} {t:.0f}\n")
            f.write("\n\n")
    end = max(len(tps) for _, tps in series) * SLICE_S
    lines = [f"'{data}' index {i} using 1:2 with linespoints title '{TITLES[n]}' "
             f"lc rgb '{COLORS[n]}' lw 2 pt 7 ps 0.5" for i, (n, _) in enumerate(series)]
    script = f"""
set terminal pngcairo size 1200,600 font 'sans,10'
set output '{png}'
set title 'Held xmin horizon: pick 1 + complete on {CONSUMERS} clients, documents completed per second per {SLICE_S} s slice (higher is better)'
set object 1 rect from {baseline_s},graph 0 to {end},graph 1 fc rgb '#f0f0f0' fs solid 1.0 behind
set label 1 'REPEATABLE READ transaction held' at {baseline_s + SLICE_S},graph 0.95
set grid ytics
set key top right
set xlabel 'seconds'
set ylabel 'documents / s'
set yrange [0:*]
set format y '%.0s%c'
plot {", ".join(lines)}
"""
    p = subprocess.run(["gnuplot"], input=script.encode(), capture_output=True)
    os.unlink(data)
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode != 0 or err or not os.path.exists(png):
        log("held horizon: gnuplot failed:\n" + err)
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=int, default=30, help="seconds before the hold")
    ap.add_argument("--hold", type=int, default=300, help="seconds the transaction is held")
    ap.add_argument("--backlog", type=int, default=200_000)
    ap.add_argument("--pgmq-sql")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--doc")
    ap.add_argument("--command", default="bench/run.sh --held-horizon")
    ap.add_argument("--systems", help="comma-separated subset of floor,pgmq,extension "
                                      "(a subset writes no block)")
    a = ap.parse_args()
    if a.smoke:
        a.baseline, a.hold, a.backlog = 10, 10, 20_000
    names = ["floor"] + (["pgmq"] if a.pgmq_sql else []) + ["extension"]
    if a.systems:
        names = [n for n in names if n in a.systems.split(",")]
        a.doc = None
    table_rows, summary, series = [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            systems = [System(n, tmp) for n in names]
            create_databases(systems, None, a.pgmq_sql)
            for s in systems:
                rate, tps, samples = run_system(s, a.baseline, a.hold, a.backlog)
                if len(tps) < 2:
                    raise Failure(f"{s.name}: {len(tps)} progress lines from pgbench")
                lines, base, last = rows_of(s.name, rate, tps, samples, a.baseline)
                series.append((s.name, tps))
                table_rows += lines
                summary.append(f"| {s.name} | {rate:,} | {base:,.0f} | {tps[-1]:,.0f} | "
                               f"{last:.2f} |")
                log(f"held horizon: {s.name}: baseline {base:,.0f}/s, last slice "
                    f"{tps[-1]:,.0f}/s ({last:.2f} of the baseline)")
    except Failure as e:
        log(f"held horizon: FAILED: {e}")
        return 1
    text = "\n".join([
        f"Held xmin horizon (`{a.command}`): pick 1 + complete on {CONSUMERS} clients and a "
        f"producer pushing 20 % faster than the consumers alone; a REPEATABLE READ "
        f"transaction held idle from {a.baseline} s for {a.hold} s; documents completed per "
        f"second per {SLICE_S} s slice:",
        "",
        "| system | producer rate (docs/s) | baseline (first slices) | last slice "
        "| last / baseline |",
        "|---|---|---|---|---|",
        *summary,
        "",
        "Per slice (dead tuples of the queue table at the slice's end; index entries read per "
        "completed document during it):",
        "",
        "| system | slice | completed/s | dead tuples | index entries read per pick |",
        "|---|---|---|---|---|",
        *table_rows,
    ])
    png = os.path.join(os.path.dirname(a.doc), "benchmarks-held-horizon.png") if a.doc else None
    if a.smoke or not png:
        # The plot is drawn in the smoke run too, to a file thrown away.
        with tempfile.TemporaryDirectory() as tmp:
            if shutil.which("gnuplot") and not plot(series, a.baseline,
                                                    os.path.join(tmp, "held.png")):
                return 1
    elif plot(series, a.baseline, png):
        text += ("\n\n![Held xmin horizon: documents completed per second per slice]"
                 "(benchmarks-held-horizon.png)")
    print(text)
    if a.doc and not a.smoke:
        try:
            replace_block(a.doc, MARK_BEGIN, MARK_END, text)
        except Failure as e:
            log(f"held horizon: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
