#!/usr/bin/env python3
"""Side-by-side benchmarks of fetchq: the floor (hand-written SQL), the
reference (Fetchq 4), PgQ, pgmq (when its SQL is given) and the extension,
with pgbench, on one server.

Started by bench/run.sh, which provides the server (PGHOST, PGPORT, PGUSER)
and the reference script. Each system is described by one file,
bench/<system>.sql, split at its "-- @name" lines (see floor.sql).

Every timed run starts from the same backlog (reset), is checked afterwards
(the documents pushed, picked and completed must be exactly what pgbench
reports), and is repeated; the table shows the median of the repetitions.
"""
import argparse
import datetime
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

SYSTEMS = ["floor", "floor_counted", "reference", "pgq", "pgmq", "extension", "deferred"]
DATABASES = {s: "bench_" + s for s in SYSTEMS}
# operation -> (label, documents per pgbench transaction)
OPS = {
    "push_1": ("push 1 per transaction", 1),
    "pick_1": ("pick 1 + complete", 1),
    "pick_100": ("pick 100 + complete 100", 100),
    "push_100": ("push 100 per transaction", 100),
}
# The extension with deferred counters (bench/deferred.sql) runs these only:
# they are the single-document operations whose commit the counter row weighs on.
DEFERRED_OPS = ("push_1", "pick_1")
DEFERRED_BEGIN = "<!-- deferred:begin (written by bench/driver.py --deferred-doc) -->"
DEFERRED_END = "<!-- deferred:end -->"
MARK_BEGIN = "<!-- results:begin (written by bench/driver.py) -->"
MARK_END = "<!-- results:end -->"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Failure(Exception):
    pass


def sections(path):
    """The "-- @name" sections of a system file. A file whose first line is
    "-- extends: NAME" starts from NAME.sql: its "setup" and "reset" run after
    NAME's, its other sections replace NAME's."""
    out, name = {}, None
    with open(path) as f:
        lines = f.readlines()
    m = re.match(r"^-- extends: (\w+)\s*$", lines[0]) if lines else None
    base = sections(os.path.join(HERE, m.group(1) + ".sql")) if m else {}
    for line in lines:
        m = re.match(r"^-- @(\w+)\s*$", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif name:
            out[name] += line
    for key in ("setup", "reset"):
        if key in base and key in out:
            out[key] = base[key] + out[key]
    return {**base, **out}


def psql(db, sql, variables=None, check=True):
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db]
    for k, v in (variables or {}).items():
        cmd += ["-v", f"{k}={v}"]
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    p = subprocess.run(cmd, input=sql, capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        raise Failure(f"psql on {db} failed:\n{p.stderr.strip()}\nSQL:\n{sql.strip()[:2000]}")
    return p.stdout


class System:
    def __init__(self, name, script_dir):
        self.name = name
        self.db = DATABASES[name]
        self.sql = sections(os.path.join(HERE, name + ".sql"))
        self.scripts = {}
        for op in OPS:
            if op in self.sql:
                path = os.path.join(script_dir, f"{name}_{op}.sql")
                with open(path, "w") as f:
                    f.write(self.sql[op])
                self.scripts[op] = path

    def supports(self, op):
        if self.name == "deferred" and op not in DEFERRED_OPS:
            return False
        return op in self.scripts

    def reset(self, backlog):
        psql(self.db, self.sql["reset"], {"backlog": backlog})
        psql(self.db, "CHECKPOINT;")

    def counts(self):
        row = psql(self.db, self.sql["counts"]).strip().split("|")
        return [int(x) for x in row]

    def maintain(self):
        if "maintain" in self.sql:
            psql(self.db, self.sql["maintain"])


def create_databases(systems, ref_sql, pgmq_sql=None):
    for s in systems:
        psql("postgres", f"DROP DATABASE IF EXISTS {s.db} WITH (FORCE);")
        psql("postgres", f"CREATE DATABASE {s.db};")
        if s.name == "pgmq":
            if not pgmq_sql:
                raise Failure("the pgmq system needs --pgmq-sql (pgmq's sql/pgmq.sql)")
            with open(pgmq_sql) as f:
                psql(s.db, f.read())
        if s.name == "reference":
            with open(ref_sql) as f:
                script = f.read()
            psql(s.db, 'CREATE EXTENSION "uuid-ossp";\n' + script)
            ok = psql(s.db, "SELECT was_initialized FROM fetchq.init();").strip()
            if ok != "t":
                raise Failure(f"fetchq.init() of the reference returned '{ok}'")
        psql(s.db, s.sql["setup"])


def pgbench(db, script, clients, duration, options=None, transactions=None):
    """Runs for `duration` seconds, or `transactions` per client when given."""
    length = ["-t", str(transactions)] if transactions else ["-T", str(duration)]
    cmd = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(clients, 2)),
           *length, "-f", script, db]
    env = dict(os.environ, PGOPTIONS=options) if options else None
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    m_x = re.search(r"number of transactions actually processed: (\d+)", out)
    m_f = re.search(r"number of failed transactions: (\d+)", out)
    m_t = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
    m_l = re.search(r"latency average = ([0-9.]+) ms", out)
    if p.returncode != 0 or not (m_x and m_t) or (m_f and int(m_f.group(1)) > 0):
        raise Failure(f"pgbench failed ({' '.join(cmd)}):\n{out.strip()[-3000:]}")
    return int(m_x.group(1)), float(m_t.group(1)), float(m_l.group(1)) if m_l else None


