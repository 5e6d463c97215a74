#!/usr/bin/env python3
"""Benchmarks of fetchq's background workers (bench/run.sh --workers).

Started by bench/run.sh, which provides the server (PGHOST, PGPORT, PGUSER:
a throwaway cluster with shared_preload_libraries = 'fetchq'). Four parts,
each in a database of its own, dropped afterwards:

1. round:    cost of one maintenance round as the queue grows (mnt_run timed
             in a database whose scheduler is off);
2. idle:     CPU of the scheduler of a database with many idle queues and
             many documents planned far ahead;
3. recovery: time from lock expiry (orphans) and from the end of a session
             (session-bound picks) until the documents are pending again;
4. churn:    size of a queue's docs table under push/pick/complete/delete churn,
             with the scheduler's VACUUM on and off (autovacuum off in both).

Prints a table and, with --doc, writes it between the workers markers of
docs/benchmarks.md (and the bloat plot next to it).
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

MARK_BEGIN = "<!-- workers:begin (written by bench/workers.py) -->"
MARK_END = "<!-- workers:end -->"
TIMEOUT = 900  # seconds: no single psql call of this file may take longer


def log(msg):
    print(f"workers: {msg}", file=sys.stderr, flush=True)


class Failure(Exception):
    pass


def psql(db, sql, variables=None, check=True, timeout=TIMEOUT):
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db]
    for k, v in (variables or {}).items():
        cmd += ["-v", f"{k}={v}"]
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    try:
        p = subprocess.run(cmd, input=sql, capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise Failure(f"psql on {db} took more than {timeout} s:\n{sql.strip()[:500]}") from e
    if check and p.returncode != 0:
        raise Failure(f"psql on {db} failed:\n{p.stderr.strip()}\nSQL:\n{sql.strip()[:1500]}")
    return p.stdout


def one(db, sql, variables=None, timeout=TIMEOUT):
    return psql(db, sql, variables, timeout=timeout).strip()


def wait_for(what, fn, timeout, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(step)
    raise Failure(f"timed out after {timeout} s waiting for {what}")


def create_db(db, scheduler=True):
    psql("postgres", f"DROP DATABASE IF EXISTS {db} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {db};")
    if not scheduler:
        # Read by the scheduler when it starts: set before CREATE EXTENSION starts it.
        psql("postgres", f"ALTER DATABASE {db} SET fetchq.enabled = off;")
    psql(db, "CREATE EXTENSION fetchq;")


def drop_db(db):
    psql("postgres", f"DROP DATABASE IF EXISTS {db} WITH (FORCE);", check=False)


def scheduler_pid(db, timeout=30):
    q = ("SELECT pid FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' "
         f"AND datname = '{db}';")
    return int(wait_for(f"the scheduler of {db}", lambda: one("postgres", q), timeout))


# Rows straight into the docs table: `planned` planned a day ahead, `due`
# planned in the past (to promote), `orphans` active with an expired lock.
FILL = """
INSERT INTO fetchq_data.:"t" (subject, version, priority, status, attempts,
    next_iteration, created_at, payload)
SELECT 'd' || g, 0, 0,
       CASE WHEN g <= :due THEN 0 WHEN g <= :due + :orphans THEN 2 ELSE 0 END,
       CASE WHEN g > :due AND g <= :due + :orphans THEN 1 ELSE 0 END,
       CASE WHEN g <= :due + :orphans THEN now() - interval '1 hour'
            ELSE now() + interval '1 day' + g * interval '1 millisecond' END,
       now(), '{"bench": 1}'
FROM generate_series(1, :total) AS g;
SELECT 1 FROM fetchq.metric_reset(:'q');
VACUUM ANALYZE fetchq_data.:"t";
"""

# Back to the state FILL made, for the next repetition.
REARM = """
UPDATE fetchq_data.:"t" SET status = 0, attempts = 0,
    next_iteration = now() - interval '1 hour'
WHERE subject IN (SELECT 'd' || g FROM generate_series(1, :due) AS g);
UPDATE fetchq_data.:"t" SET status = 2, attempts = 1,
    next_iteration = now() - interval '1 hour'
