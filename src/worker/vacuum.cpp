// Targeted VACUUM of hot queue tables (see vacuum.hpp). The statistics are
// read in a short transaction; each VACUUM then runs as exec_simple_query
// runs a top-level VACUUM: in a fresh transaction that vacuum() commits
// before it vacuums the table in transactions of its own, and that we
// commit once it returns. Error recovery follows autovacuum's do_autovacuum.
#include "worker/vacuum.hpp"

#include <unordered_map>
#include <vector>

#include "pg/guard.hpp"
#include "pg/spi.hpp"
#include "ops/config/settings.hpp"
#include "worker/server_log.hpp"
#include "worker/transaction.hpp"

extern "C" {
#include "access/relation.h"
#include "access/transam.h"
#include "catalog/namespace.h"
#include "commands/vacuum.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "nodes/makefuncs.h"
#include "parser/parse_node.h"
#include "pgstat.h"
#include "utils/backend_status.h"
}

namespace fetchq::worker {

using namespace fetchq::ops;
namespace {

// What the cumulative statistics say of one table (trivially destructible:
// filled inside pg_call).
struct TableStats {
    bool found;
    int64 dead;
    int64 vacuum_count;       // VACUUM commands, ours included (not autovacuum)
    TimestampTz last_vacuum;  // by anyone, 0 when never
};

struct Table {
    Oid relid = InvalidOid;
    std::string name;   // quoted, for messages
    std::string queue;  // whose table it is (empty for the catalog's)
    TableStats before{};
    bool attempted = false;
    double ms = 0;
};

// The xmin horizon below which our last VACUUM of each table removed what
// it could. While it has not moved, the dead tuples counted since are all
// still visible to someone (a long transaction holds it), and another VACUUM
// would read the whole table to remove nothing.
std::unordered_map<Oid, TransactionId> g_vacuumed_below;

// The horizon for the tables of this database (all of fetchq's are plain
// tables: one horizon for all), read through fetchq.counters;
// InvalidTransactionId when its lock is not free at once.
TransactionId data_horizon() {
    return pg::pg_call([] {
        const Oid relid = RangeVarGetRelid(
            makeRangeVar(const_cast<char*>("fetchq"), const_cast<char*>("counters"), -1), NoLock,
            true);
        if (!OidIsValid(relid) || !ConditionalLockRelationOid(relid, AccessShareLock))
            return InvalidTransactionId;
        Relation rel = relation_open(relid, NoLock);
        const TransactionId horizon = GetOldestNonRemovableTransactionId(rel);
        relation_close(rel, NoLock);
        return horizon;
    });
}

bool nothing_removable(const Table& t, TransactionId horizon) {
    if (!TransactionIdIsValid(horizon)) return false;
    const auto it = g_vacuumed_below.find(t.relid);
    return it != g_vacuumed_below.end() && TransactionIdEquals(it->second, horizon);
}

// The queue tables that exist, and the hot catalog tables, in a stable order.
void list_tables(std::vector<Table>* tables) {
    pg::spi_connect();
    SPIPlanPtr plan = pg::cached_plan(
        "", "vacuum_tables",
        [] {
            return std::string(
                "SELECT c.oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname), "
                "q.name::text FROM fetchq.queues q "
                "CROSS JOIN (VALUES ('__docs'), ('__logs'), ('__metrics')) AS s(suffix) "
                "JOIN pg_class c ON c.oid = to_regclass('fetchq_data.' || "
                "quote_ident(q.name || s.suffix)) "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE c.relkind = 'r' "
                // The counter rows take an update per transaction: the
                // hottest tables of all.
                "UNION ALL SELECT 'fetchq.counters'::regclass::oid, 'fetchq.counters', '' "
                "UNION ALL SELECT 'fetchq.custom_counters'::regclass::oid, "
                "'fetchq.custom_counters', '' "
                "UNION ALL SELECT 'fetchq.jobs'::regclass::oid, 'fetchq.jobs', '' "
                // Streams: a head row updated per append, an offset per
                // commit, the messages that retention deletes.
                "UNION ALL SELECT c.oid, 'fetchq.' || quote_ident(c.relname), '' "
                "FROM pg_class c WHERE c.relnamespace = 'fetchq'::regnamespace "
                "AND c.relkind = 'r' AND c.relname IN ('stream_keys', 'stream_offsets', "
                "'stream_messages', 'stream_leases') "
                "ORDER BY 2");
        },
        {});
    const uint64_t n = pg::spi_execute(plan, nullptr, nullptr, true);
    for (uint64_t row = 0; row < n; ++row) {
        bool isnull = false;
        Table t;
        t.relid = DatumGetObjectId(pg::spi_value(row, 1, &isnull));
        t.name = pg::spi_text(row, 2);
        t.queue = pg::spi_text(row, 3);
        tables->push_back(std::move(t));
    }
    pg::spi_finish();
}

// In a transaction: the statistics snapshot is dropped when it ends.
TableStats read_stats(Oid relid) {
    TableStats s{};
    pg::pg_call([&] {
        PgStat_StatTabEntry* e = pgstat_fetch_stat_tabentry(relid);
        if (e == nullptr) return;
        s.found = true;
        s.dead = e->n_dead_tuples;
        s.vacuum_count = e->vacuum_count;
        s.last_vacuum = Max(e->vacuum_timestamp, e->autovac_vacuum_timestamp);
    });
    return s;
}

bool is_due(const TableStats& s, TimestampTz now) {
    if (!s.found || s.dead <= settings.vacuum_threshold) return false;
    return s.last_vacuum == 0 ||
           now >= TimestampTzPlusMilliseconds(s.last_vacuum, settings.vacuum_interval_ms);
}

// Parent of vacuum()'s cross-transaction memory: our PortalContext while it
// runs, reset after each table (also after an error).
MemoryContext g_vacuum_context = nullptr;

// VACUUM (SKIP_LOCKED, TRUNCATE false, PARALLEL 0) of one table by OID: no
// name lookup, and no RangeVar, so a locked or dropped table is skipped
// silently (vacuum_open_relation logs only when given a RangeVar).
VacuumStmt* vacuum_stmt(Oid relid) {
    VacuumStmt* stmt = makeNode(VacuumStmt);
    stmt->is_vacuumcmd = true;
    stmt->options =
        list_make3(makeDefElem(pstrdup("skip_locked"), nullptr, -1),
                   makeDefElem(pstrdup("truncate"), reinterpret_cast<Node*>(makeInteger(0)), -1),
                   makeDefElem(pstrdup("parallel"), reinterpret_cast<Node*>(makeInteger(0)), -1));
    stmt->rels = list_make1(makeVacuumRelation(nullptr, relid, NIL));
    return stmt;
}

// Vacuums one table; on error, rolls back and cleans up like autovacuum, and
// copies the message into `error` for the caller to log. Must be entered
// outside any transaction. No C++ object lives in this frame (PG_TRY).
bool run_vacuum(Oid relid, const char* activity, char* error, size_t error_size) {
    MemoryContext saved_portal = PortalContext;
    volatile bool ok = true;
    PG_TRY();
    {
        if (g_vacuum_context == nullptr)
            g_vacuum_context =
                AllocSetContextCreate(TopMemoryContext, "fetchq vacuum", ALLOCSET_DEFAULT_SIZES);
        SetCurrentStatementStartTimestamp();
        StartTransactionCommand();
        // vacuum() keeps its list and buffer strategy in a child of
        // PortalContext; the statement must outlive its first commit too.
        PortalContext = g_vacuum_context;
        MemoryContextSwitchTo(g_vacuum_context);
        pgstat_report_activity(STATE_RUNNING, activity);
        ExecVacuum(make_parsestate(nullptr), vacuum_stmt(relid), /*isTopLevel=*/true);
        CommitTransactionCommand();
        // A cancel that arrived too late for this VACUUM must not abort
        // the scheduler's next task.
        QueryCancelPending = false;
    }
    PG_CATCH();
    {
        HOLD_INTERRUPTS();
        MemoryContextSwitchTo(TopMemoryContext);
        ErrorData* data = CopyErrorData();
        strlcpy(error, data->message != nullptr ? data->message : "unknown error", error_size);
        FreeErrorData(data);
        AbortOutOfAnyTransaction();
        FlushErrorState();
        RESUME_INTERRUPTS();
        ok = false;
    }
    PG_END_TRY();
    PortalContext = saved_portal;
    MemoryContextSwitchTo(TopMemoryContext);
    if (g_vacuum_context != nullptr) MemoryContextReset(g_vacuum_context);
    pgstat_report_activity(STATE_IDLE, nullptr);
    return ok;
}

double ms_since(TimestampTz start) {
    return static_cast<double>(GetCurrentTimestamp() - start) / 1000.0;
}

}  // namespace

VacuumRound vacuum_hot_tables() {
    VacuumRound round;
    if (IsTransactionOrTransactionBlock()) {
        round.error = "fetchq: vacuum_hot_tables called inside a transaction";
        return round;
    }
    std::vector<Table> tables;
    std::string error;
    try {
        // Our own DELETEs (retention, ...) reach the statistics only once
        // flushed; forced: no waiting for the next second.
        pg::pg_call([] { (void)pgstat_report_stat(true); });
    } catch (const std::exception& e) {
        round.error = e.what();
        return round;
    }
    TransactionId horizon = InvalidTransactionId;
    bool ok = in_transaction(
        InvalidOid,
        [&] {
            list_tables(&tables);
            for (Table& t : tables) t.before = read_stats(t.relid);
            horizon = data_horizon();
        },
        &error);
    if (!ok) {
        round.error = error;
        return round;
    }
    round.checked = static_cast<int>(tables.size());

    const TimestampTz now = GetCurrentTimestamp();
    for (Table& t : tables) {
        if (!is_due(t.before, now)) continue;
        if (nothing_removable(t, horizon)) {
            ereport(settings.log_level,
                    (errmsg("fetchq: vacuum of %s skipped: nothing removable since its last "
                            "vacuum, the xmin horizon is still %u",
                            t.name.c_str(), horizon),
                     errhint("A long transaction, a prepared transaction or a replication slot "
                             "holds it: see pg_stat_activity.backend_xmin, "
                             "pg_prepared_xacts, pg_replication_slots.")));
            continue;
        }
        const std::string activity =
            "fetchq: VACUUM (SKIP_LOCKED, TRUNCATE false, PARALLEL 0) " + t.name;
        char message[256];
        const TimestampTz start = GetCurrentTimestamp();
        if (!run_vacuum(t.relid, activity.c_str(), message, sizeof(message))) {
            if (round.error.empty()) round.error = "table " + t.name + ": " + message;
            log_failure(t.queue, "vacuum of table " + t.name, message);
            continue;
        }
        if (!failure_log().empty()) log_recovery(t.queue, "vacuum of table " + t.name);
        t.attempted = true;
        t.ms = ms_since(start);
    }

    // SKIP_LOCKED skips without a word: count what the statistics saw.
    ok = in_transaction(
        InvalidOid,
        [&] {
            for (Table& t : tables) {
                if (!t.attempted) continue;
                const TableStats after = read_stats(t.relid);
                if (after.found && after.vacuum_count > t.before.vacuum_count) {
                    round.vacuumed++;
                    // Read before it: its own horizon is this one or a later one.
                    if (TransactionIdIsValid(horizon)) g_vacuumed_below[t.relid] = horizon;
                    ereport(settings.log_level,
                            (errmsg("fetchq: vacuumed %s (%ld dead tuples before, %ld after) in "
                                    "%.1f ms",
                                    t.name.c_str(), static_cast<long>(t.before.dead),
                                    static_cast<long>(after.dead), t.ms)));
                } else {
                    ereport(settings.log_level,
                            (errmsg("fetchq: vacuum of %s skipped: table locked or dropped",
                                    t.name.c_str())));
                }
            }
        },
        &error);
    if (!ok && round.error.empty()) round.error = error;
    return round;
}

}  // namespace fetchq::worker