def timed_run(system, op, clients, duration, backlog, transactions=None):
    """One checked run; returns documents per second."""
    system.reset(backlog)
    before = system.counts()
    try:
        xacts, tps, latency = pgbench(system.db, system.scripts[op], clients, duration,
                                      transactions=transactions)
    except Failure as e:
        if op.startswith("pick"):
            raise Failure(f"{e}\n(a pick that finds no document aborts its client: if the "
                          f"backlog of {backlog} ran out, give a larger --backlog)") from e
        raise
    after = system.counts()
    system.maintain()
    per = OPS[op][1]
    docs = xacts * per
    pending, active, completed, total = [a - b for a, b in zip(after, before)]
    if op.startswith("push"):
        ok = total == docs
        seen = f"{total} new documents"
    else:
        ok = completed == docs and active == 0 and total == 0
        seen = f"{completed} completed, {active} left active"
    if not ok:
        raise Failure(f"{system.name} {op} c={clients}: pgbench did {xacts} transactions "
                      f"({docs} documents) but the table shows {seen}")
    return tps * per, xacts, latency


# ---------------------------------------------------------------- promotion

PROMOTION_SETUP = """
SELECT * FROM fetchq.queue_create('bp');
CREATE TABLE public.bench_promoted (subject varchar(50) PRIMARY KEY, due timestamptz,
                                    pickable timestamptz);
-- Fires in the promoting statement, just before its transaction commits. (A
-- deferred trigger would fire at the commit itself, but the scheduler runs
-- maintenance inside a security-restricted operation, where PostgreSQL
-- refuses to queue deferred trigger events.)
CREATE FUNCTION public.bench_note_promoted() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
    INSERT INTO public.bench_promoted VALUES (NEW.subject, NEW.next_iteration, clock_timestamp())
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER bench_promoted AFTER UPDATE OF status ON fetchq_data.bp__docs
    FOR EACH ROW WHEN (OLD.status = 0 AND NEW.status = 1)
    EXECUTE FUNCTION public.bench_note_promoted();
"""

PROMOTION_PUSH = """
SELECT count(fetchq.doc_push('bp', 'p' || g, 0, 0,
                             now() + interval '1 second' + random() * :'window'::interval,
                             '{}'))
FROM generate_series(1, :docs) AS g;
"""

PROMOTION_RESULT = """
SELECT count(*),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY ms),
       max(ms), min(ms)
FROM (SELECT extract(epoch FROM pickable - due) * 1000 AS ms FROM public.bench_promoted) AS l;
"""