WHERE subject IN (SELECT 'd' || g FROM generate_series(:due + 1, :due + :orphans) AS g);
SELECT 1 FROM fetchq.metric_reset(:'q');
VACUUM ANALYZE fetchq_data.:"t";
"""

ROUND = """
\\timing on
SELECT activated_count, rescheduled_count FROM fetchq.mnt_run(:'q', :limit);
SELECT activated_count, rescheduled_count FROM fetchq.mnt_run(:'q', :limit);
"""


def timings(out):
    return [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]


def round_cost(sizes, due, orphans, reps, limit):
    """Per size: median ms of mnt_run(q, limit) doing `due` promotions and
    `orphans` re-queues (a full round), and of one with nothing to do."""
    db = "bench_w_round"
    create_db(db, scheduler=False)
    out = []
    try:
        for total in sizes:
            q = f"r{total}"
            v = {"q": q, "t": q + "__docs", "due": due, "orphans": orphans, "total": total, "limit": limit}
            t0 = time.time()
            psql(db, f"SELECT 1 FROM fetchq.queue_create('{q}');")
            psql(db, FILL, v)
            log(f"round: {total} documents in {time.time() - t0:.1f} s")
            full, empty = [], []
            for r in range(reps):
                if r:
                    psql(db, REARM, v)
                res = psql(db, ROUND, v)
                counts = [line for line in res.split("\n") if "|" in line]
                if counts[0] != f"{due}|{orphans}" or counts[1] != "0|0":
                    raise Failure(f"round on {total}: mnt_run returned {counts}, "
                                  f"expected {due}|{orphans} then 0|0")
                t = timings(res)
                full.append(t[0])
                empty.append(t[1])
            plan = psql(db, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "
                        f"SELECT subject FROM fetchq_data.{q}__docs WHERE status = 0 "
                        "AND lock_upgrade IS NULL AND next_iteration <= now() "
                        "ORDER BY next_iteration LIMIT 1000 FOR UPDATE SKIP LOCKED;")
            out.append((total, statistics.median(full), statistics.median(empty), plan.strip()))
            psql(db, f"SELECT 1 FROM fetchq.queue_drop('{q}');")
    finally:
        drop_db(db)
    return out


def proc_cpu(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cost(queues, docs, window, settle):
    """% of one core used by the scheduler of a database with `queues` idle
    queues and `docs` documents planned a day ahead, over `window` seconds."""
    db = "bench_w_idle"
    create_db(db)
    try:
        t0 = time.time()
        script = "".join(f"SELECT 1 FROM fetchq.queue_create('i{i}');\n" for i in range(queues))
        psql(db, script)
        psql(db, FILL, {"q": "i0", "t": "i0__docs", "due": 0, "orphans": 0, "total": docs})
        log(f"idle: {queues} queues and {docs} planned documents in {time.time() - t0:.1f} s")
        # The first snapshot and retention jobs of every new queue are due now:
        # let them run, and the vacuums of the fill, before the window opens.
        deadline = time.time() + 120
        while time.time() < deadline:
            late = int(one(db, "SELECT count(*) FROM fetchq.jobs WHERE next_iteration < now() "
                           "AND task IN ('sts', 'drp', 'lgp');"))
            if late == 0:
                break
            time.sleep(1)
        time.sleep(settle)
        pid = scheduler_pid(db)
        before_status = status_rows(db)
        c0, w0 = proc_cpu(pid), time.time()
        time.sleep(window)
        c1, w1 = proc_cpu(pid), time.time()
        if scheduler_pid(db) != pid:
            raise Failure("idle: the scheduler restarted during the window")
        after_status = status_rows(db)
        runs = {t: (after_status[t][0] - before_status.get(t, (0,))[0], after_status[t][1])
                for t in after_status}
        return (c1 - c0) / (w1 - w0) * 100, w1 - w0, runs
    finally:
        drop_db(db)


def status_rows(db):
    rows = psql(db, "SELECT task, runs, last_duration_ms FROM fetchq.worker_status() "
                f"WHERE datname = '{db}';")
    out = {}
    for line in rows.strip().split("\n"):
        if line:
            t, runs, ms = line.split("|")
            out[t] = (int(runs), float(ms or 0))
    return out


RECOVERY_SETUP = """
SELECT 1 FROM fetchq.queue_create('rq');
CREATE TABLE public.bench_back (subject varchar(50) PRIMARY KEY, expiry timestamptz,
                                pending timestamptz);
