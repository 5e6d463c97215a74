// fetchq.worker_status(): what each scheduler did last, from shared memory: a
// row per task, or one row with no task for a database without the extension.
// Rows of other databases (their names, last errors) only for superusers and
// members of pg_read_all_stats: the roles pg_stat_activity shows every
// session's query to.
// fetchq.worker_wake(): run by CREATE EXTENSION so that the launcher starts a
// scheduler for this database as soon as the transaction commits.
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/shared_memory/shared_state.hpp"

extern "C" {
#include "catalog/pg_authid_d.h"
#include "commands/dbcommands.h"
#include "utils/acl.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::ops;

// worker_status's columns (worker_status.sql).
constexpr int kColumns = 15;

Datum nullable_ts(TimestampTz t, bool* isnull) {
    *isnull = t == 0 || TIMESTAMP_NOT_FINITE(t);
    return TimestampTzGetDatum(t);
}

Datum worker_status(FunctionCallInfo fcinfo) {
    pg::begin_rows(fcinfo);
    SharedState* s = shared();
    if (s == nullptr) return (Datum)0;
    pg::pg_call([&] {
        const bool all_databases =
            superuser() || has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
        int n = s->nslots;
        DbSlot* copy = static_cast<DbSlot*>(palloc(sizeof(DbSlot) * n));
        LWLockAcquire(s->lock, LW_SHARED);
        memcpy(copy, s->slots, sizeof(DbSlot) * n);
        LWLockRelease(s->lock);
        for (int i = 0; i < n; ++i) {
            const DbSlot& slot = copy[i];
            if (slot.state == kSlotFree) continue;
            if (!all_databases && slot.dboid != MyDatabaseId) continue;
            char* dbname = get_database_name(slot.dboid);
            auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
            if (slot.state == kSlotNoExtension) {
                // No scheduler runs tasks there: one row, task and its columns NULL.
                Datum v[kColumns] = {};
                bool nulls[kColumns];
                for (bool& isnull : nulls) isnull = true;
                v[0] = CStringGetTextDatum(dbname ? dbname : "?");
                nulls[0] = false;
                v[2] = CStringGetTextDatum(slot_state_name(slot.state));
                nulls[2] = false;
                v[12] = nullable_ts(slot.started_at, &nulls[12]);
                tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
                continue;
            }
            for (int t = 0; t < kTaskCount; ++t) {
                const TaskStats& ts = slot.tasks[t];
                Datum v[kColumns];
                bool nulls[kColumns] = {};
                v[0] = CStringGetTextDatum(dbname ? dbname : "?");
                v[1] = Int32GetDatum(slot.pid);
                nulls[1] = slot.pid == 0;
                v[2] = CStringGetTextDatum(slot_state_name(slot.state));
                v[3] = CStringGetTextDatum(task_name(t));
                v[4] = nullable_ts(ts.last_run, &nulls[4]);
                v[5] = Int64GetDatum(ts.runs);
                v[6] = Int64GetDatum(ts.rows_last);
                v[7] = Int64GetDatum(ts.rows_total);
                v[8] = Float8GetDatum(ts.last_ms);
                v[9] = Int64GetDatum(ts.errors);
                // The text names queues and quotes their errors: shown, as
                // pg_stat_activity shows others' queries, to superusers and
                // pg_read_all_stats only.
                v[10] = CStringGetTextDatum(all_databases ? ts.last_error
                                                          : "(hidden: see the server log)");
                nulls[10] = ts.last_error[0] == '\0';
                v[11] = nullable_ts(ts.next_due, &nulls[11]);
                v[12] = nullable_ts(slot.started_at, &nulls[12]);
                v[13] = nullable_ts(ts.last_error_at, &nulls[13]);
                v[14] = nullable_ts(ts.recovered_at, &nulls[14]);
                tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
            }
        }
    });
    return (Datum)0;
}

Datum worker_wake(FunctionCallInfo) {
    wake_launcher_at_commit();
    PG_RETURN_VOID();
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_worker_status, fetchq::sql_api::worker_status)
FETCHQ_SQL_FUNCTION(fetchq_worker_wake, fetchq::sql_api::worker_wake)