def promotion(ext, docs, window_s, load_script=None, load_clients=0, backlog=0):
    """Documents due at random moments over window_s seconds: how long after
    its due time does each become pickable? Returns (n, p50, p99, max, min) in ms."""
    psql(ext.db, "SELECT fetchq.queue_truncate('bp'); TRUNCATE public.bench_promoted;")
    load = None
    if load_script:
        ext.reset(backlog)
        load = subprocess.Popen(
            ["pgbench", "-n", "-M", "prepared", "-c", str(load_clients), "-j", "2",
             "-T", str(window_s + 4), "-f", load_script, ext.db],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    psql(ext.db, PROMOTION_PUSH, {"docs": docs, "window": f"{window_s} seconds"})
    deadline = time.time() + window_s + 30
    while time.time() < deadline:
        left = int(psql(ext.db, "SELECT count(*) FROM fetchq_data.bp__docs WHERE status = 0;"))
        if left == 0:
            break
        time.sleep(0.5)
    if load:
        _, err = load.communicate()
        if load.returncode != 0:
            raise Failure(f"the load of the promotion benchmark failed:\n{err[-2000:]}")
    row = psql(ext.db, PROMOTION_RESULT).strip().split("|")
    n = int(row[0])
    if n != docs:
        raise Failure(f"promotion: {n} of {docs} documents were promoted within "
                      f"{window_s + 30} s")
    return n, float(row[1]), float(row[2]), float(row[3]), float(row[4])


# ----------------------------------------------------------------- profile

PGSS_TOP = """
SELECT calls, plans, round((total_exec_time / greatest(calls, 1) * 1000)::numeric, 1),
       round((total_plan_time / greatest(plans, 1) * 1000)::numeric, 1), toplevel,
       left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND calls >= :min_calls
ORDER BY total_exec_time + total_plan_time DESC LIMIT 8;
"""


def perf_category(frames):
    """Where one perf sample of a backend was spent (frames: innermost first)."""
    def has(name):
        return any(f == name or f.startswith(name + "(") for f in frames)
    if any(f.endswith("::on_xact") for f in frames):
        return "counters: flush to fetchq.metrics before commit"
    sql_fn = next((f for f in reversed(frames) if re.match(r"^fetchq_\w+$", f)), None)
    if sql_fn:
        name = sql_fn[len("fetchq_"):]
        if has("standard_planner"):
            return f"{name}: planning its statement"
        if has("SPI_execute_plan"):
            return f"{name}: executing its statement"
        return f"{name}: the rest (arguments, SPI, result)"
    if has("plpgsql_call_handler"):
        if has("standard_planner"):
            return "PL/pgSQL: planning (EXECUTE of built SQL)"
        return "PL/pgSQL: the rest (execution, exception blocks)"
    if has("standard_planner"):
        return "planning (top-level statement)"
    if has("CommitTransactionCommand"):
        return "commit"
    if has("standard_ExecutorRun") or has("standard_ExecutorStart") or has("PortalRun"):
        return "executor (top-level statement)"
    return "protocol, parse/bind, other"


def perf_split(data_file):
    p = subprocess.run(["perf", "script", "-i", data_file], capture_output=True, text=True)
    counts, total = {}, 0
    for block in p.stdout.split("\n\n"):
        lines = block.strip().split("\n")
        if len(lines) < 2:
            continue
        frames = []
        for line in lines[1:]:
            m = re.match(r"\s*[0-9a-f]+ (.+?)(\+0x[0-9a-f]+)? \(", line)
            if m:
                frames.append(m.group(1))
        total += 1
        c = perf_category(frames)
        counts[c] = counts.get(c, 0) + 1
    return total, sorted(counts.items(), key=lambda kv: -kv[1])


def profile(systems, ops, duration, backlog_of, out_dir, freq=2000):
    """Where the time of one client goes: pg_stat_statements (server time per
    statement, nested ones included) and, when perf is there, the backend's
    CPU samples by phase."""
    report = []
    use_perf = shutil.which("perf") is not None and os.geteuid() == 0
    for s in systems:
        psql(s.db, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements;")
        for op in ops:
            if not s.supports(op):
                continue
            s.reset(backlog_of(op))
            psql(s.db, "SELECT pg_stat_statements_reset();")
            bench = subprocess.Popen(
                ["pgbench", "-n", "-M", "prepared", "-c", "1", "-T", str(duration),
                 "-f", s.scripts[op], s.db], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True)
            pid = ""
            for _ in range(50):
                time.sleep(0.1)
                pid = psql("postgres", "SELECT pid FROM pg_stat_activity WHERE "
                           f"application_name = 'pgbench' AND datname = '{s.db}';").strip()
                if pid:
                    break
            perf_file = os.path.join(out_dir, f"perf-{s.name}-{op}.data")
            window = max(1, duration - 2)
            if use_perf and pid:
                subprocess.run(["perf", "record", "-F", str(freq), "-g", "-p", pid, "-o",
                                perf_file, "--", "sleep", str(window)],
                               capture_output=True)
            out, err = bench.communicate()
            m = re.search(r"tps = ([0-9.]+) \(without", out)
            tps = float(m.group(1)) if m else 0.0
            report.append(f"== {s.name} {op}: 1 client, {duration} s, "
                          f"{tps:,.0f} transactions/s ({1e6 / tps if tps else 0:.0f} us each)")
            report.append("pg_stat_statements (calls, plans, mean exec us, mean plan us, "
                          "top level, statement):")
            rows = psql(s.db, PGSS_TOP, {"min_calls": 100}).strip().split("\n")
            report += ["  " + r for r in rows if r]
            if use_perf and pid and os.path.exists(perf_file):
                total, cats = perf_split(perf_file)
                cpu_us = total / freq / max(tps * window, 1) * 1e6
                report.append(f"perf: {total} samples of the backend, about {cpu_us:.0f} us of "
                              "backend CPU per transaction:")
                for c, n in cats:
                    report.append(f"  {100 * n / total:5.1f}%  {cpu_us * n / total:6.1f} us  {c}")
            report.append("")
            log(f"driver: profiled {s.name} {op}")
    floor = next((s for s in systems if s.name == "floor"), None)
    if floor:
        report += plan_modes(floor, duration, backlog_of("pick_1"), out_dir)
    report += counter_designs(out_dir, duration)
    text = "\n".join(report)
    with open(os.path.join(out_dir, "profile.txt"), "w") as f:
        f.write(text + "\n")
    print(text)


def plan_modes(floor, duration, backlog, out_dir):
    """The floor's pick 1 with its LIMIT as a parameter, as the extension
    prepares it: the plan cache then plans it at every call unless told to
    keep the generic plan."""
    path = os.path.join(out_dir, "scripts", "floor_pick_1_limit_param.sql")
    with open(path, "w") as f:
        f.write(floor.sql["pick_1_limit_param"])
    out = ["== floor pick 1 + complete with LIMIT $n (bench/floor.sql pick_1_limit_param), "
           f"1 client, {duration} s"]
    for mode in ("auto", "force_generic_plan"):
        floor.reset(backlog)
        psql(floor.db, "SELECT pg_stat_statements_reset();")
        _, tps, _ = pgbench(floor.db, path, 1, duration, f"-c plan_cache_mode={mode}")
        row = psql(floor.db, "SELECT calls, plans, round((mean_plan_time * 1000)::numeric, 1), "
                   "round((mean_exec_time * 1000)::numeric, 1) FROM pg_stat_statements "
                   "WHERE query LIKE 'UPDATE floor_docs AS d%' AND dbid = (SELECT oid FROM "
                   "pg_database WHERE datname = current_database());").strip().split("|")
        out.append(f"  plan_cache_mode = {mode:18s} {tps:8,.0f} transactions/s; pick UPDATE: "
                   f"{row[1]} plans for {row[0]} calls, {row[2]} us planning, "
                   f"{row[3]} us executing (means)")
    return out + [""]


def counter_designs(out_dir, duration):
    """Server time of one transaction's counter write, design by design
    (bench/counters.sql)."""
    db = "bench_counters"
    sql = sections(os.path.join(HERE, "counters.sql"))
    psql("postgres", f"DROP DATABASE IF EXISTS {db} WITH (FORCE);")
    psql("postgres", f"CREATE DATABASE {db};")
    psql(db, "CREATE EXTENSION pg_stat_statements;\n" + sql["setup"])
    out = ["== counter writes of one pick's commit (bench/counters.sql), 1 client, "
           f"{duration} s each: mean server time per statement"]
    for name in ("upsert", "upsert_noid", "wide_row"):
        path = os.path.join(out_dir, "scripts", f"counters_{name}.sql")
        with open(path, "w") as f:
            f.write(sql[name])
        psql(db, "SELECT pg_stat_statements_reset();")
        xacts, tps, _ = pgbench(db, path, 1, duration)
        us = psql(db, "SELECT round((sum(total_exec_time) / sum(calls) * 1000)::numeric, 1) "
                      "FROM pg_stat_statements WHERE calls > 100 AND dbid = (SELECT oid FROM "
                      "pg_database WHERE datname = current_database());").strip()
        out.append(f"  {name:12s} {us:>6s} us per statement ({tps:,.0f} transactions/s)")
    psql("postgres", f"DROP DATABASE {db} WITH (FORCE);")
    return out + [""]


# ------------------------------------------------------------------ report

def fmt_rate(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def ratio(runs, a, b, op, c):
    """Median over the repetitions of a's rate / b's rate in that repetition:
    the two ran back to back, so a slow spell of the machine cancels out."""
    ra, rb = runs.get((a, op, c), {}), runs.get((b, op, c), {})
    rs = [ra[r] / rb[r] for r in ra if r in rb and rb[r] > 0]
    return statistics.median(rs) if rs else None


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    server = psql("postgres", "SHOW server_version;").strip()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{os.cpu_count()} CPUs ({cpu}), {mem} RAM, {platform.system()} "
            f"{platform.release()}, PostgreSQL {server}; load average at start: {load}")


def results_table(medians, runs, systems, ops, clients_list):
    head = ("| operation | clients | floor | floor + counters | reference | PgQ | pgmq "
            "| extension | ext / floor | ext / floor + counters | ext / reference | ext / pgmq |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for op in ops:
        label = OPS[op][0]
        for c in clients_list:
            v = {s: medians.get((s, op, c)) for s in systems}
            lines.append(
                f"| {label} | {c} | {fmt_rate(v.get('floor'))} "
                f"| {fmt_rate(v.get('floor_counted'))} | {fmt_rate(v.get('reference'))} "
                f"| {fmt_rate(v.get('pgq'))} | {fmt_rate(v.get('pgmq'))} "
                f"| {fmt_rate(v.get('extension'))} "
                f"| {fmt_ratio(ratio(runs, 'extension', 'floor', op, c))} "
                f"| {fmt_ratio(ratio(runs, 'extension', 'floor_counted', op, c))} "
                f"| {fmt_ratio(ratio(runs, 'extension', 'reference', op, c))} "
                f"| {fmt_ratio(ratio(runs, 'extension', 'pgmq', op, c))} |")
    return "\n".join(lines)


def deferred_table(medians, runs, ops, clients_list):
    """The extension with deferred counters next to the floor without counters,
    the floor with counters and the extension with exact counters."""
    lines = ["| operation | clients | floor | floor + counters | extension (exact) "
             "| extension (deferred) | deferred / floor | exact / floor "
             "| deferred / floor + counters | deferred / exact |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for op in ops:
        if op not in DEFERRED_OPS:
            continue
        for c in clients_list:
            v = {s: medians.get((s, op, c)) for s in ("floor", "floor_counted", "extension",
                                                       "deferred")}
            lines.append(
                f"| {OPS[op][0]} | {c} | {fmt_rate(v['floor'])} | {fmt_rate(v['floor_counted'])} "
                f"| {fmt_rate(v['extension'])} | {fmt_rate(v['deferred'])} "
                f"| {fmt_ratio(ratio(runs, 'deferred', 'floor', op, c))} "
                f"| {fmt_ratio(ratio(runs, 'extension', 'floor', op, c))} "
                f"| {fmt_ratio(ratio(runs, 'deferred', 'floor_counted', op, c))} "
                f"| {fmt_ratio(ratio(runs, 'deferred', 'extension', op, c))} |")
    rs = [(ratio(runs, "deferred", "floor", op, c), op, c)
          for op in ops if op in DEFERRED_OPS for c in clients_list]
    rs = [x for x in rs if x[0] is not None]
    goals = []
    if rs:
        r, op, c = min(rs)
        goals.append(f"- deferred: push 1 and pick 1 + complete >= 0.95x the floor: "
                     f"{'holds' if r >= 0.95 else 'does not hold'} "
                     f"(lowest: {r:.2f}x, {OPS[op][0]}, {c} clients)")
    rs = [(ratio(runs, "extension", "floor_counted", op, c), op, c)
          for op in ops if op in DEFERRED_OPS for c in clients_list]
    rs = [x for x in rs if x[0] is not None]
    if rs:
        r, op, c = min(rs)
        goals.append(f"- exact: >= 0.9x the floor with counters: "
                     f"{'holds' if r >= 0.9 else 'does not hold'} "
                     f"(lowest: {r:.2f}x, {OPS[op][0]}, {c} clients)")
    return "\n".join(lines), "\n".join(goals)


def targets(runs, ops, clients_list, promo):
    out = []
    floor = [(ratio(runs, "extension", "floor", op, c), op, c) for op in ops for c in clients_list]
    floor = [x for x in floor if x[0] is not None]
    if floor:
        r, op, c = min(floor)
        out.append(f"- every document operation >= 1.0x the floor: "
                   f"{'holds' if r >= 1.0 else 'does not hold'} "
                   f"(lowest: {r:.2f}x, {OPS[op][0]}, {c} clients)")
    counted = [(ratio(runs, "extension", "floor_counted", op, c), op, c)
               for op in ops for c in clients_list]
    counted = [x for x in counted if x[0] is not None]
    if counted:
        r, op, c = min(counted)
        out.append(f"- (not a target of the issue) every document operation >= 1.0x the floor "
                   f"with counters: {'holds' if r >= 1.0 else 'does not hold'} "
                   f"(lowest: {r:.2f}x, {OPS[op][0]}, {c} clients)")
    floor_09 = [x for x in floor if x[0] < 0.9]
    if floor:
        out.append("- every document operation >= 0.9x the floor: " +
                   ("holds" if not floor_09 else "does not hold (" + ", ".join(
                       f"{r:.2f}x {OPS[op][0]}, {c} clients" for r, op, c in sorted(floor_09))
                    + ")"))
    for op, goal in (("push_1", 1.5), ("pick_1", 1.5), ("pick_100", 1.0)):
        rs = [(ratio(runs, "extension", "pgmq", op, c), c) for c in clients_list if op in ops]
        rs = [x for x in rs if x[0] is not None]
        if rs:
            r, c = min(rs)
            out.append(f"- {OPS[op][0]} >= {goal:.1f}x pgmq: "
                       f"{'holds' if r >= goal else 'does not hold'} (lowest: {r:.2f}x, "
                       f"{c} clients)")
    ref = [(ratio(runs, "extension", "reference", "pick_1", c), c) for c in clients_list]
    ref = [x for x in ref if x[0] is not None]
    if ref:
        r, c = min(ref)
        out.append(f"- pick 1 + complete >= 3x the reference: "
                   f"{'holds' if r >= 3.0 else 'does not hold'} (lowest: {r:.2f}x, {c} clients)")
    for label, p in promo:
        out.append(f"- promotion p99 <= 100 ms ({label}): "
                   f"{'holds' if p[2] <= 100 else 'does not hold'} (p99 = {p[2]:.1f} ms)")
    return "\n".join(out)


def write_data(path, medians, systems, ops, clients_list):
    """One block per operation for gnuplot: clients, then docs/s per system."""
    with open(path, "w") as f:
        for op in ops:
            f.write(f"# {op}\n# clients " + " ".join(systems) + "\n")
            for c in clients_list:
                vals = []
                for s in systems:
                    v = medians.get((s, op, c))
                    vals.append(f"{v:.1f}" if v else "-")
                f.write(f"{c} " + " ".join(vals) + "\n")
            f.write("\n\n")


def plot(data, png, systems, ops, medians):
    if not shutil.which("gnuplot"):
        log("driver: gnuplot is missing (apt-get install gnuplot-nox): no plot")
        return False
    titles = {"floor": "floor (plain SQL)", "floor_counted": "floor + counters (plain SQL)",
              "reference": "Fetchq 4 (reference)",
              "pgq": "PgQ", "pgmq": "pgmq", "extension": "fetchq extension"}
    colors = {"floor": "#888888", "floor_counted": "#bbbbbb", "reference": "#d95f02",
              "pgq": "#7570b3", "pgmq": "#e7298a",
              "extension": "#1b9e77"}
    panels = []
    for idx, op in enumerate(ops):
        cols = []
        for i, s in enumerate(systems):
            if any(k[0] == s and k[1] == op for k in medians):
                cols.append(f"'{data}' index {idx} using {i + 2}:xtic(1) title '{titles[s]}' "
                            f"lc rgb '{colors[s]}'")
        panels.append(f"set title '{OPS[op][0]}'\nplot " + ", \\\n     ".join(cols))
    script = f"""
set terminal pngcairo size 1400,900 font 'sans,10'
set output '{png}'
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set grid ytics
set key top left
set xlabel 'clients'
set ylabel 'documents / s'
set yrange [0:*]
set offsets 0, 0, graph 0.25, 0
set format y '%.0s%c'
set multiplot layout {(len(ops) + 1) // 2},{min(len(ops), 2)} title 'fetchq side-by-side benchmarks (median documents per second, higher is better)'
{chr(10).join(panels)}
unset multiplot
"""
    p = subprocess.run(["gnuplot"], input=script.encode(), capture_output=True)
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode != 0 or err or not os.path.exists(png):
        log("driver: gnuplot failed:\n" + err)
        return False
    return True


def replace_block(doc, begin, end, text):
    """Writes `text` between the markers `begin` and `end` of doc, which
    must have them (the block of one benchmark in docs/benchmarks.md)."""
    with open(doc) as f:
        old = f.read()
    if begin not in old or end not in old:
        raise Failure(f"{doc} has no block {begin} ... {end}")
    pre, rest = old.split(begin, 1)
    post = rest.split(end, 1)[1]
    with open(doc, "w") as f:
        f.write(pre + begin + "\n" + text + "\n" + end + post)


def write_doc(doc, block):
    text = ""
    if os.path.exists(doc):
        with open(doc) as f:
            text = f.read()
    if MARK_BEGIN in text and MARK_END in text:
        pre = text.split(MARK_BEGIN)[0]
        post = text.split(MARK_END, 1)[1]
        text = pre + MARK_BEGIN + "\n" + block + "\n" + MARK_END + post
    else:
        text = "# Benchmarks\n\n" + MARK_BEGIN + "\n" + block + "\n" + MARK_END + "\n" + text
    with open(doc, "w") as f:
        f.write(text)


# -------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref-sql", required=True)
    ap.add_argument("--pgmq-sql", help="pgmq's SQL (pgmq-extension/sql/pgmq.sql of a snapshot)")
    ap.add_argument("--out", required=True, help="directory for scripts, raw results, plot")
    ap.add_argument("--doc", help="markdown file whose results block is (re)written")
    ap.add_argument("--deferred-doc",
                    help="markdown file whose deferred-counters block is (re)written")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--ops", default=None, help="default: all (push_1,pick_1 for --profile)")
    ap.add_argument("--clients", default=None)
    ap.add_argument("--duration", type=int, default=None)
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--backlog", type=int, default=None)
    ap.add_argument("--no-promotion", action="store_true")
    ap.add_argument("--profile", action="store_true",
                    help="where the time goes (pg_stat_statements, perf), 1 client")
    ap.add_argument("--command", default="bench/run.sh")
    a = ap.parse_args()

    smoke = a.smoke
    clients_list = [int(c) for c in (a.clients or ("2" if smoke else "1,4,16")).split(",")]
    duration = a.duration or (1 if smoke else (5 if a.profile else 3))
    reps = a.reps or (1 if smoke else 3)
    names = [s for s in a.systems.split(",") if s]
    ops = [o for o in (a.ops or ("push_1,pick_1" if a.profile else ",".join(OPS))).split(",")
           if o]
    for o in ops:
        if o not in OPS:
            raise SystemExit(f"unknown operation {o}")

    def backlog_of(op):
        """Pending documents at the start of every run: more than the fastest
        system picks in one run (pick 100 reached ~110,000 documents/s here)."""
        if a.backlog:
            return a.backlog
        if smoke:
            return 20_000
        base = {"pick_1": 200_000, "pick_100": 500_000}.get(op, 100_000)
        return base * max(duration, 3) // 3

    os.makedirs(os.path.join(a.out, "scripts"), exist_ok=True)
    started = time.time()
    info = machine()
    log(f"driver: {info}")
    systems = [System(n, os.path.join(a.out, "scripts")) for n in names]
    create_databases(systems, a.ref_sql, a.pgmq_sql)
    if a.profile:
        profile(systems, ops, duration, backlog_of, a.out)
        return

    # rep -> (system, op, clients) -> docs/s. The systems run interleaved, in
    # an order that changes at each repetition, so that the machine's noise
    # falls on all of them alike.
    raw = []
    runs = {}
    rng = random.Random(4)
    for rep in range(reps):
        for op in ops:
            for c in clients_list:
                order = [s for s in systems if s.supports(op)]
                rng.shuffle(order)
                for s in order:
                    # A smoke run does a fixed amount of work: it can never run out.
                    count = (50 if OPS[op][1] > 1 else 500) if smoke else None
                    rate, xacts, lat = timed_run(s, op, c, duration, backlog_of(op), count)
                    runs.setdefault((s.name, op, c), {})[rep] = rate
                    raw.append((rep, s.name, op, c, rate, xacts, lat))
                    log(f"driver: rep {rep + 1}/{reps} {op:9s} c={c:<3d} {s.name:13s} "
                        f"{rate:12,.0f} docs/s  ({xacts} xacts, {lat} ms)")
    medians = {k: statistics.median(v.values()) for k, v in runs.items()}
    with open(os.path.join(a.out, "raw.tsv"), "w") as f:
        f.write("rep\tsystem\top\tclients\tdocs_per_s\ttransactions\tlatency_ms\n")
        for r in raw:
            f.write("\t".join(str(x) for x in r) + "\n")

    promo = []
    ext = next((s for s in systems if s.name == "extension"), None)
    if ext and not a.no_promotion:
        psql(ext.db, PROMOTION_SETUP)
        docs, window = (50, 2) if smoke else (1000, 20)
        p = promotion(ext, docs, window)
        promo.append(("idle server", p))
        log(f"driver: promotion, idle: n={p[0]} p50={p[1]:.1f} ms p99={p[2]:.1f} ms "
            f"max={p[3]:.1f} ms")
        if not smoke and ext.supports("pick_1"):
            # 4 unthrottled pickers keep both CPUs busy during the window (24 s
            # at up to 20,000 a second: a backlog they cannot empty).
            p = promotion(ext, docs, window, ext.scripts["pick_1"], 4, 600_000)
            promo.append(("while 4 clients pick 1 + complete", p))
            log(f"driver: promotion, loaded: n={p[0]} p50={p[1]:.1f} ms p99={p[2]:.1f} ms "
                f"max={p[3]:.1f} ms")

    table = results_table(medians, runs, [s.name for s in systems], ops, clients_list)
    print(table)
    deferred = None
    if any(s.name == "deferred" for s in systems):
        deferred = deferred_table(medians, runs, ops, clients_list)
        print(deferred[0])
        print(deferred[1])
    if a.deferred_doc and deferred and not smoke:
        block = "\n\n".join([
            f"Run of {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC with "
            f"`{a.command}` ({(time.time() - started) / 60:.1f} min).",
            f"Machine: {info}.",
            f"Each cell: median of {reps} runs of {duration} s (pgbench -M prepared), "
            "documents per second; ratios: median over the repetitions of the ratio within "
            "a repetition.",
            deferred[0], "Targets in this run:", deferred[1]])
        replace_block(a.deferred_doc, DEFERRED_BEGIN, DEFERRED_END, block)
        log(f"driver: wrote the deferred-counters block of {a.deferred_doc}")
        return
    data = os.path.join(a.out, "results.dat")
    write_data(data, medians, [s.name for s in systems], ops, clients_list)
    elapsed = time.time() - started
    if smoke:
        print(f"smoke run: every scenario ran and was checked ({len(raw)} runs, "
              f"{elapsed:.0f} s)")
        return
    if a.doc:
        png_name = os.path.splitext(os.path.basename(a.doc))[0] + ".png"
        png = os.path.join(os.path.dirname(a.doc), png_name)
        have_plot = plot(data, png, [s.name for s in systems], ops, medians)
        promo_lines = ["| promotion | documents | p50 | p99 | max |", "|---|---:|---:|---:|---:|"]
        for label, p in promo:
            promo_lines.append(f"| {label} | {p[0]} | {p[1]:.1f} ms | {p[2]:.1f} ms "
                               f"| {p[3]:.1f} ms |")
        parts = [
            f"Run of {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC with "
            f"`{a.command}` ({elapsed / 60:.1f} min).",
            f"Machine: {info}.",
            f"Each cell: median of {reps} runs of {duration} s (pgbench -M prepared, "
            f"-T {duration}), each from the same backlog of pending documents "
            f"({backlog_of('push_1'):,} for pushes, {backlog_of('pick_1'):,} for pick 1, "
            f"{backlog_of('pick_100'):,} for pick 100); "
            "documents per second (transactions per second x documents per transaction). "
            "Ratios: median over the repetitions of the ratio within a repetition (the "
            "systems of a cell run back to back, in a shuffled order).",
            table,
            f"![documents per second]({png_name})" if have_plot else "(no plot: gnuplot missing)",
        ]
        if promo:
            parts += [
                "Promotion latency (pickable time - due time) of documents due at random "
                f"moments over {promotion_window(smoke)} s:",
                "\n".join(promo_lines)]
        if deferred:
            parts += ["Deferred counters (bench/deferred.sql):", deferred[0]]
        parts += ["Targets in this run:", targets(runs, ops, clients_list, promo)]
        if deferred:
            parts.append(deferred[1])
        block = "\n\n".join(parts)
        write_doc(a.doc, block)
        log(f"driver: wrote {a.doc}" + (f" and {png}" if have_plot else ""))


def promotion_window(smoke):
    return 2 if smoke else 20


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        log(f"driver: FAILED: {e}")
        sys.exit(1)