-- Notes when an active document becomes pending again, and when its lock expired.
CREATE FUNCTION public.bench_note_back() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
    INSERT INTO public.bench_back VALUES (NEW.subject, OLD.next_iteration, clock_timestamp())
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER bench_back AFTER UPDATE OF status ON fetchq_data.rq__docs
    FOR EACH ROW WHEN (OLD.status = 2 AND NEW.status = 1)
    EXECUTE FUNCTION public.bench_note_back();
CREATE TABLE public.bench_session (pid int, picked int);
"""

RECOVERY_RESET = """
SELECT 1 FROM fetchq.queue_truncate('rq');
TRUNCATE public.bench_back, public.bench_session;
SELECT count(fetchq.doc_push('rq', 's' || g, 0, 0, now() - interval '1 minute', '{}'))
FROM generate_series(1, :docs) AS g;
"""

# Picked in 10 groups 50 ms apart, with a 1 s lock: expiries spread over half a second.
ORPHAN_PICK = """
SELECT count(*) FROM fetchq.doc_pick('rq', 0, :per, '1 second');
SELECT pg_sleep(0.05);
"""

PERCENTILES = """
SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), max(ms)
FROM (SELECT extract(epoch FROM pending - {start}) * 1000 AS ms FROM public.bench_back) AS l;
"""


def recovery(docs, reps):
    db = "bench_w_rec"
    create_db(db)
    orphan, session = [], []
    try:
        psql(db, RECOVERY_SETUP)
        for _ in range(reps):
            psql(db, RECOVERY_RESET, {"docs": docs})
            per = max(1, docs // 10)
            psql(db, ORPHAN_PICK * 10, {"per": per})
            n = docs if per * 10 >= docs else per * 10
            wait_for("orphans back to pending", lambda: int(one(
                db, "SELECT count(*) FROM public.bench_back;")) >= n, 30)
            orphan += [float(x) for x in psql(db, "SELECT extract(epoch FROM pending - expiry) "
                                              "* 1000 FROM public.bench_back;").split()]

            psql(db, RECOVERY_RESET, {"docs": docs})
            picker = subprocess.Popen(
                ["psql", "-X", "-q", "-d", db, "-c",
                 "INSERT INTO public.bench_session SELECT pg_backend_pid(), count(*) FROM "
                 f"fetchq.doc_pick('rq', 0, {docs}, '1 hour', true);", "-c",
                 "SELECT pg_sleep(120);"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                row = wait_for("the session-bound pick", lambda: one(
                    db, "SELECT pid, picked FROM public.bench_session;"), 30)
                pid, picked = map(int, row.split("|"))
                if picked != docs:
                    raise Failure(f"session: picked {picked} of {docs}")
                t_term = one(db, f"SELECT clock_timestamp() FROM pg_terminate_backend({pid});")
                wait_for("session-bound documents back to pending", lambda: int(one(
                    db, "SELECT count(*) FROM public.bench_back;")) >= docs, 90)
            finally:
                picker.kill()
                picker.wait(timeout=10)
            session += [float(x) for x in psql(
                db, "SELECT extract(epoch FROM pending - :'t'::timestamptz) * 1000 "
                "FROM public.bench_back;", {"t": t_term}).split()]
    finally:
        drop_db(db)
    return orphan, session


CHURN_SETUP = """
SELECT 1 FROM fetchq.queue_create('cq');
"""

CHURN_RESET = """
SELECT 1 FROM fetchq.queue_truncate('cq');
INSERT INTO fetchq_data.cq__docs (subject, version, priority, status, next_iteration,
                                  created_at, payload)
SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond', now(),
       '{"bench": 1}'
