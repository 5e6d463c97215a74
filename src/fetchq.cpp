// The composition root: what PostgreSQL calls when it loads the library.
// _PG_init defines the settings, requests shared memory and registers the
// launcher (only when preloaded, and not under pg_upgrade), and wires the transaction callbacks
// that write the counters of a commit and wake the scheduler.
#include "ops/counters/counters.hpp"
#include "ops/shared_memory/pick_start.hpp"
#include "ops/shared_memory/pick_wake.hpp"
#include "ops/shared_memory/queue_activity.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "ops/routes/routes.hpp"
#include "ops/config/settings.hpp"
#include "ops/shared_memory/shared_state.hpp"
#include "ops/shared_memory/wake.hpp"
#include "pg/fault_injection.hpp"
#include "pg/fetchq4_quoting.hpp"
#include "pg/guard.hpp"
#include "pg/module.hpp"
#include "pg/postgres.hpp"
#include "worker/database_guard.hpp"
#include "worker/launcher.hpp"

extern "C" {
PG_MODULE_MAGIC;
}

namespace {

// After the commit or abort: an error here could no longer change the
// outcome, so a fault is only reported (WARNING).
void on_xact(XactEvent event, void*) {
    using namespace fetchq::ops;
    fetchq::pg::callback_entry(WARNING, "xact_callback", [event] {
        switch (event) {
            case XACT_EVENT_COMMIT:
                at_commit();
                // The moves first: a scheduler this commit wakes must find
                // them recorded, or it would keep the queue's older due
                // moment (worker/known_due.hpp).
                record_activity_at_commit();
                wake_scheduler_at_commit();
                // Where picks start before the waiting picks are woken.
                publish_pick_changes_at_commit();
                wake_pickers_at_commit();
                break;
            case XACT_EVENT_ABORT:
            case XACT_EVENT_PARALLEL_ABORT:
                publish_pick_changes_at_abort();
                wake_pickers_at_abort();
                at_abort();
                forget_due();
                forget_pickable();
                forget_activity();
                break;
            case XACT_EVENT_PREPARE:
                // Its outcome comes without callbacks: what it changes is
                // found by picks from the beginning (ops/shared_memory/pick_start.cpp).
                forget_pick_changes();
                at_abort();
                forget_due();
                forget_pickable();
                forget_activity();
                break;
            default:
                break;
        }
    });
}

// A savepoint rolled back: documents it had taken are pending again.
void on_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event != SUBXACT_EVENT_ABORT_SUB) return;
    fetchq::pg::callback_entry(WARNING, "subxact_pick_callback",
                               [] { fetchq::ops::pick_changes_at_subabort(); });
}

}  // namespace

extern "C" PGDLLEXPORT void _PG_init(void) {
    const bool preloaded = process_shared_preload_libraries_in_progress;
    fetchq::pg::set_loaded_at_startup(preloaded);
    fetchq::pg::define_fault_injection();
    fetchq::ops::define_settings();
    fetchq::pg::define_fetchq4_quoting();
    // PostgreSQL calls the transaction callbacks last registered first: the
    // check of new routes at commit runs after the counters are written.
    fetchq::ops::routes_register_callbacks();
    fetchq::ops::metrics_register_callbacks();
    fetchq::ops::catalog_generation_register();
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
    if (!preloaded) return;
    fetchq::ops::request_shared_memory();
    fetchq::ops::install_shmem_hooks();
    fetchq::worker::install_database_guard();
    // No workers in pg_upgrade's servers (-b): it reads the old cluster's
    // next transaction id before starting it, so a transaction of ours there
    // would have its id given out again in the new cluster.
    if (!IsBinaryUpgrade) fetchq::worker::register_launcher();
}
