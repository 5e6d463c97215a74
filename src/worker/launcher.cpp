#include "worker/launcher.hpp"

#include <boost/container/flat_map.hpp>
#include <string>
#include <vector>

#include "core/backoff.hpp"
#include "core/name_list.hpp"
#include "ops/config/settings.hpp"
#include "ops/shared_memory/shared_state.hpp"
#include "pg/guard.hpp"
#include "pg/postgres.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_database.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/ps_status.h"
}

namespace fetchq::worker {

using namespace fetchq::ops;
namespace {

struct Database {
    Oid oid;
    std::string name;
};

// Background worker handles of the schedulers this launcher started.
boost::container::flat_map<Oid, BackgroundWorkerHandle*>& handles() {
    static boost::container::flat_map<Oid, BackgroundWorkerHandle*> map;
    return map;
}

// Connectable, non-template databases allowed by fetchq.databases. The scan
// runs inside pg_call and collects plain rows in memory that outlives its
// transaction; the C++ objects are made after it.
void scan_databases(std::vector<Database>* out) {
    struct Row {
        Oid oid;
        NameData name;
    };
    Row* rows = nullptr;
    int n = 0;
    pg::pg_call([&] {
        StartTransactionCommand();
        Relation rel = table_open(DatabaseRelationId, AccessShareLock);
        TableScanDesc scan = table_beginscan_catalog(rel, 0, nullptr);
        int capacity = 16;
        rows = static_cast<Row*>(MemoryContextAlloc(TopMemoryContext, sizeof(Row) * capacity));
        HeapTuple tuple;
        while ((tuple = heap_getnext(scan, ForwardScanDirection)) != nullptr) {
            auto* db = reinterpret_cast<Form_pg_database>(GETSTRUCT(tuple));
            if (!db->datallowconn || db->datistemplate) continue;
            if (n == capacity) {
                capacity *= 2;
                rows = static_cast<Row*>(repalloc(rows, sizeof(Row) * capacity));
            }
            rows[n].oid = db->oid;
            rows[n].name = db->datname;
            ++n;
        }
        table_endscan(scan);
        table_close(rel, AccessShareLock);
        CommitTransactionCommand();
    });
    const std::vector<std::string> allowed =
        core::split_name_list(settings.databases ? settings.databases : "");
    for (int i = 0; i < n; ++i) {
        const char* name = NameStr(rows[i].name);
        if (core::name_allowed(allowed, name)) out->push_back({rows[i].oid, name});
    }
    pg::pg_call([&] { pfree(rows); });
}

DbSlot* allocate_slot(Oid dboid) {
    SharedState* s = shared();
    for (int i = 0; i < s->nslots; ++i) {
        if (s->slots[i].state == kSlotFree) {
            DbSlot* slot = &s->slots[i];
            memset(slot, 0, sizeof(DbSlot));
            slot->dboid = dboid;
            return slot;
        }
    }
    return nullptr;
}

bool start_scheduler(Oid dboid, const char* dbname) {
    BackgroundWorker worker;
    memset(&worker, 0, sizeof(worker));
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = BGW_NEVER_RESTART;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "fetchq");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "fetchq_scheduler_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "fetchq scheduler for database %s", dbname);
    snprintf(worker.bgw_type, BGW_MAXLEN, "fetchq scheduler");
    worker.bgw_main_arg = ObjectIdGetDatum(dboid);
    worker.bgw_notify_pid = MyProcPid;
    BackgroundWorkerHandle* handle = nullptr;
    if (!pg::pg_call([&] { return RegisterDynamicBackgroundWorker(&worker, &handle); }))
        return false;
    handles()[dboid] = handle;
    return true;
}

// A scheduler whose process is gone but whose slot still says it runs
// died without its exit callback (or never attached): retry with backoff.
void reap(DbSlot* slot, TimestampTz now) {
    auto it = handles().find(slot->dboid);
    if (it == handles().end()) return;
    BackgroundWorkerHandle* handle = it->second;
    const bool stopped = pg::pg_call([&] {
        pid_t pid;
        if (GetBackgroundWorkerPid(handle, &pid) != BGWH_STOPPED) return false;
        pfree(handle);
        return true;
    });
    if (!stopped) return;
    handles().erase(it);
    if (slot->state == kSlotRunning || slot->state == kSlotStarting) {
        slot->failures++;
        slot->state = kSlotBackoff;
        slot->retry_at = TimestampTzPlusMilliseconds(now, core::backoff_ms(slot->failures));
        slot->pid = 0;
        slot->latch = nullptr;
    }
}

// One pass: start what should run; returns ms until the next retry is due.
long launch_round(const std::vector<Database>& dbs) {
    SharedState* s = shared();
    const TimestampTz now = GetCurrentTimestamp();
    long wait_ms = 10000;
    pg::pg_call([&] { LWLockAcquire(s->lock, LW_EXCLUSIVE); });
    if (s->recheck) {
        s->recheck = false;
        for (int i = 0; i < s->nslots; ++i) {
            if (s->slots[i].state != kSlotNoExtension) continue;
            s->slots[i].state = kSlotBackoff;
            s->slots[i].retry_at = now;
        }
    }
    for (int i = 0; i < s->nslots; ++i)
        if (s->slots[i].state != kSlotFree) reap(&s->slots[i], now);
    // Forget slots of databases that are gone or no longer allowed.
    for (int i = 0; i < s->nslots; ++i) {
        DbSlot* slot = &s->slots[i];
        if (slot->state == kSlotFree || slot->pid != 0 || handles().count(slot->dboid)) continue;
        bool listed = false;
        for (const Database& db : dbs) listed = listed || db.oid == slot->dboid;
        if (!listed) slot->state = kSlotFree;
    }
    for (const Database& db : dbs) {
        DbSlot* slot = find_slot(db.oid);
        if (slot == nullptr) {
            slot = allocate_slot(db.oid);
            if (slot == nullptr) {
                ereport(WARNING, (errmsg("fetchq: no scheduler slot left for database \"%s\"",
                                         db.name.c_str()),
                                  errhint("Raise fetchq.max_databases.")));
                continue;
            }
            slot->state = kSlotBackoff;  // start below
        }
        if (slot->state == kSlotRunning || slot->state == kSlotStarting ||
            slot->state == kSlotNoExtension)
            continue;
        if (slot->retry_at > now) {
            long ms = static_cast<long>((slot->retry_at - now) / 1000) + 1;
            wait_ms = ms < wait_ms ? ms : wait_ms;
            continue;
        }
        if (start_scheduler(db.oid, db.name.c_str())) {
            slot->state = kSlotStarting;
        } else {
            slot->failures++;
            slot->state = kSlotBackoff;
            slot->retry_at = TimestampTzPlusMilliseconds(now, core::backoff_ms(slot->failures));
            ereport(WARNING, (errmsg("fetchq: could not start a scheduler for database \"%s\"",
                                     db.name.c_str()),
                              errhint("Raise max_worker_processes.")));
        }
    }
    pg::pg_call([&] { LWLockRelease(s->lock); });
    return wait_ms;
}

void launcher_loop() {
    std::vector<Database> dbs;
    while (true) {
        pg::pg_call([] {
            CHECK_FOR_INTERRUPTS();
            if (ConfigReloadPending) {
                ConfigReloadPending = false;
                ProcessConfigFile(PGC_SIGHUP);
            }
        });
        long wait_ms = settings.naptime_ms;
        if (settings.enabled) {
            dbs.clear();
            scan_databases(&dbs);
            wait_ms = launch_round(dbs);
        }
        pg::pg_call([&] {
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
                            PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
        });
    }
}

void detach_launcher(int, Datum) {
    pg::callback_entry(LOG, "launcher_exit", [] {
        if (shared() == nullptr) return;
        shared()->launcher_latch = nullptr;
        shared()->launcher_pid = 0;
        // Why it stops (a SIGTERM, an error) is in the line before.
        pg::pg_call([] { ereport(LOG, (errmsg("fetchq launcher shutting down"))); });
    });
}

}  // namespace

void register_launcher() {
    BackgroundWorker worker;
    memset(&worker, 0, sizeof(worker));
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = 10;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "fetchq");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "fetchq_launcher_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "fetchq launcher");
    snprintf(worker.bgw_type, BGW_MAXLEN, "fetchq launcher");
    RegisterBackgroundWorker(&worker);
}

}  // namespace fetchq::worker

extern "C" PGDLLEXPORT void fetchq_launcher_main(Datum) {
    using namespace fetchq::worker;
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    before_shmem_exit(detach_launcher, 0);
    shared()->launcher_pid = MyProcPid;
    shared()->launcher_latch = MyLatch;
    ereport(LOG, (errmsg("fetchq launcher started")));
    // An exception that escapes the loop is reported as an ERROR; the worker
    // then exits with code 1 and the postmaster restarts it.
    fetchq::pg::callback_entry(ERROR, "launcher_main", launcher_loop);
}