FROM generate_series(1, :backlog) AS g;
SELECT 1 FROM fetchq.metric_reset('cq');
-- VACUUM FULL does not count as a vacuum: the scheduler's may come at once.
VACUUM FULL fetchq_data.cq__docs;
ANALYZE fetchq_data.cq__docs;
CHECKPOINT;
"""

# One document in, one out, and the completed one deleted: the live size stays
# constant. (doc_drop deletes active documents only: completed ones go by DELETE.)
CHURN_SCRIPT = """\\set s random(1, 9000000000000000000)
SELECT fetchq.doc_push('cq', 'c' || :s, '{"bench": 1}'::jsonb);
SELECT subject FROM fetchq.doc_pick('cq', 0, 1, '5m') \\gset
SELECT fetchq.doc_complete('cq', :subject);
DELETE FROM fetchq_data.cq__docs WHERE subject = :subject AND status = 3;
"""

LIVE = "SELECT count(*) FROM fetchq_data.cq__docs;"


SIZE = ("SELECT pg_relation_size('fetchq_data.cq__docs'), "
        "pg_indexes_size('fetchq_data.cq__docs');")


def set_system(settings):
    for k, v in settings.items():
        if v is None:
            psql("postgres", f"ALTER SYSTEM RESET {k};")
        else:
            psql("postgres", f"ALTER SYSTEM SET {k} = '{v}';")
    psql("postgres", "SELECT pg_reload_conf();")
    time.sleep(1)


def churn(seconds, clients, rate, backlog, sample, out_dir):
    """Returns {mode: (samples [(t, table_bytes, index_bytes)], tps, vacuums)}."""
    db = "bench_w_churn"
    create_db(db)
    script = os.path.join(out_dir, "churn.sql")
    with open(script, "w") as f:
        f.write(CHURN_SCRIPT)
    results = {}
    try:
        psql(db, CHURN_SETUP)
        for mode in ("on", "off"):
            set_system({"autovacuum": "off",
                        "fetchq.vacuum_threshold": None if mode == "on" else 2147483647})
            psql(db, CHURN_RESET, {"backlog": backlog})
            vac0 = status_rows(db).get("vacuum", (0,))[0]
            vac_tables0 = vacuumed(db)
            samples = []
            stop = threading.Event()

            def sampler():
                t0 = time.time()
                while not stop.is_set():
                    tb, ib = map(int, one(db, SIZE, timeout=30).split("|"))
                    samples.append((time.time() - t0, tb, ib))
                    stop.wait(sample)

            th = threading.Thread(target=sampler, daemon=True)
            th.start()
            cmd = ["pgbench", "-n", "-M", "prepared", "-c", str(clients),
                   "-j", str(min(clients, 2)), "-T", str(seconds), "-f", script, db]
            if rate:
                cmd[2:2] = ["-R", str(rate)]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
            finally:
                stop.set()
                th.join(timeout=60)
            tb, ib = map(int, one(db, SIZE).split("|"))
            samples.append((samples[-1][0] + 0.01 if samples else 0, tb, ib))
            out = p.stdout + p.stderr
            m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
            m_f = re.search(r"number of failed transactions: (\d+)", out)
            if p.returncode != 0 or not m or (m_f and int(m_f.group(1)) > 0):
                raise Failure(f"churn pgbench failed:\n{out[-2000:]}")
            live = int(one(db, LIVE))
            if abs(live - backlog) > 2 * clients:
                raise Failure(f"churn: {live} documents left in the queue, expected {backlog}")
            vac_tables = vacuumed(db) - vac_tables0
            log(f"churn, scheduler vacuum {mode}: {float(m.group(1)):.0f} tps, "
                f"{(tb + ib) / 2**20:.1f} MiB at the end, {vac_tables} vacuums of the docs table")
            results[mode] = (samples, float(m.group(1)), vac_tables)
    finally:
        set_system({"autovacuum": None, "fetchq.vacuum_threshold": None})
        drop_db(db)
    return results


def vacuumed(db):
    return int(one(db, "SELECT vacuum_count + autovacuum_count FROM pg_stat_user_tables "
                   "WHERE relid = 'fetchq_data.cq__docs'::regclass;"))


def plot(results, png, out_dir):
    if not shutil.which("gnuplot"):
        log("gnuplot is not available: no plot")
        return False
    files = {}
    for mode, (samples, _, _) in results.items():
        path = os.path.join(out_dir, f"bloat-{mode}.dat")
        with open(path, "w") as f:
            for t, tb, ib in samples:
                f.write(f"{t:.1f} {tb / 2**20:.3f} {ib / 2**20:.3f} {(tb + ib) / 2**20:.3f}\n")
        files[mode] = path
    gp = f"""
set terminal pngcairo size 900,500 noenhanced
set output '{png}'
set title 'Docs table + indexes under push/pick/complete/delete churn (autovacuum off)'
set xlabel 'seconds'
set ylabel 'MiB'
set key top left
set grid
plot '{files["on"]}' using 1:4 with lines lw 2 title 'scheduler VACUUM on (table + indexes)', \\
     '{files["on"]}' using 1:3 with lines dt 2 title 'scheduler VACUUM on (indexes)', \\
     '{files["off"]}' using 1:4 with lines lw 2 title 'scheduler VACUUM off (table + indexes)', \\
     '{files["off"]}' using 1:3 with lines dt 2 title 'scheduler VACUUM off (indexes)'
"""
    p = subprocess.run(["gnuplot"], input=gp, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        gp = gp.replace("pngcairo", "png")
        p = subprocess.run(["gnuplot"], input=gp, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        log(f"gnuplot failed: {p.stderr.strip()}")
        return False
    return True


def mib(b):
    return f"{b / 2**20:.1f} MiB"


def report(a, rounds, idle, rec, ch, plotted, started):
    lines = []
    server = one("postgres", "SHOW server_version;")
    lines.append(f"Measured {started:%Y-%m-%d %H:%M} UTC by `{a.command}` "
                 f"({os.cpu_count()} CPUs, PostgreSQL {server}, fsync off, "
                 f"{(time.time() - started.timestamp()) / 60:.1f} min).")
    lines.append("")
    if rounds:
        lines.append(f"**Round cost as the queue grows.** `SELECT fetchq.mnt_run(q, {a.limit})` "
                     "timed by psql (`\\timing`, commit included) in a database whose scheduler is "
                     "off (`ALTER DATABASE ... SET fetchq.enabled = off`); "
                     f"each queue holds {a.due} documents due (planned in the past) and "
                     f"{a.orphans} orphans (active, lock expired), the rest planned a day "
                     f"ahead; median of {a.reps} repetitions. The full round promotes and "
                     "re-queues them all; the empty round is the next call, with nothing due.")
        lines.append("")
        lines.append("| documents in the queue | full round (ms) | empty round (ms) |")
        lines.append("|---:|---:|---:|")
        for total, full, empty, _ in rounds:
            lines.append(f"| {total:,} | {full:.2f} | {empty:.2f} |")
        r0, r1 = rounds[0], rounds[-1]
        lines.append(f"| ratio {r1[0]:,} / {r0[0]:,} | {r1[1] / r0[1]:.2f} | "
                     f"{r1[2] / r0[2]:.2f} |")
        lines.append("")
    if idle:
        pct, window, runs = idle
        busy = ", ".join(f"{t} {n} (last {ms:.1f} ms)" for t, (n, ms) in sorted(runs.items())
                         if n)
        lines.append(f"**Idle cost.** One database with {a.idle_queues:,} idle queues and "
                     f"{a.idle_docs:,} documents planned a day ahead, scheduler running: "
                     f"utime + stime of the scheduler process (`/proc/<pid>/stat`) over a "
                     f"{window:.0f} s window, after the first jobs of the new queues ran: "
                     f"**{pct:.2f} % of one core** (target < 1 %). Task runs in the window: "
                     f"{busy or 'none'} (`worker_status`: runs in the window, `last_duration_ms`; "
                     "`promote`, `orphans` and `expire` share one round over every queue).")
        lines.append("")
    if rec:
        orphan, session = rec
        lines.append(f"**Recovery.** {a.recovery_docs} documents, {a.recovery_reps} "
                     "repetition(s) pooled; from the moment the lock expired (picked with "
                     "`'1 second'`, in 10 groups 50 ms apart) or the picking session was "
                     "terminated (`doc_pick(..., session_bound => true)`, then "
                     "`pg_terminate_backend`) until the document is pending again (an "
                     "`AFTER UPDATE` row trigger notes `clock_timestamp()`).")
        lines.append("")
        lines.append("| | documents | p50 (ms) | p99 (ms) | max (ms) |")
        lines.append("|---|---:|---:|---:|---:|")
        for name, xs in (("orphan (lock expiry)", orphan), ("session end", session)):
            xs = sorted(xs)
            p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
            lines.append(f"| {name} | {len(xs)} | {statistics.median(xs):.1f} | {p99:.1f} | "
                         f"{xs[-1]:.1f} |")
        lines.append("")
    if ch:
        lines.append(f"**Bloat under churn.** pgbench, {a.churn_clients} clients"
                     f"{f', rate-limited to {a.churn_rate} transactions/s' if a.churn_rate else ''}"
                     f", {a.churn_seconds} s per run, each transaction pushes one document, "
                     f"picks one, completes it and deletes it (`DELETE ... WHERE subject = $1 AND status = 3`), over a backlog of "
                     f"{a.backlog:,} pending documents; `autovacuum = off` in both runs, and "
                     "`fetchq.vacuum_threshold = 2147483647` for the run without the "
                     f"scheduler's VACUUM. Sizes of the docs table and its indexes, sampled "
                     f"every {a.sample} s" + (", in [benchmarks-bloat.png]"
                                              "(benchmarks-bloat.png)." if plotted else "."))
        lines.append("")
        lines.append("| scheduler VACUUM | transactions/s | vacuums of the docs table | "
                     "table at the end | indexes at the end | peak (table + indexes) |")
        lines.append("|---|---:|---:|---:|---:|---:|")
        for mode in ("on", "off"):
            samples, tps, vacs = ch[mode]
            peak = max(tb + ib for _, tb, ib in samples)
            _, tb, ib = samples[-1]
            lines.append(f"| {mode} | {tps:,.0f} | {vacs} | {mib(tb)} | {mib(ib)} | "
                         f"{mib(peak)} |")
        lines.append("")
    return "\n".join(lines)


def write_doc(doc, body):
    text = ""
    if os.path.exists(doc):
        with open(doc) as f:
            text = f.read()
    block = f"{MARK_BEGIN}\n{body.rstrip()}\n{MARK_END}"
    if MARK_BEGIN in text and MARK_END in text:
        start = text.index(MARK_BEGIN)
        end = text.index(MARK_END) + len(MARK_END)
        text = text[:start] + block + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n## Background workers\n\n" + block + "\n"
    with open(doc, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="round,idle,recovery,churn")
    ap.add_argument("--sizes", default="10000,100000,1000000",
                    help="queue sizes of the round benchmark")
    ap.add_argument("--due", type=int, default=1000, help="documents due per round")
    ap.add_argument("--orphans", type=int, default=100, help="orphans per round")
    ap.add_argument("--limit", type=int, default=1000, help="mnt_run limit")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of each round")
    ap.add_argument("--idle-queues", type=int, default=1000)
    ap.add_argument("--idle-docs", type=int, default=1000000)
    ap.add_argument("--idle-window", type=float, default=60, help="seconds")
    ap.add_argument("--idle-settle", type=float, default=10,
                    help="seconds between the first jobs and the window")
    ap.add_argument("--recovery-docs", type=int, default=200)
    ap.add_argument("--recovery-reps", type=int, default=1)
    ap.add_argument("--churn-seconds", type=int, default=120, help="per run (600: 10 minutes)")
    ap.add_argument("--churn-clients", type=int, default=2)
    ap.add_argument("--churn-rate", type=int, default=0, help="pgbench -R (0: as fast as it goes)")
    ap.add_argument("--backlog", type=int, default=10000, help="pending documents of the churn")
    ap.add_argument("--sample", type=float, default=3, help="seconds between size samples")
    ap.add_argument("--out", default="build/bench/results")
    ap.add_argument("--doc", help="docs/benchmarks.md: write the section there")
    ap.add_argument("--command", default="bench/run.sh --workers")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    parts = set(a.parts.split(","))
    started = datetime.datetime.utcnow()
    try:
        rounds = idle = rec = ch = None
        plotted = False
        if "round" in parts:
            rounds = round_cost([int(x) for x in a.sizes.split(",")], a.due, a.orphans,
                                a.reps, a.limit)
            with open(os.path.join(a.out, "round-plans.txt"), "w") as f:
                for total, _, _, plan in rounds:
                    f.write(f"== {total}\n{plan}\n")
        if "idle" in parts:
            idle = idle_cost(a.idle_queues, a.idle_docs, a.idle_window, a.idle_settle)
        if "recovery" in parts:
            rec = recovery(a.recovery_docs, a.recovery_reps)
        if "churn" in parts:
            ch = churn(a.churn_seconds, a.churn_clients, a.churn_rate, a.backlog, a.sample,
                       a.out)
            png = os.path.join(os.path.dirname(a.doc), "benchmarks-bloat.png") if a.doc \
                else os.path.join(a.out, "benchmarks-bloat.png")
            plotted = plot(ch, png, a.out)
    except Failure as e:
        log(f"FAILED: {e}")
        return 1
    body = report(a, rounds, idle, rec, ch, plotted, started)
    print(body)
    with open(os.path.join(a.out, "workers.md"), "w") as f:
        f.write(body + "\n")
    if a.doc:
        write_doc(a.doc, body)
        log(f"wrote the workers section of {a.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
